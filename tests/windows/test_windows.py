"""Windowed operators: aggregate tree vs naive recomputation, windows vs their definitions, join rules."""
from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from cepkit.core.errors import QueryError
from cepkit.front.sql.parse import parse_expression
from cepkit.reference.windows.aggregate import aggregate
from cepkit.reference.windows.join import join
from cepkit.front.windows.spec import WindowSpec, slices, windows

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
            if spec.align == "first":
                assert ws[0].lo == ts[0]
            else:  # epoch alignment: the first window is the first one that can hold the first event
                assert ws[0].hi > ts[0] >= ws[0].hi - spec.slide


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


def _brute_join(left, lt, right, rt, cond, lw, rw, active):
    """Defs 2.12/2.13 read directly: order the probes (E1 first at equal ts); a probe sees the other
    stream's events processed before it; strict: the active window is the window of `windows()` with the
    largest timestamp <= t (count windows: among those whose events were all processed), warm-up: the
    last `size` processed events or those in [t - size + 1, t]."""
    from cepkit.reference.sql.exprs import Ctx, holds

    probes = sorted([(t, 0, i) for i, t in enumerate(lt)] + [(t, 1, j) for j, t in enumerate(rt)])
    out = []
    for n, (t, side, i) in enumerate(probes):
        other_ts, spec = (rt, rw) if side == 0 else (lt, lw)
        seen = {k for (_, s, k) in probes[:n] if s != side}
        if active == "warmup":
            ordered = sorted(seen)
            members = ordered[-spec.size:] if spec.kind == "count" else [k for k in ordered if other_ts[k] > t - spec.size]
        elif spec.kind == "count":
            ws = [w for w in windows(other_ts, spec) if all(k in seen for k in range(w.start, w.stop))]
            members = list(range(ws[-1].start, ws[-1].stop)) if ws else []
        else:  # time windows exist for every k (empty ones too), aligned at e1.t (k >= 0) or at 0 (any k)
            members = []
            if other_ts:
                t0 = other_ts[0] if spec.align == "first" else 0
                k = 0 if spec.align == "first" else (min(other_ts[0], t) - t0) // spec.slide - spec.size - 1
                last = None
                while t0 + k * spec.slide + spec.size - 1 <= t:
                    last = k
                    k += 1
                if last is not None:
                    lo = t0 + last * spec.slide
                    members = [j for j in sorted(seen) if lo <= other_ts[j] < lo + spec.size]
        for k in members:
            l_i, r_i = (i, k) if side == 0 else (k, i)
            if holds(cond, Ctx([left[l_i], right[r_i]], (0, 1), ("L", "R"), 1, {})):
                out.append((l_i, r_i, t))
    return out


@settings(deadline=None, max_examples=max(50, settings().max_examples // 4))
@given(streams(), streams(), specs, specs, st.sampled_from(["strict", "warmup"]))
def test_join_equals_its_definition(s1, s2, lw, rw, active):
    (lt, lv), (rt, rv) = s1, s2
    left, right = [{"v": v} for v in lv], [{"v": v} for v in rv]
    cond = parse_expression("L.v <= R.v", ("L", "R"))
    got = [(r.left, r.right, r.ts) for r in join(left, lt, right, rt, cond, lw, rw, active)]
    assert got == _brute_join(left, lt, right, rt, cond, lw, rw, active)


def test_text_in_computed_or_aggregated_columns_is_an_event_error(tmp_path):
    import pandas as pd

    from cepkit.core.errors import EventError
    from cepkit.core.readers import from_pandas
    from cepkit.reference.windows.api import aggregate_batch, filter_batch, join_batches

    batch = from_pandas(pd.DataFrame({"ts": [1, 2], "v": [1, "x"]}), type_col=None, default_type="e")
    for call in (lambda: aggregate_batch(batch, "v", WindowSpec("count", 1, 1)),
                 lambda: filter_batch(batch, "v + 1 > 2"),
                 lambda: join_batches(batch, batch, "L.v * 2 > R.ts", WindowSpec("count", 1, 1),
                                      WindowSpec("count", 1, 1))):
        with pytest.raises(EventError) as info:
            call()
        assert (info.value.row, info.value.column) == (2, "v")
    assert [r["ts"] for r in filter_batch(batch, "v = 'x'")] == [2]
