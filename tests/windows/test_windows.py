"""Windowed operators: aggregate tree vs naive recomputation, windows vs their definitions, join rules."""
from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from reference.errors import QueryError
from reference.sql.parse import parse_expression
from reference.windows.aggregate import aggregate
from reference.windows.join import join
from reference.windows.spec import WindowSpec, slices, windows

import pytest

values_st = st.one_of(st.none(), st.integers(-20, 20), st.fractions(min_value=-5, max_value=5, max_denominator=4))


@st.composite
def streams(draw):
    gaps = draw(st.lists(st.integers(0, 4), max_size=25))
    t0 = draw(st.integers(-5, 5))
    ts, t = [], t0
    for g in gaps:
        t += g
        ts.append(t)
    vals = draw(st.lists(values_st, min_size=len(ts), max_size=len(ts)))
    return ts, vals


specs = st.builds(lambda kind, size, slide_frac, align: WindowSpec(kind, size, max(1, min(size, slide_frac)), align),
                  st.sampled_from(["count", "time"]), st.integers(1, 9), st.integers(1, 9),
                  st.sampled_from(["first", "zero"]))


@settings(deadline=None)
@given(streams(), specs, st.booleans())
def test_aggregate_tree_equals_naive_recomputation(stream, spec, skip_empty):
    ts, vals = stream
    funcs = ("sum", "count", "min", "max", "avg")
    assert aggregate(ts, vals, spec, funcs, "tree", skip_empty) == aggregate(ts, vals, spec, funcs, "naive",
                                                                            skip_empty)


@settings(deadline=None)
@given(streams(), specs)
def test_windows_follow_the_definitions(stream, spec):
    ts, _ = stream
    ws = windows(ts, spec)
    if spec.kind == "count":  # Def 2.7: exactly `size` events, k*slide onwards, ts = last event's
        assert [(w.start, w.stop) for w in ws] == [(k * spec.slide, k * spec.slide + spec.size)
                                                   for k in range(len(ws))]
        assert len(ws) == (0 if len(ts) < spec.size else (len(ts) - spec.size) // spec.slide + 1)
        assert all(w.ts == ts[w.stop - 1] for w in ws)
    else:  # Def 2.8: half-open [lo, lo + size), ts = lo + size - 1 <= last event, aligned
        for w in ws:
            assert w.hi - w.lo == spec.size and w.ts == w.hi - 1 <= ts[-1]
            assert [i for i, t in enumerate(ts) if w.lo <= t < w.hi] == list(range(w.start, w.stop))
        if ws:
            origin = ts[0] if spec.align == "first" else 0
            assert all((w.lo - origin) % spec.slide == 0 for w in ws)
            assert [w.lo for w in ws] == list(range(ws[0].lo, ws[-1].lo + 1, spec.slide))
            nxt = ws[-1].lo + spec.slide
            assert nxt + spec.size - 1 > ts[-1]  # the next window is not closed yet


def test_slices_of_an_arbitrary_slide():
    # spec/004 §6(c) AGG-6: size 7, slide 3 -> <1,2,1,2,1>, each step appends <2,1>; size 5 slide 2 -> ones
    assert slices(7, 3) == ([1, 2, 1, 2, 1], [2, 1])
    assert sum(slices(7, 3)[0]) == 7
    assert slices(5, 2) == ([1, 1, 1, 1, 1], [1, 1])
    assert slices(6, 2) == ([2, 2, 2], [2])


def test_avg_is_exact():
    rows = aggregate([0, 1, 2], [1, 2, 2], WindowSpec("count", 3, 1), ("avg",), "tree")
    assert rows[0].values == (("avg", Fraction(5, 3)),)


@pytest.mark.parametrize("size,slide", [(0, 1), (2, 3), (2, 0)])
def test_bad_window_parameters(size, slide):
    with pytest.raises(QueryError, match="slide"):
        WindowSpec("time", size, slide)


def test_join_ties_process_the_first_stream_first():
    # A13: at equal timestamps E1 is processed first and only the later event sees the earlier one.
    cond = parse_expression("L.v <= R.v", ("L", "R"))
    w = WindowSpec("count", 1, 1)
    res = join([{"v": 1}], [5], [{"v": 2}], [5], cond, w, w)
    assert [(r.left, r.right, r.ts) for r in res] == [(0, 0, 5)]


def test_join_time_windows_strict_and_warmup():
    cond = parse_expression("L.v <= R.v", ("L", "R"))
    w = WindowSpec("time", 3, 1)
    left, lt = [{"v": 1}, {"v": 5}], [0, 4]
    right, rt = [{"v": 2}], [1]
    # strict: at t=1 the first window of E1 ([0,3), ts 2) is not complete -> no result for the probe at 1;
    # the E1 event at 4 probes E2's window [1,4) (ts 3) -> v 5 <= 2 is false
    assert join(left, lt, right, rt, cond, w, w, "strict") == []
    # warm-up: the probe at 1 sees E1's events in [-1, 1] -> (1 <= 2)
    assert [(r.left, r.right, r.ts) for r in join(left, lt, right, rt, cond, w, w, "warmup")] == [(0, 0, 1)]
