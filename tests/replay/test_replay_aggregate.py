"""Index-based windowed aggregation over a store equals replay-based aggregation (spec/004 §3.3, AGG-6)."""
from __future__ import annotations

import tempfile

import pandas as pd
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cepkit.core.readers import from_pandas
from cepkit.reference.replay.aggregate import aggregate_store
from cepkit.reference.replay.store import ReplayWarning, SUMS_KEY, Store, write_store
from cepkit.front.windows.spec import WindowSpec

FUNCS = ("sum", "count", "min", "max", "avg")


@st.composite
def frames(draw):
    n = draw(st.integers(0, 40))
    gaps = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    ts, t = [], draw(st.integers(-3, 3))
    for g in gaps:
        t += g
        ts.append(t)
    v = draw(st.lists(st.one_of(st.integers(-9, 9), st.none()), min_size=n, max_size=n))
    return pd.DataFrame({"ts": ts, "v": pd.array(v, dtype="Int64")})


specs = st.builds(lambda kind, size, slide, align: WindowSpec(kind, size, min(size, slide), align),
                  st.sampled_from(["count", "time"]), st.integers(1, 12), st.integers(1, 12),
                  st.sampled_from(["first", "zero"]))


@settings(deadline=None, max_examples=max(40, settings().max_examples // 5),
          suppress_health_check=[HealthCheck.too_slow])
@given(frames(), specs, st.integers(1, 7), st.booleans())
def test_index_based_aggregation_equals_replay(frame, spec, block_size, skip_empty):
    batch = from_pandas(frame, type_col=None, default_type="e")
    with tempfile.TemporaryDirectory() as d:
        store = write_store(batch, d, block_size=block_size, blocks_per_file=3)
        by_index, p1 = aggregate_store(store, "v", spec, FUNCS, "index", skip_empty)
        by_replay, p2 = aggregate_store(Store(d), "v", spec, FUNCS, "replay", skip_empty)
    assert (p1.method, p2.method) == ("index", "replay")
    assert by_index == by_replay


def test_damaged_block_sums_fall_back_to_replay(tmp_path):
    frame = pd.DataFrame({"ts": range(20), "v": range(20)})
    store = write_store(from_pandas(frame, type_col=None, default_type="e"), tmp_path, block_size=4)
    want, _ = aggregate_store(store, "v", WindowSpec("time", 8, 4), FUNCS, "replay")
    path = tmp_path / store.blocks[0].file
    table = pq.read_table(path)
    meta = dict(table.schema.metadata)
    meta[SUMS_KEY] = b"not json"
    pq.write_table(table.replace_schema_metadata(meta), path, row_group_size=4)
    with pytest.warns(ReplayWarning, match="falling back to full replay"):
        got, plan = aggregate_store(Store(tmp_path), "v", WindowSpec("time", 8, 4), FUNCS, "index")
    assert plan.method == "replay" and got == want


def test_auto_uses_the_cost_model(tmp_path):
    frame = pd.DataFrame({"ts": range(200), "v": range(200)})
    store = write_store(from_pandas(frame, type_col=None, default_type="e"), tmp_path, block_size=10,
                        blocks_per_file=10)
    small, p_small = aggregate_store(store, "v", WindowSpec("time", 50, 1), ("sum",), "auto")
    big, p_big = aggregate_store(store, "v", WindowSpec("time", 100, 100), ("sum",), "auto")
    assert p_small.method == "replay" and p_big.method == "index"
    assert p_small.c_index >= p_small.c_replay and p_big.c_index < p_big.c_replay
    assert big[0].values == (("sum", sum(range(100))),)
    assert [r.ts for r in small][:2] == [49, 50]
