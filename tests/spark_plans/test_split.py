"""The split logic without Spark: feeding the pieces that the job makes (keys, or time slices with
context) through the task body gives exactly the single-process answer, on random queries and streams,
with the pieces cut into random Arrow batches."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from cepkit.core.errors import QueryError
from cepkit.front.language import parse
from cepkit.spark_jobs import plan as P
from cepkit.spark_jobs import tasks as T
from tests.reference.sase_strategies import patterns, streams
from tests.spark.helpers import expected_rows, ordered, output_rows


def spec_for(text: str, frame: pd.DataFrame, **extra) -> T.TaskSpec:
    import cepkit

    q = parse(text)
    program = cepkit.compile(text, engine="reference", selection=extra.pop("selection", "all"))
    return T.TaskSpec(query=text, engine="reference", selection=program.selection, ts_col="ts", id_col="id",
                      type_col="type", default_type=None, ts_unit=None,
                      type_names=tuple(sorted(set(frame["type"]))), variables=tuple(program.variables),
                      returns=tuple(r.name for r in q.returns), id_is_int=False, **extra)


def run_split(text: str, frame: pd.DataFrame, slice_length: int, chunk: int, selection: str = "all") -> list:
    """What the Spark job computes, with Python doing Spark's part (explode, sort, batches)."""
    q = parse(text)
    keyed = P.choose(q, selection)
    frame = ordered(frame)
    if keyed:
        spec = spec_for(text, frame, group_cols=keyed.keys, selection=selection)
        pieces = frame.sort_values([*keyed.keys, "ts", "id"], kind="stable")
    else:
        sp = P.slice_plan(int(frame.ts.min()), int(frame.ts.max()), P.window_in_ts_long(q, None), 4, slice_length)
        spec = spec_for(text, frame, group_cols=(T.SLICE_COL,), slice_length=sp.length, slice_t_min=sp.t_min)
        rows = [dict(r, **{T.SLICE_COL: j, T.TICK_COL: r["ts"]})
                for r in frame.to_dict("records") for j in sp.slices_of(r["ts"])]
        pieces = pd.DataFrame(rows).sort_values([T.SLICE_COL, "ts", "id"], kind="stable")
    table = pa.Table.from_pandas(pieces, preserve_index=False)
    out = list(T.match_partition(spec, iter(table.to_batches(max_chunksize=chunk))))
    result = pa.Table.from_batches(out, schema=T.output_schema(spec.variables, spec.returns, False)).to_pandas()
    return output_rows(result, list(spec.variables), list(spec.returns))


@settings(max_examples=max(50, settings().max_examples // 4), deadline=None)
@given(patterns(), st.data())
def test_pieces_equal_the_single_process_answer(pattern, data):
    text = pattern["text"]
    frame = data.draw(streams(pattern["types"], max_size=24))
    assume(len(frame))
    q = parse(text)
    try:
        P.choose(q)
    except QueryError as exc:  # refused by name: count windows, or no key and no window
        assert "cannot split this query exactly" in str(exc)
        assert (q.window is not None and q.window.kind == "events") or q.window is None
        return
    slice_length = data.draw(st.integers(1, 7), label="slice_length")
    chunk = data.draw(st.integers(1, 10), label="chunk")
    assert run_split(text, frame, slice_length, chunk) == expected_rows(text, frame)


NEGATION_EDGES = [  # (query, the same query without its negation)
    # leading negation: a blocking event may lie in the slice before the match's first event
    ("PATTERN SEQ(!(C z), A a, B b) WHERE skip_till_next_match { a.x >= 1 and z.x = b.x } WITHIN 5",
     "PATTERN SEQ(A a, B b) WHERE skip_till_next_match { a.x >= 1 } WITHIN 5"),
    # trailing negation: a blocking event may lie in the next slice, after the match's last event
    ("PATTERN SEQ(A a, B b, !(C z)) WHERE skip_till_any_match { z.x = a.x } WITHIN 5",
     "PATTERN SEQ(A a, B b) WHERE skip_till_any_match { a.x >= 0 } WITHIN 5"),
    ("PATTERN SEQ(A+ a[], !(C z), B b) WHERE skip_till_any_match { a[i].x >= a[i-1].x and z.x = 0 } WITHIN 6",
     "PATTERN SEQ(A+ a[], B b) WHERE skip_till_any_match { a[i].x >= a[i-1].x } WITHIN 6"),
    ("PATTERN SEQ(A a, B+ b[], !(C z)) WHERE skip_till_next_match { a.x = 1 and z.x = a.x } WITHIN 4",
     "PATTERN SEQ(A a, B+ b[]) WHERE skip_till_next_match { a.x = 1 } WITHIN 4"),
]


@pytest.mark.parametrize("text, unblocked", NEGATION_EDGES)
@pytest.mark.parametrize("slice_length", [1, 2, 3, 5, 11])
def test_negation_at_slice_edges(text, unblocked, slice_length):
    rng = np.random.default_rng(7)  # 80 events over ~40 ticks: blocking events fall on every side of a boundary
    n = 80
    frame = pd.DataFrame({"id": [f"e{i:03d}" for i in range(n)], "ts": np.cumsum(rng.integers(0, 2, n)),
                          "type": rng.choice(list("ABC"), n, p=[0.45, 0.43, 0.12]),
                          "x": rng.integers(0, 4, n), "g": rng.integers(0, 2, n)})
    expected = expected_rows(text, frame)
    assert expected, "the stream must have matches for the test to mean something"
    assert len(expected_rows(unblocked, frame)) > len(expected), "the negation must block some matches"
    assert run_split(text, frame, slice_length, chunk=7) == expected


def test_non_overlap_by_key():
    text = "PATTERN SEQ(A+ a[], B b) WHERE skip_till_next_match { [g] and a[i].x >= a[i-1].x }"
    rows = [{"id": f"e{i:03d}", "ts": i // 2, "type": "AAB"[i % 3], "x": (i * 7) % 5, "g": (i // 3) % 2}
            for i in range(50)]
    frame = pd.DataFrame(rows)
    expected = expected_rows(text, frame, selection="non_overlap")
    assert expected
    assert run_split(text, frame, 1, chunk=4, selection="non_overlap") == expected


@pytest.mark.parametrize("text, why", [
    ("PATTERN SEQ(A a, B b) WHERE skip_till_next_match { a.x > 1 }", "no [attr] partition key"),
    ("PATTERN SEQ(A a, B b) WHERE strict_contiguity { [g] }", "strict contiguity reads every event"),
    ("PATTERN SEQ(A a, B b) WHERE skip_till_next_match { [g] } WITHIN 4 EVENTS", "count window"),
    ("PATTERN AND(A a, B b) WITHIN 4", "flat SASE+ sequences only"),
])
def test_refused_by_name(text, why):
    with pytest.raises(QueryError, match="cannot split this query exactly") as info:
        P.choose(parse(text))
    assert why in str(info.value)


def test_non_overlap_without_key_refused():
    with pytest.raises(QueryError, match="non-overlap"):
        P.choose(parse("PATTERN SEQ(A a, B b) WHERE skip_till_next_match { a.x > 1 } WITHIN 3"), "non_overlap")


@given(st.integers(-50, 50), st.integers(0, 60), st.integers(1, 9), st.integers(1, 9), st.integers(-60, 120))
def test_slices_of_is_the_extended_interval(t_min, extent, length, context, t):
    sp = P.slice_plan(t_min, t_min + extent, context, 4, length)
    brute = [j for j in range(sp.count)
             if sp.bounds(j)[0] - context <= t < sp.bounds(j)[1] + context]
    assert list(sp.slices_of(t)) == brute
    if t_min <= t <= t_min + extent:  # every event has exactly one own slice
        assert sum(sp.bounds(j)[0] <= t < sp.bounds(j)[1] for j in range(sp.count)) == 1


def test_split_groups_treats_nulls_as_one_key():
    batch = pa.RecordBatch.from_pydict({"k": [1, 1, None, None, 2, 2, None], "v": list(range(7))})
    assert [(k, s, e) for k, s, e in T.split_groups(batch, ("k",))] == \
        [((1,), 0, 2), ((None,), 2, 4), ((2,), 4, 6), ((None,), 6, 7)]
