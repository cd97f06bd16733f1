"""The device pattern matcher against the reference: random streams, a fixed set of patterns (so that the
built programs are reused), the three strategies, windows and batch splits, both launch modes (the batch
kernel with work-groups of 1-3 work-items too, so each work-item takes several partial matches); refusals
by construct name."""
from __future__ import annotations

import re
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cepkit.gpu.pattern
from cepkit.gpu.pattern_run import DeviceAllMatches, compile_query
from cepkit.gpu.pattern_run import run_rows as gpu_run_rows
from cepkit.core.errors import EventError, Unsupported
from cepkit.reference.sql.run import run_rows

COLUMNS = ["ts", "id", "s", "v", "g", "t"]
STRATEGIES = ["CONTIGUOUS", "SKIP_TILL_NEXT_MATCH", "SKIP_TILL_ANY_MATCH"]
# (PARTITION BY, PATTERN, SUBSET, DEFINE)
PATTERNS = [
    ("", "A B* C", "", "A AS s = 0, B AS s = 1, C AS s = 2 OR t > 'x'"),
    ("PARTITION BY g", "A+ B", "", "A AS s <= 2, B AS s >= 1 AND (v <= A.v OR PREV(v) IS NULL)"),
    ("", "A B C*", "SUBSET U = (A, B)", "A AS s <= 1, B AS v >= A.v + 1, C AS v <= PREV(v, 2) OR U.v = 0"),
    ("", "A* B", "", "B AS s = 1 AND PREV(A.v) IS NULL AND NOT (v > 3)"),
    ("", "A B* C+", "", "A AS s = 0, B AS s <= 2, C AS s >= 1 AND v > PREV(v)"),
]


def _query(k: int, strategy: str, within: int | None, exclusive: bool) -> str:
    part, pattern, subset, define = PATTERNS[k]
    w = "" if within is None else f" WITHIN {within}" + (" EXCLUSIVE" if exclusive else "")
    return (f"SELECT * FROM t MATCH_RECOGNIZE ({part} ORDER BY ts MEASURES FIRST(A.id) AS a, COUNT(*) AS n "
            f"ALL MATCHES {strategy} PATTERN ({pattern}){w} {subset} DEFINE {define})")


@st.composite
def streams(draw, max_rows: int):
    n = draw(st.integers(0, max_rows))
    gaps = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    rows, ts = [], 0
    for i, gap in enumerate(gaps):
        ts += gap
        rows.append({"ts": ts, "id": i, "s": draw(st.integers(0, 3)),
                     "v": draw(st.one_of(st.none(), st.integers(0, 5))), "g": draw(st.integers(0, 1)),
                     "t": draw(st.sampled_from(["x", "y", None]))})
    return rows


LAUNCHES = ["event", "batch"]
# (launch, work-items of the batch kernel's work-group: the default, or fewer than the partial matches)
GROUPS = [("event", None), ("batch", None), ("batch", 2)]


def _group(size: int | None):
    return patch.object(cepkit.gpu.pattern, "GROUP", size or cepkit.gpu.pattern.GROUP)


def _same(q: str, rows, batch: int, launch: str = "batch", group: int | None = None) -> None:
    want = run_rows(q, COLUMNS, rows)
    with _group(group):
        got = gpu_run_rows(q, COLUMNS, rows, batch=batch, launch=launch)
    assert got.columns == want.columns
    assert got.rows == want.rows
    assert got.matches == want.matches


@pytest.mark.parametrize("launch", LAUNCHES)
@settings(max_examples=100)
@given(k=st.integers(0, len(PATTERNS) - 1), strategy=st.sampled_from(STRATEGIES[:2]),
       within=st.one_of(st.none(), st.integers(0, 8)), exclusive=st.booleans(), rows=streams(24),
       batch=st.integers(1, 9), group=st.sampled_from([None, 1, 3]))
def test_gpu_equals_reference(launch, k, strategy, within, exclusive, rows, batch, group):
    _same(_query(k, strategy, within, exclusive), rows, batch, launch, group)


@pytest.mark.parametrize("launch", LAUNCHES)
@settings(max_examples=60)
@given(k=st.integers(0, len(PATTERNS) - 1), within=st.integers(0, 6), exclusive=st.booleans(),
       rows=streams(24), batch=st.integers(1, 9), group=st.sampled_from([None, 1, 3]))
def test_gpu_equals_reference_skip_till_any(launch, k, within, exclusive, rows, batch, group):
    # skip-till-any keeps every partial match alive for the whole window: the window bounds the work
    _same(_query(k, "SKIP_TILL_ANY_MATCH", within, exclusive), rows, batch, launch, group)


@pytest.mark.parametrize("launch, group", GROUPS)
def test_growth_and_long_kleene_runs(launch, group):
    """Thousands of partial matches and a Kleene variable bound to every row: the arrays grow, never truncate."""
    rows = [{"ts": i, "id": i, "s": 1 if i % 7 else 0, "v": i % 5, "g": 0} for i in range(400)]
    q = _query(0, "SKIP_TILL_ANY_MATCH", 12, False).replace("C AS s = 2", "C AS v = 4")
    _same(q, rows, 64, launch, group)
    q = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES COUNT(B.v) AS n ALL MATCHES CONTIGUOUS "
         "PATTERN (A B* C) DEFINE A AS ts = 0, C AS ts = 399)")
    with _group(group):
        table = gpu_run_rows(q, COLUMNS, rows, batch=50, launch=launch)
    assert table.rows == ((398,),) and table.rows == run_rows(q, COLUMNS, rows).rows


@pytest.mark.parametrize("launch, group", GROUPS)
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_tiny_arrays_grow_and_unreachable_nodes_are_collected(strategy, launch, group):
    """Capacities of 1-2 entries: every batch overflows, replays and collects nodes; same matches."""
    rows = [{"ts": i, "id": i, "s": (i * 7) % 4, "v": (i * 5) % 6, "g": i % 2, "t": "xy"[i % 3 // 2]}
            for i in range(300)]
    for k in range(len(PATTERNS)):
        q, p = compile_query(_query(k, strategy, 5, False), COLUMNS)
        hook = DeviceAllMatches(p, batch=7, caps=(1, 2, 1), launch=launch)
        with _group(group):
            assert run_rows(q, COLUMNS, rows, all_matches=hook) == run_rows(q, COLUMNS, rows)


def test_unknown_launch_mode_is_refused():
    q, p = compile_query(_query(0, "CONTIGUOUS", None, False), COLUMNS)
    with pytest.raises(ValueError, match="launch must be one of batch, event"):
        run_rows(q, COLUMNS, [{"ts": 0, "id": 0, "s": 0, "v": 0, "g": 0, "t": None}],
                 all_matches=DeviceAllMatches(p, launch="warp"))


@pytest.mark.parametrize("launch", LAUNCHES)
def test_overflow_in_define_is_an_event_error(launch):
    rows = [{"ts": i, "id": i, "s": 0, "v": 2 ** 62, "g": 0} for i in range(3)]
    q = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts ALL MATCHES CONTIGUOUS PATTERN (A B) "
         "DEFINE B AS v * 4 > A.v)")
    with pytest.raises(EventError, match="overflow"):
        gpu_run_rows(q, COLUMNS, rows, launch=launch)


@pytest.mark.parametrize("clause, construct", [
    ("ONE ROW PER MATCH PATTERN (A B)", "ONE ROW PER MATCH"),
    ("ALL ROWS PER MATCH PATTERN (A B)", "ALL ROWS PER MATCH"),
    ("ALL MATCHES CONTIGUOUS PATTERN (A | B)", "alternation"),
    ("ALL MATCHES CONTIGUOUS PATTERN (A B{2,3})", "quantifiers other than * and +"),
    ("ALL MATCHES CONTIGUOUS PATTERN (A B*?)", "reluctant quantifiers"),
    ("ALL MATCHES CONTIGUOUS PATTERN ((A B)+)", "quantified groups"),
    ("ALL MATCHES CONTIGUOUS PATTERN (PERMUTE(A, B))", "PERMUTE"),
])
def test_refused_patterns(clause, construct):
    q = f"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts {clause} DEFINE A AS s = 0, B AS s = 1)"
    with pytest.raises(Unsupported, match=re.escape(construct)) as info:
        gpu_run_rows(q, COLUMNS, [])
    assert info.value.engine == "gpu" and info.value.line == 1


@pytest.mark.parametrize("define, construct", [
    ("B AS v > NEXT(v)", "NEXT() in DEFINE"),
    ("B AS v > FIRST(A.v)", "FIRST() in DEFINE"),
    ("B AS SUM(A.v) > 1", "aggregates in DEFINE"),
    ("B AS CLASSIFIER() = 'B'", "CLASSIFIER() in DEFINE"),
    ("B AS PREV(v + 1) > 1", "PREV() of anything but a column"),
])
def test_refused_define(define, construct):
    q = f"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts ALL MATCHES CONTIGUOUS PATTERN (A B) DEFINE {define})"
    with pytest.raises(Unsupported, match=re.escape(construct)):
        gpu_run_rows(q, COLUMNS, [])


def test_window_keys_must_be_int64_integers():
    from fractions import Fraction

    rows = [{"ts": Fraction(i, 2), "id": i, "s": 0, "v": 1, "g": 0, "t": None} for i in range(3)]
    q = _query(0, "CONTIGUOUS", 2, False)
    with pytest.raises(EventError, match="int64 integer ORDER BY keys for WITHIN") as info:
        gpu_run_rows(q, COLUMNS, rows)
    assert info.value.column == "ts"
    run_rows(q, COLUMNS, rows)   # the reference accepts them


@pytest.mark.parametrize("launch", LAUNCHES)
def test_same_rows_other_labels_order_alike(launch):
    """Shrunk from test_gpu_equals_reference_skip_till_any: rows 0, 1, 4 match both as A B C and as A C C
    (and more matches tie likewise); the reference and the device discover them in different orders, and
    both list them by (last row, first row, rows, labels) (semantics M7)."""
    v = [0, 2, 5, 2, 5]
    rows = [{"ts": t, "id": i, "s": s, "v": v[i], "g": 0, "t": None}
            for i, (t, s) in enumerate(zip([1, 1, 3, 3, 5], [0, 1, 3, 2, 3]))]
    q = _query(4, "SKIP_TILL_ANY_MATCH", 6, True)
    _same(q, rows, 3, launch)
    labels = [m[0] for m in run_rows(q, COLUMNS, rows).matches if m[0].get("C", ())[-1:] == (4,)]
    assert len(labels) > len({tuple(sorted(x for b in m.values() for x in b)) for m in labels})  # ties exist


@pytest.mark.parametrize("launch", LAUNCHES)
def test_arithmetic_on_a_decimal_column_equals_reference(launch):
    """A column of integers and decimals (90.5, 80, ...) that DEFINE computes with, read from the current row,
    PREV and a partial match's slot (A.v): exact on the device, as the reference (it was refused: "arithmetic
    on float64 values without a common int64 decimal scale"; issue 30, item 2)."""
    from fractions import Fraction

    values = [Fraction(181, 2), 80, 70, Fraction(321, 4), 95, Fraction(1, 10), 3, None, Fraction(-5, 2), 60]
    rows = [{"ts": i, "id": i, "s": i % 2, "v": v, "g": 0, "t": None} for i, v in enumerate(values)]
    q = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES FIRST(A.id) AS a, COUNT(*) AS n "
         "ALL MATCHES SKIP_TILL_ANY_MATCH PATTERN (A B+ C) WITHIN 6 "
         "DEFINE A AS v * 2 > 100.5, B AS B.v - A.v < 0.25 * A.v + 1, C AS C.v * 3 - PREV(C.v) < A.v - 0.5)")
    want = run_rows(q, COLUMNS, rows)
    assert want.rows, "the query must match something to compare"
    _same(q, rows, 3, launch)
