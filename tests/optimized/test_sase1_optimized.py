"""The optimized engine in the SASE 1.0 dialect equals the reference's Sase1Program (reference/nfab/sase1.py)
on random SEQ / Kleene queries under SASE 1.0's three strategies, with no partition attribute, one, or two (the
second is SASE 1.0's predicate on the later components, docs/semantics.md S1.6):
the same match table (matches, order, bindings, timestamps, RETURN payloads) and the same work counters,
whole or fed in random chunks. Query shapes follow tests/reference/test_sase1_vs_model.py's templates
(one Kleene closure, not last; [k]; WITHIN), drawn here with more components and predicates."""
from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

from cepkit import compile
from cepkit.core.errors import Unsupported
from cepkit.front.language import parse
from cepkit.core.readers import from_pandas
from tests.reference.test_sase1_vs_model import STRATEGIES

VARS = "abc"


def _scaled(divisor: int, floor: int = 20):
    return settings(max_examples=max(floor, settings().max_examples // divisor), deadline=None)


@st.composite
def queries(draw) -> str:
    """A SASE 1.0 dialect query: SEQ of 2-3 components over types A / B, at most one Kleene closure (not
    last), predicates on each component ([i] / [i-1], [1], LEN, aggregates, earlier variables), [k] or not, and
    with [k] a second partition attribute [w] or not (not where the dialect refuses it: skip-till-any-match
    after a Kleene closure first, with a third component)."""
    n = draw(st.integers(2, 3))
    kleene = draw(st.sampled_from([None] + list(range(n - 1))))
    types = [draw(st.sampled_from("AAB")) for _ in range(n)]
    strategy = draw(st.sampled_from(STRATEGIES))
    keyed = strategy == "partition-contiguity" or draw(st.booleans())
    comps, preds = [], []
    for j in range(n):
        x = VARS[j]
        comps.append(f"{types[j]}+ {x}[]" if j == kleene else f"{types[j]} {x}")
        if j == kleene:
            options = [f"{x}[i].v > {x}[i-1].v", f"{x}[i].v >= {x}[i-1].v", f"{x}[1].v % 2 = 0",
                       f"{x}[i].v > avg({x}[..i-1].v)", f"{x}[i].v <= max({x}[..i-1].v) + 1", f"{x}[1].v > 0"]
        else:
            options = [f"{x}.v > 2", f"{x}.v < 2", f"{x}.v % 2 = 1", f"{x}.w = 1"]
            if j > 0:
                p = VARS[j - 1]
                prev = f"{p}[{p}.LEN]" if j - 1 == kleene else p
                options += [f"{x}.v < {prev}.v", f"{x}.v >= {prev}.v"]
                if kleene is not None and kleene < j:
                    k = VARS[kleene]
                    options += [f"{x}.v > {k}[1].v", f"{x}.v < sum({k}[].v)", f"{k}.LEN >= 2"]
        preds += draw(st.lists(st.sampled_from(options), max_size=2, unique=True))
    second = keyed and not (strategy == "skip-till-any-match" and kleene == 0 and n == 3) and draw(st.booleans())
    where = [strategy] + (["[k]"] if keyed else []) + (["[w]"] if second else []) + preds
    window = draw(st.sampled_from([2, 4, 9]))
    text = f"PATTERN SEQ({', '.join(comps)}) WHERE {' AND '.join(where)} WITHIN {window}"
    if draw(st.booleans()):
        first = VARS[0]
        text += (f" RETURN {first}[1].v AS f, sum({first}[].v) AS s, avg({first}[].v) AS m, {first}.LEN AS n"
                 if kleene == 0 else f" RETURN {first}.v * 2 - 1 AS f, {first}.v / 3 AS d")
    return text


@st.composite
def streams(draw) -> pd.DataFrame:
    """A few keys, small values, ties and gaps in time."""
    size = draw(st.integers(1, 24))
    rows, ts = [], 0
    for i in range(size):
        ts += draw(st.sampled_from([0, 1, 1, 2, 3]))
        rows.append({"id": i, "type": draw(st.sampled_from("AAB")), "ts": ts, "k": draw(st.sampled_from([1, 1, 2, 3])),
                     "v": draw(st.integers(0, 5)), "w": draw(st.integers(0, 1))})
    return pd.DataFrame(rows)


def _feed(program, batch, cuts) -> list:
    bounds = sorted({0, len(batch), *(min(c, len(batch)) for c in cuts)})
    got = []
    for lo, hi in zip(bounds, bounds[1:]):
        got += program.feed(batch.slice(lo, hi))
    return got + program.close()


@_scaled(2)
@given(text=queries(), frame=streams(), cuts=st.lists(st.integers(0, 24), max_size=4))
def test_optimized_sase1_equals_reference(text, frame, cuts):
    note(text)
    q = parse(text, dialect="sase1")
    batch = from_pandas(frame)
    reference = compile(q)
    want = reference.run(batch)
    program = compile(q, engine="optimized")
    assert program.run(batch) == want
    assert program.counters == reference.counters
    assert _feed(compile(q, engine="optimized"), batch, cuts) == want.rows()


def test_q1_shape_on_many_keys_and_chunks():
    """Many partition keys (the key table grows and is rehashed), long Kleene runs (the pool and the buffer
    grow and compact), fed in uneven chunks: the reference's table."""
    import numpy as np

    rng = np.random.default_rng(7)
    size = 6000
    frame = pd.DataFrame({"id": np.arange(size), "type": "stock", "ts": np.arange(size) // 2,
                          "symbol": rng.integers(0, 300, size), "price": rng.integers(0, 40, size),
                          "volume": rng.integers(0, 1000, size)})
    batch = from_pandas(frame)
    for strategy in STRATEGIES:
        q = parse(f"PATTERN SEQ(stock+ a[], stock b) WHERE {strategy} AND [symbol] AND a[1].price % 4 = 0 "
                  "AND a[i].price >= a[i-1].price - 20 AND b.volume < 30 WITHIN 400", dialect="sase1")
        want = compile(q).run(batch)
        program = compile(q, engine="optimized")
        got = []
        for lo, hi in zip([0, 1, 999, 3000, 3001], [1, 999, 3000, 3001, size]):
            got += program.feed(batch.slice(lo, hi))
        assert got == want.rows() and len(want) > 0


def test_whole_stream_kleene_forks_equal_reference():
    """No partition attribute: every take into the closure forks a run that moves on (S1.5)."""
    frame = pd.DataFrame({"id": range(60), "type": ["A"] * 60, "ts": range(60), "v": [i % 7 for i in range(60)]})
    batch = from_pandas(frame)
    q = parse("PATTERN SEQ(A a, A+ b[], A c) WHERE skip-till-any-match AND b[i].v > b[i-1].v AND c.v = 0 WITHIN 12",
              dialect="sase1")
    want = compile(q).run(batch)
    assert compile(q, engine="optimized").run(batch) == want and len(want) > 0


@pytest.mark.parametrize("text, construct", [
    ("PATTERN SEQ(A a, !(B x), A b) WHERE skip-till-next-match WITHIN 5", "negation in the SASE 1.0 dialect"),
])
def test_what_it_cannot_run_is_refused_by_name(text, construct):
    with pytest.raises(Unsupported, match=construct):
        compile(parse(text, dialect="sase1"), engine="optimized")
    q = parse("PATTERN SEQ(A a, A b) WHERE skip-till-any-match WITHIN 5", dialect="sase1")
    with pytest.raises(Unsupported, match="non-overlap output format in the SASE 1.0 dialect"):
        compile(q, engine="optimized", selection="non_overlap")


def test_limit_and_max_state_as_the_reference():
    """--limit stops after the event that reaches it; --max-state names the run's variable."""
    from cepkit.core.errors import ResourceLimit

    frame = pd.DataFrame({"id": range(40), "type": ["A"] * 40, "ts": range(40), "k": [1] * 40, "v": [1] * 40})
    batch = from_pandas(frame)
    q = parse("PATTERN SEQ(A+ a[], A b) WHERE skip-till-any-match AND [k] WITHIN 100", dialect="sase1")
    assert compile(q, engine="optimized", limit=7).run(batch) == compile(q, limit=7).run(batch)
    for engine in ("reference", "optimized"):
        with pytest.raises(ResourceLimit, match="more than 10 live partial matches, most of them at pattern variable a"):
            compile(q, engine=engine, max_state=10).run(batch)


def test_partition_keys_are_exact_values_and_null_is_one_key():
    """[k] groups by the exact value: 1 and 1.0 are one key, 1.5 another, and null (a missing value) is a
    key of its own, as in the reference (S1O.3)."""
    keys = [1, 1.0, None, 1.5, None, 1, 1.5, None, 1.0, 2, None, 1]
    frame = pd.DataFrame({"id": range(len(keys)), "type": ["A"] * len(keys), "ts": range(len(keys)),
                          "k": keys, "v": [1, 2, 1, 3, 2, 3, 4, 3, 0, 1, 0, 0]})
    batch = from_pandas(frame)
    for strategy in STRATEGIES:
        q = parse(f"PATTERN SEQ(A+ a[], A b) WHERE {strategy} AND [k] AND a[i].v > a[i-1].v AND b.v = 0 "
                  "WITHIN 20", dialect="sase1")
        want = compile(q).run(batch)
        assert compile(q, engine="optimized").run(batch) == want and len(want) > 0


def test_cepkit_run_of_examples_q1_on_optimized_in_chunks_prints_sase1s_count(tmp_path, capsys):
    """Issue 19's acceptance on the optimized engine, fed in chunks: examples/Q1.query over its regenerated
    stream prints SASE 1.0's count (the vector S1-Q1 holds the count)."""
    import json
    from pathlib import Path

    from cepkit.cli import main
    from cepkit.conformance.sase1_loader import load_cases
    from cepkit.reference.sase1.__main__ import main as write_stream

    root = Path(__file__).resolve().parents[2]
    assert write_stream([str(root / "examples/sase1/Q1.stream"), str(tmp_path / "q1.csv")]) == 0
    assert main(["run", str(root / "examples/Q1.query"), str(tmp_path / "q1.csv"), "--engine", "optimized",
                 "--chunk-size", "7000"]) == 0
    out, err = capsys.readouterr()
    count = next(c for c in load_cases() if c.id == "S1-Q1").expected_count
    rows = [json.loads(line)["bindings"] for line in out.splitlines()]
    assert len(rows) == count and f"{count} matches from 100000 events" in err
    assert {"a": [1177, 1179, 1183], "b": [1184]} in rows


def test_the_benchmark_runs_and_the_engines_agree():
    """benchmarks/suites/bench_sase1.py's measurement on a small stream: both engines, one table."""
    from benchmarks import sase1_optimized as B

    for name in B.QUERIES:
        events = 600 if name in B.UNIFORM else 3000  # the any-match sequence has many matches per event
        _, want = B.engine_seconds(name, events, "reference")
        _, got = B.engine_seconds(name, events, "optimized")
        assert got == want and len(want) > 0
