"""RETURN payloads computed in one Numba pass per batch (optimized/returns.py) equal the reference's:
random RETURN expressions over random streams (nulls, fractions, text), every strategy, random chunks."""
from __future__ import annotations

from fractions import Fraction

import pandas as pd
from hypothesis import given, note, settings
from hypothesis import strategies as st

from cepkit import compile
from cepkit.core.readers import from_pandas
from cepkit.front.language import parse
from tests.optimized.test_optimized_vs_reference import _optimized, feed_in_chunks
from tests.reference.sase_strategies import STRATEGIES, patterns, streams
from tests.reference.test_nfab_vs_brute import with_strategy


def _leaves(pattern_text: str) -> list[str]:
    """Numeric operands over the pattern's variables: attributes, lengths, aggregates and constants."""
    q = parse(pattern_text)
    out = ["0", "2", "7", "0.5"]
    for c in q.pattern.positive:
        v = c.var
        refs = [f"{v}[1]", f"{v}[{v}.LEN]"] if c.kleene else [f"{v}"]
        out += [f"{r}.{a}" for r in refs for a in ("x", "y")]
        if c.kleene:
            out += [f"{v}.LEN"] + [f"{f}({v}[].{a})" for f in ("sum", "count", "avg", "min", "max") for a in "xy"]
    return out


@st.composite
def expressions(draw, leaves: list[str], depth: int = 3) -> str:
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        return draw(st.sampled_from(leaves))
    kind = draw(st.integers(0, 3))
    left = draw(expressions(leaves, depth - 1))
    if kind == 0:
        return f"-({left})"
    right = draw(expressions(leaves, depth - 1))
    if kind == 1:
        return f"({left} {draw(st.sampled_from(['<', '>=', '=', '!=']))} {right})"
    return f"({left} {draw(st.sampled_from(['+', '-', '*', '/', '%']))} {right})"


@st.composite
def return_cases(draw):
    pattern = draw(patterns())
    text = with_strategy(pattern["text"], draw(st.sampled_from(STRATEGIES)))
    leaves = _leaves(text)
    var = parse(text).pattern.positive[0]
    first = f"{var.var}[1]" if var.kleene else var.var
    items = [draw(expressions(leaves)) for _ in range(draw(st.integers(1, 3)))]
    extra = [f"{first}.s", f"{first}.id", f"{first}.ts", "'u'", f"({first}.s = 'u')", f"({first}.s != {first}.s)"]
    items += draw(st.lists(st.sampled_from(extra), max_size=2))
    text += "\nRETURN " + ", ".join(f"{e} AS r{k}" for k, e in enumerate(items))
    frame = draw(streams(pattern["types"]))
    ys = st.sampled_from([None, -2, 0, 1, 2.5, 7])
    frame = frame.assign(y=pd.array([draw(ys) for _ in range(len(frame))], dtype="float64"),
                         s=[draw(st.sampled_from(["u", "v", ""])) for _ in range(len(frame))])
    return text, frame


@settings(max_examples=max(30, settings().max_examples // 8), deadline=None)
@given(case=return_cases(), cuts=st.lists(st.integers(0, 9), max_size=3), merge=st.booleans())
def test_returns_equal_reference(case, cuts, merge):
    text, frame = case
    note(text)
    note(frame.to_string())
    program = _optimized(text, merge=merge)
    batch = from_pandas(frame)
    got = feed_in_chunks(program, batch, cuts)
    want = compile(text).run(batch)
    assert got == want
    assert [[_kind(v) for _, v in m.payload] for m in got] == [[_kind(v) for _, v in m.payload] for m in want]


def _kind(v) -> type:
    """The type of a payload value, an integral Fraction counting as an int (docs/semantics.md O7)."""
    return int if isinstance(v, Fraction) and v.denominator == 1 else type(v)


def test_results_beyond_int64_are_exact():
    """A RETURN value beyond 64 bits is computed by the reference evaluator (exact), not refused."""
    text = "PATTERN SEQ(A+ a[], B b) WHERE skip_till_next_match { [g] }\nRETURN sum(a[].x) * b.x AS big, a.LEN AS n"
    frame = pd.DataFrame({"id": [1, 2, 3], "ts": [0, 1, 2], "type": ["A", "A", "B"], "x": [2**62, 2**62, 3],
                          "g": [0, 0, 0]})
    batch = from_pandas(frame)
    got = compile(text, engine="optimized").run(batch)
    assert got == compile(text).run(batch)
    assert got[0].payload == (("big", 3 * 2**63), ("n", 2))
    assert compile(text, engine="optimized", batch_returns=False).run(batch) == got  # the measured baseline
