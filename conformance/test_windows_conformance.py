"""Run every windowed-operator conformance vector (conformance/cases/windows/*.yaml) on the reference,
with both aggregation methods (aggregate tree and naive recomputation), and on the gpu engine (OpenCL)."""
from __future__ import annotations

from fractions import Fraction

import pandas as pd
import pytest

from conformance.sql_loader import load_window_cases
from reference.readers import from_pandas
from reference.windows.api import aggregate_batch, filter_batch, join_batches
from reference.windows.spec import WindowSpec

CASES = load_window_cases()
RUNS = [(c, m) for c in CASES for m in (("tree", "naive", "gpu") if c.operator == "aggregate" else ("-", "gpu"))]


def _batch(events):
    return from_pandas(pd.DataFrame(events), type_col=None, default_type="event")


def _spec(w):
    return WindowSpec(w["kind"], w["size"], w["slide"], w.get("align", "first"))


def _value(v):
    if isinstance(v, str) and "/" in v:
        return Fraction(v)
    return v


@pytest.mark.parametrize("case,method", RUNS, ids=[f"{c.id}-{m}" if m != "-" else c.id for c, m in RUNS])
def test_window_case(case, method):
    want = [{k: _value(v) for k, v in r.items()} for r in case.expected]
    if method == "gpu":
        from gpu.aggregate import aggregate_rows
        from gpu.filter import filter_rows
        from gpu.join import join_rows_gpu

        run_filter, run_join = filter_rows, join_rows_gpu
        run_aggregate = (lambda b, attr, spec, funcs, _, skip: aggregate_rows(b, attr, spec, funcs, skip))
    else:
        run_filter, run_aggregate, run_join = filter_batch, aggregate_batch, join_batches
    if case.operator == "filter":
        got = run_filter(_batch(case.events), case.where)
    elif case.operator == "aggregate":
        got = [r.as_dict() for r in run_aggregate(_batch(case.events), case.attr, _spec(case.window), case.funcs,
                                                   method, case.skip_empty)]
    else:
        got = run_join(_batch(case.events), _batch(case.right_events), case.condition, _spec(case.window),
                       _spec(case.right_window or case.window), case.active)
    assert got == want


def test_loader_is_strict(tmp_path):
    from conformance.sql_loader import load_replay_cases

    bad = tmp_path / "bad.yaml"
    bad.write_text("cases:\n  - {id: x, title: t, source: s, operator: filter, where: v > 1, events: [],"
                   " expected: [], windw: {}}\n")
    with pytest.raises(ValueError, match="unknown key"):
        load_window_cases(tmp_path)
    bad.write_text("cases:\n  - {id: x, title: t, source: s, operator: aggregate, events: [], expected: []}\n")
    with pytest.raises(ValueError, match="needs window, attr, funcs"):
        load_window_cases(tmp_path)
    bad.write_text("cases:\n  - {id: x, title: t, source: s, kind: agg_cost, params: {r: 1}, rows: []}\n")
    with pytest.raises(ValueError, match="params r, B, D, h"):
        load_replay_cases(tmp_path)
