"""MATCH_RECOGNIZE ONE ROW / ALL ROWS PER MATCH with WITHIN and no PARTITION BY, by time slices
(cepkit.spark_jobs.sql_walk, docs/spark.md "MATCH_RECOGNIZE by time slices"): the walk of AFTER MATCH SKIP
carried across slices gives exactly the single process's rows, MATCH_NUMBER() included. Without Spark (Python
doing Spark's part, on random queries and tables) and the walk's pieces alone; the real job is
tests/spark/test_sql_slices.py."""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cepkit
from cepkit.core import registry
from cepkit.core.errors import QueryError
from cepkit.front.sql.starts import SKIP_LOOP, SKIP_NO_ROW, Starts
from cepkit.spark_jobs import generic_tasks as G
from cepkit.spark_jobs import languages as L
from cepkit.spark_jobs import plan as P
from cepkit.spark_jobs import sql_walk as SW
from tests.sql.strategies import aggregates, column_refs, patterns

# ---------------------------------------------------------------------------------------------------------
# The split without Spark: Spark's part (slices, sort, batches, the driver's walk) done here.


def slices_of(sp: P.SlicePlan, t: int) -> range:
    """The slices the job feeds a row of tick t (generic_job: its own, and those it is context after)."""
    d = t - sp.t_min
    lo = 0 if d < sp.context else (d - sp.context) // sp.length
    return range(lo, min(sp.count - 1, d // sp.length) + 1)


def spec_for(text: str, engine: str, layout, sp: P.SlicePlan) -> G.GenericSpec:
    return G.GenericSpec(lang="sql", engine=engine, query=text, options=(), ts_col="ts", id_col="id", type_col=None,
                         default_type="row", ts_unit=None, type_names=None, group_cols=(G.SLICE_COL,),
                         schema=G.output_schema(layout, pa.int64()), layout=layout, slice_length=sp.length,
                         slice_t_min=sp.t_min, walk_context=sp.context)


def split_rows(text: str, frame: pd.DataFrame, slice_length: int, chunk: int, engine: str = "reference") -> tuple:
    """(the rows of the split, the single process's rows), both through the task's to_output, in output order."""
    q = registry.parse("sql", text)
    plan = L.plan_sql(q, L.sql_window_ticks(q, None), engine)
    assert plan.kind == "walk-slice"
    single = cepkit.compile(text, engine=engine).run(frame)
    frame = frame.assign(**{G.ROW_COL: np.arange(len(frame))})
    sp = P.slice_plan(int(frame.ts.min()), int(frame.ts.max()), plan.context, 4, slice_length)
    pieces = pd.DataFrame([dict(r, **{G.SLICE_COL: j, G.TICK_COL: r["ts"]})
                           for r in frame.to_dict("records") for j in slices_of(sp, r["ts"])]
                          ).sort_values([G.SLICE_COL, "ts", G.ROW_COL], kind="stable")   # as the job sorts them
    spec = spec_for(text, engine, single.layout, sp)
    arrow = pa.Table.from_pandas(pieces, preserve_index=False)
    first = dataclasses.replace(spec, schema=SW.TRANSFER)
    transfer = pa.Table.from_batches(list(G.match_groups(first, iter(arrow.to_batches(max_chunksize=chunk)))),
                                     schema=SW.TRANSFER)
    second = dataclasses.replace(spec, walk_entries=tuple(SW.entries(q, transfer, sp.count)))
    out = pa.Table.from_batches(list(G.match_groups(second, iter(arrow.to_batches(max_chunksize=chunk)))),
                                schema=spec.schema)
    want = pa.Table.from_batches([G.to_output(spec, single)], schema=spec.schema)
    return out.to_pylist(), want.to_pylist()


def table(ts, x, y=None) -> pd.DataFrame:
    n = len(ts)
    return pd.DataFrame({"ts": ts, "id": np.arange(100, 100 + n), "x": x, "y": y if y is not None else [0] * n})


# Fixed cases: every AFTER MATCH SKIP mode, ONE ROW and ALL ROWS PER MATCH, MATCH_NUMBER(), empty matches,
# exclusion, unmatched rows, ties in ts and a second ORDER BY key.
BASE = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY {order} MEASURES MATCH_NUMBER() AS n, FIRST(A.id) AS fa, "
        "LAST(id) AS z, COUNT(*) AS cnt, CLASSIFIER() AS cl {rows} {skip} PATTERN ({pattern}) WITHIN {w} "
        "DEFINE A AS x > 1, B AS x <= A.x, C AS x > LAST(B.x))")
CASES = {
    "one-past-last": dict(rows="ONE ROW PER MATCH", skip="AFTER MATCH SKIP PAST LAST ROW", pattern="A B+ C*"),
    "one-next-row": dict(rows="ONE ROW PER MATCH", skip="AFTER MATCH SKIP TO NEXT ROW", pattern="A B+ C*"),
    "all-to-last": dict(rows="ALL ROWS PER MATCH", skip="AFTER MATCH SKIP TO LAST B", pattern="A B+ C*"),
    "all-to-first-c": dict(rows="ALL ROWS PER MATCH", skip="AFTER MATCH SKIP TO FIRST C", pattern="A B* C"),
    "all-unmatched": dict(rows="ALL ROWS PER MATCH WITH UNMATCHED ROWS", skip="", pattern="A B+ C?"),
    "unmatched-next-row": dict(rows="ALL ROWS PER MATCH WITH UNMATCHED ROWS", skip="AFTER MATCH SKIP TO NEXT ROW",
                               pattern="A B+ C?"),
    "all-excluded": dict(rows="ALL ROWS PER MATCH", skip="AFTER MATCH SKIP TO LAST B", pattern="A {- B+ -} C?"),
    "one-empty": dict(rows="ONE ROW PER MATCH", skip="", pattern="A* B? C?"),
    "all-show-empty": dict(rows="ALL ROWS PER MATCH SHOW EMPTY MATCHES", skip="AFTER MATCH SKIP TO NEXT ROW",
                           pattern="(A B)* C?"),
    "all-omit-empty": dict(rows="ALL ROWS PER MATCH OMIT EMPTY MATCHES", skip="", pattern="A? B* C?"),
    "order-ties": dict(rows="ALL ROWS PER MATCH", skip="AFTER MATCH SKIP TO NEXT ROW", pattern="A B+ C?",
                       order="ts, y"),
}


def case_text(name: str, w: int = 5) -> str:
    return BASE.format(**{"order": "ts", "w": w, **CASES[name]})


def case_frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return table(np.sort(rng.integers(0, n // 2, n)), rng.integers(0, 5, n), rng.integers(0, 3, n))


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("length", [1, 3, 11])
def test_fixed_cases_without_spark(name, length):
    got, want = split_rows(case_text(name), case_frame(70, 4), length, 6)
    assert got == want
    assert want


@pytest.mark.parametrize("skip", ["", "AFTER MATCH SKIP TO NEXT ROW"])
def test_unmatched_rows_next_to_matches_from_earlier_slices(skip):
    """WITH UNMATCHED ROWS where matches chain inside a slice and the last one covers rows of the next."""
    text = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES MATCH_NUMBER() AS n ALL ROWS PER MATCH WITH "
            f"UNMATCHED ROWS {skip} PATTERN (A B+) WITHIN 4 DEFINE A AS x = 4, B AS x < 4)")
    rng = np.random.default_rng(2)
    frame = table(np.arange(80), rng.choice([0, 1, 4], 80, p=[0.4, 0.4, 0.2]))
    for length in (2, 3, 5):
        got, want = split_rows(text, frame, length, 5)
        assert got == want
    unmatched = [all(f is None for f in r["n"].values()) for r in want]   # a VALUE struct of no value: null
    assert sum(unmatched) > 5 < len(unmatched) - sum(unmatched)


@pytest.mark.parametrize("engine", ["reference", "optimized"])
def test_close_starts_with_the_whole_walk_is_close(engine):
    """An engine's close_starts picking the single process's own walk (SW.whole_walk) outputs what its close()
    does: the hook the slices use, on every skip mode and rows per match option."""
    frame = case_frame(60, 3)
    for name in CASES:
        text = case_text(name)
        want = cepkit.compile(text, engine=engine).run(frame)
        program = registry.get_engine("sql", engine).compile(text)
        q = program.query
        program.feed(registry.read_input("sql", engine, frame, q))
        got = program.close_starts(lambda s: SW.whole_walk(q, s, len(s.ids), q.empty == "unmatched"))
        assert got.to_arrow().to_pylist() == want.to_arrow().to_pylist(), name


def test_fixed_case_on_the_optimized_engine():
    for name in ("one-next-row", "all-unmatched", "all-to-first-c", "order-ties"):
        got, want = split_rows(case_text(name), case_frame(90, 6), 2, 9, engine="optimized")
        assert got == want


@pytest.mark.parametrize("engine", ["reference", "optimized"])
def test_a_skip_error_is_raised_where_the_walk_meets_it(engine):
    """SKIP TO FIRST C where a match has no C (C is optional): the single process's error where the walk
    reaches such a match (the random test compares errors too)."""
    text = BASE.format(order="ts", rows="ONE ROW PER MATCH", skip="AFTER MATCH SKIP TO FIRST C", pattern="A B C?", w=3)
    frame = table([0, 1, 2, 10, 11, 12], [3, 1, 5, 3, 1, 0])   # first match has C, the second none
    with pytest.raises(QueryError, match="has no row of C"):
        cepkit.compile(text, engine=engine).run(frame)
    with pytest.raises(QueryError, match="has no row of C"):
        split_rows(text, frame, 2, 3, engine=engine)


# ---------------------------------------------------------------------------------------------------------
# Random queries and tables against the single process.

def navigation(names):
    arg = column_refs(names)
    return st.builds(lambda s, f, a, o: f"{s}{f}({a}{o})", st.sampled_from(("", "RUNNING ")),
                     st.sampled_from(("FIRST", "LAST")), arg, st.sampled_from(("", ", 1")))


def conditions(names):
    value = st.one_of(column_refs(names), st.integers(-1, 4).map(str), navigation(names),
                      aggregates(names, False))
    atom = st.one_of(st.builds(lambda a, op, b: f"{a} {op} {b}", value, st.sampled_from(("=", "<>", "<", ">=")), value),
                     st.builds(lambda a: f"{a} IS NULL", value),
                     st.builds(lambda v: f"CLASSIFIER() = '{v}'", st.sampled_from(("A", "B", "C"))))
    return st.recursive(atom, lambda c: st.builds(lambda a, op, b: f"({a} {op} {b})", c,
                                                  st.sampled_from(("AND", "OR")), c), max_leaves=2)


def skips(names):
    fixed = st.sampled_from(("", "AFTER MATCH SKIP PAST LAST ROW", "AFTER MATCH SKIP TO NEXT ROW"))
    to = st.builds(lambda how, n: f"AFTER MATCH SKIP TO {how} {n}", st.sampled_from(("FIRST", "LAST")),
                   st.sampled_from(names))
    return st.one_of(fixed, to) if names else fixed


@st.composite
def queries(draw):
    from cepkit.front.sql.patterns import variables
    from cepkit.front.sql.printer import pattern_text

    pattern = draw(patterns(anchors=False, max_leaves=4, var_weight=4))
    used = list(dict.fromkeys(v.name for v in variables(pattern)))
    define = [(v, draw(conditions(used))) for v in used if draw(st.booleans())]
    measures = ["MATCH_NUMBER() AS n", "COUNT(*) AS c", "CLASSIFIER() AS cl"] + (
        [f"FIRST({used[0]}.id) AS f"] if used else [])
    rows = draw(st.sampled_from(("ONE ROW PER MATCH", "ALL ROWS PER MATCH", "ALL ROWS PER MATCH SHOW EMPTY MATCHES",
                                 "ALL ROWS PER MATCH OMIT EMPTY MATCHES", "ALL ROWS PER MATCH WITH UNMATCHED ROWS")))
    order = draw(st.sampled_from(("ts", "ts", "ts, y")))
    within = f"WITHIN {draw(st.integers(0, 5))}" + draw(st.sampled_from(("", "", " EXCLUSIVE")))
    parts = [f"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY {order}", "MEASURES " + ", ".join(measures), rows,
             draw(skips(used)), f"PATTERN ({pattern_text(pattern)}) {within}"]
    if define:
        parts.append("DEFINE " + ", ".join(f"{v} AS {c}" for v, c in define))
    return " ".join(p for p in parts if p) + ")"


@st.composite
def frames(draw):
    n = draw(st.integers(1, 30))
    gaps = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))   # 0: a tie in ts
    cell = st.integers(-1, 4).map(lambda v: None if v < 0 else v)
    x = draw(st.lists(cell, min_size=n, max_size=n))
    y = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    return table(np.cumsum(gaps), pd.array(x, dtype="Int64"), y)


def outcome(fn):
    try:
        return fn()
    except QueryError as exc:
        return ("QueryError", str(exc))


@settings(max_examples=60, deadline=None)
@given(queries(), frames(), st.integers(1, 6), st.integers(1, 8))
def test_random_queries_equal_the_single_process(text, frame, length, chunk):
    single = outcome(lambda: cepkit.compile(text, engine="reference").run(frame))
    if isinstance(single, tuple):   # the single process's error (a SKIP target error): the split raises it too
        with pytest.raises(QueryError) as info:
            split_rows(text, frame, length, chunk)
        assert str(info.value) == single[1]
        return
    got, want = split_rows(text, frame, length, chunk)
    assert got == want


# ---------------------------------------------------------------------------------------------------------
# The walk's pieces alone.

def starts_of(start, end, target) -> Starts:
    return Starts(np.arange(max(end + [0]) + 1), np.array(start, np.int64), np.array(end, np.int64),
                  np.array(target, np.int64))


def test_chains_follow_the_targets_inside_the_range():
    # matches at rows 0, 1, 3, 4, 6, 8 with targets 3, 2, 6, 5, 9, 9: each continues at the first match at or
    # after its target (2 -> the match at 3), and a chain ends where that is past the range
    st_ = starts_of([0, 1, 3, 4, 6, 8], [2, 2, 5, 5, 8, 9], [3, 2, 6, 5, 9, 9])
    last, count, cover = SW.chains(st_, 0, 6)
    assert last.tolist() == [4, 4, 4, 4, 4, 5]
    assert count.tolist() == [3, 3, 2, 2, 1, 1]
    assert cover.tolist() == [8, 8, 8, 8, 8, 9]
    last, count, _ = SW.chains(st_, 0, 3)            # the range ends before the match at row 4
    assert last.tolist() == [2, 2, 2] and count.tolist() == [2, 2, 1]


def test_chains_stop_at_an_error():
    st_ = starts_of([0, 2, 4], [2, 4, 6], [2, SKIP_NO_ROW, 5])
    last, count, _ = SW.chains(st_, 0, 3)
    assert last.tolist() == [1, 1, 2] and count.tolist() == [2, 1, 1]
    assert st_.target[1] == SKIP_NO_ROW != SKIP_LOOP


def _walk_one_by_one(st_, first: int, stop: int) -> list[int]:
    """The walk as its definition reads: a match, then the first match at or after its target; an error ends it."""
    out, c = [], first
    while c < stop:
        out.append(c)
        if st_.target[c] < 0:
            break
        c = int(np.searchsorted(st_.start, st_.target[c], "left"))
    return out


@given(st.lists(st.tuples(st.integers(1, 6), st.integers(1, 30)), min_size=0, max_size=60), st.data())
@settings(max_examples=200, deadline=None)
def test_path_is_the_walk_one_match_at_a_time(gaps, data):
    """SW.path (path doubling) equals following the targets one match at a time, from every match and to every
    stop, with errors (a negative target) ending a walk."""
    start = np.cumsum([g for g, _ in gaps]).tolist()
    # a target is after its match's first row (a skip to that row is the error SKIP_LOOP)
    target = [s + r if r < 29 else (SKIP_NO_ROW if r == 29 else SKIP_LOOP) for s, (_, r) in zip(start, gaps)]
    st_ = starts_of(start, [s + 1 for s in start], target)
    first = data.draw(st.integers(0, len(start)))
    stop = data.draw(st.integers(0, len(start)))
    assert SW.path(st_, first, stop).tolist() == _walk_one_by_one(st_, first, stop)


def test_entries_walk_the_slices_in_order():
    """Three slices of 10 ticks; the driver picks each slice's entry from where the walk left the one before."""
    rows = pa.Table.from_pylist([
        # slice 0: entering at its first match (tick 1) leaves at tick 12 after 2 matches, covering to tick 11
        dict(slice=0, start_t=1, start_k=0, exit_t=12, exit_k=0, count=2, cover_t=11, cover_k=1, error=0),
        dict(slice=0, start_t=5, start_k=0, exit_t=14, exit_k=0, count=1, cover_t=14, cover_k=0, error=0),
        # slice 1: a match at tick 11 (skipped: the walk is at 12 already) and one at (12, 1)
        dict(slice=1, start_t=11, start_k=0, exit_t=20, exit_k=0, count=4, cover_t=19, cover_k=0, error=0),
        dict(slice=1, start_t=12, start_k=1, exit_t=25, exit_k=2, count=3, cover_t=25, cover_k=0, error=0),
        # slice 2: its only entry match lies before where the walk left slice 1
        dict(slice=2, start_t=24, start_k=0, exit_t=31, exit_k=0, count=1, cover_t=31, cover_k=0, error=0),
    ], schema=SW.TRANSFER)
    got = SW.entries(None, rows, 4)
    assert got == [SW.Entry((1, 0), 0, SW.FIRST), SW.Entry((12, 1), 2, (11, 1)), SW.Entry(None, 5, (25, 0)),
                   SW.Entry(None, 5, (25, 0))]


def test_slice_walk_numbers_and_unmatched_rows():
    q = registry.parse("sql", case_text("all-unmatched"))
    # rows 0..9 at ticks 0..9; matches at 1 (to 3), 2 (to 5), 6 (to 8); the slice owns ticks [2, 8)
    st_ = starts_of([1, 2, 6], [3, 5, 8], [3, 5, 8])
    rows = SW.Rows(np.arange(10))
    walk = SW.slice_walk(q, st_, rows, SW.Entry((2, 0), 7, (3, 0)), 2, 8, True)
    assert walk.matches.tolist() == [1, 2] and walk.numbers.tolist() == [8, 9]
    assert walk.unmatched.tolist() == [5]             # 2-4 matched; 5 free; 6-7 matched
    walk = SW.slice_walk(q, st_, rows, SW.Entry(None, 7, (4, 0)), 2, 8, True)
    assert walk.matches.tolist() == [] and walk.unmatched.tolist() == [4, 5, 7]   # 2, 3 covered; 6 starts one
