"""Run the replay conformance vectors (conformance/cases/replay/*.yaml): replay intervals per index
configuration with the match set of a full replay, and the aggregation cost model."""
from __future__ import annotations

import pandas as pd
import pytest

from cepkit.conformance.sql_loader import load_replay_cases
from cepkit.core.readers import from_pandas
from cepkit.reference.replay.cost import aggregation_choice, c_index, c_replay
from cepkit.reference.replay.plan import execute, plan
from cepkit.reference.replay.store import write_store

CASES = load_replay_cases()


def _norm(bindings, ts):
    return (tuple(sorted((k, tuple(str(i) for i in v)) for k, v in bindings.items())), ts)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_replay_case(case, tmp_path):
    if case.kind == "agg_cost":
        p = case.params
        for row in case.rows:
            assert c_index(row["slide"], p["r"], p["B"], p["D"], p["h"]) == row["c_index"], row
            assert c_replay(row["slide"], p["r"]) == row["c_replay"], row
            assert aggregation_choice(row["slide"], p["r"], p["B"], p["D"], p["h"]) == row["choice"], row
        return
    batch = from_pandas(pd.DataFrame(case.events), type_col=None, default_type="e")
    store = write_store(batch, tmp_path, block_size=case.block_size, secondary=case.indexes)
    want = sorted(_norm(m["bindings"], m["ts"]) for m in case.expected_matches)
    full = execute(plan(case.query, store, "none"))
    assert sorted(_norm(b, ts) for b, ts in full.matches) == want
    for config in case.configs:
        p = plan(case.query, store, config["use"])
        assert p.mode == "index"
        assert [list(iv) for iv in p.intervals] == config["intervals"], config
        got = execute(p)
        assert sorted(_norm(b, ts) for b, ts in got.matches) == want, config
        assert got.rows == full.rows
