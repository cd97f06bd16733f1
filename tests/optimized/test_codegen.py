"""Generated modules (optimized/nfab/generated.py) equal the reference: one query whose formulas use every
expression form the generator emits, over random streams; and the module cache round-trips."""
from __future__ import annotations

import pandas as pd
from hypothesis import given, note, settings
from hypothesis import strategies as st

from cepkit import compile
from cepkit.optimized.cache import load_module
from cepkit.optimized.nfab.generated import module_source
from cepkit.core.readers import from_pandas
from tests.reference.sase_strategies import streams

# begin, take and proceed clauses; a[i], a[i-1], a[1], a[a.LEN], a.LEN; every aggregate over a[..i-1];
# OR / NOT; + - * / % and unary minus; a fraction constant; leading and middle negations with predicates.
QUERY = """PATTERN SEQ(!(D z), A+ a[], !(C y), B b)
WHERE skip_till_any_match { [g] and a[1].x >= 1
  and (a[i].x >= avg(a[..i-1].x) or a[i].x = a[i-1].x - 1) and a[i].x <= max(a[..i-1].x) + 1
  and not (a[i].x < min(a[..i-1].x)) and sum(a[..i-1].x) % 3 != 2 and count(a[..i-1].x) < 4
  and a.LEN >= 2 and b.x / 3 < a[a.LEN].x * 0.8 + 1 and -b.x <= 0 and b.x * 2 != 5
  and z.x = a[1].x and y.x > a[a.LEN].x }
WITHIN 6
RETURN sum(a[].x) / a.LEN AS m"""


@settings(max_examples=max(40, settings().max_examples // 10), deadline=None)
@given(frame=streams(["A", "B", "C", "D"], max_size=14), cut=st.integers(0, 14))
def test_generated_module_equals_reference(frame, cut):
    note(frame.to_string())
    program = compile(QUERY, engine="optimized", codegen=True)
    assert program.generated is not None
    batch = from_pandas(frame)
    cut = min(cut, len(batch))
    got = program.feed(batch.slice(0, cut)) + program.feed(batch.slice(cut, len(batch))) + program.close()
    assert got == compile(QUERY).run(batch)


def test_generated_counters_equal_reference():
    rows = [{"id": i, "ts": i // 2, "type": "DACAB"[i % 5], "x": (i * 5) % 4, "g": (i // 5) % 2} for i in range(60)]
    batch = from_pandas(pd.DataFrame(rows))
    # without the key index, which skips the other keys' runs (tests/optimized/test_key_index.py)
    program, reference = compile(QUERY, engine="optimized", codegen=True, index=False), compile(QUERY)
    assert program.run(batch) == reference.run(batch)
    assert program.counters == reference.counters


def test_fractional_values_fall_back_to_tables():
    """Generated formulas assume integral values; a batch with fractions switches to the tables."""
    rows = [{"id": i, "ts": i // 2, "type": "DAACAB"[i % 6], "x": [1, 1.5, 2.25, 3, 0.5][i % 5], "g": 0}
            for i in range(40)]
    batch = from_pandas(pd.DataFrame(rows))
    program = compile(QUERY, engine="optimized", codegen=True)
    assert program.run(batch) == compile(QUERY).run(batch)
    assert program.kernel is not program.generated


def test_cache_writes_one_file_per_source(tmp_path, monkeypatch):
    monkeypatch.setenv("CEPKIT_CACHE", str(tmp_path))
    source = "VALUE = 41 + 1\n"
    module = load_module(source, prefix="cepkit_test")
    assert module.VALUE == 42
    files = list(tmp_path.glob("cepkit_test_*.py"))
    assert len(files) == 1 and files[0].read_text() == source
    assert load_module(source, prefix="cepkit_test") is module


def test_generated_source_has_no_interpreter():
    """The generated formulas are straight-line code: no postfix tables are read."""
    program = compile(QUERY, engine="optimized")
    source = module_source(program.table_dict, program.nfa.n, len(program.nfa.negations), QUERY)
    formulas = source[source.index("def holds"):source.index("# LOOP-START")]
    assert "eval_clause" not in formulas and "T[0]" not in formulas
    assert "* 4 / 5" not in formulas  # fractions are kept as integer pairs, never as floats


def test_generated_module_merges_runs_like_the_tables():
    """The generated loop merges equivalent runs too (merging is on by default; this query has no negation)."""
    text = ("PATTERN SEQ(A+ a[], B b) WHERE skip_till_next_match { [g] and a[i].x >= max(a[..i-1].x) "
            "and b.x < a[a.LEN].x + 2 } WITHIN 9")
    rows = [{"id": i, "ts": i // 2, "type": "AAB"[i % 3] if i % 7 else "B", "x": (i * 5) % 4, "g": (i // 4) % 2}
            for i in range(300)]
    batch = from_pandas(pd.DataFrame(rows))
    program = compile(text, engine="optimized", codegen=True)
    assert program.generated is not None and program.merging
    assert program.run(batch) == compile(text).run(batch)
    assert program.counters.partial_matches < _created(text, batch)


def _created(text: str, batch) -> int:
    program = compile(text, engine="optimized", merge=False)
    program.run(batch)
    return program.counters.partial_matches
