"""Run every MATCH_RECOGNIZE conformance vector (conformance/cases/sql/*.yaml) on the reference."""
from __future__ import annotations

import pandas as pd
import pytest

from conformance.sql_loader import load_sql_cases
from reference.errors import QueryError
from reference.readers import from_pandas
from reference.match import plain
from reference.sql import run_query

CASES = load_sql_cases()


def _batch(case):
    df = pd.DataFrame(case.events)
    return from_pandas(df, type_col=None, default_type="row", ts_unit=case.ts_unit)


def _norm_row(row: dict) -> tuple:
    return tuple(sorted((k, repr(plain(v))) for k, v in row.items()))


def _norm_match(bindings: dict, ts) -> tuple:
    return (tuple(sorted((k, tuple(str(i) for i in v)) for k, v in bindings.items())), ts)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_sql_case(case):
    _check(case, run_query)


GPU_CASES = [c for c in CASES if "ALL MATCHES" in c.query.upper()]


@pytest.mark.parametrize("case", GPU_CASES, ids=str)
def test_sql_case_gpu(case):
    """The ALL MATCHES vectors on the gpu engine; a construct it refuses (by name) skips the case."""
    from gpu.pattern_run import run_query as gpu_run_query
    from reference.errors import Unsupported

    try:
        _check(case, gpu_run_query)
    except Unsupported as exc:
        pytest.skip(str(exc))


def _check(case, run_query):
    if case.error is not None:
        with pytest.raises(QueryError) as info:
            run_query(case.query, _batch(case))
        err = info.value
        assert case.error["contains"] in err.message, str(err)
        if "line" in case.error:
            assert (err.line, err.column) == (case.error["line"], case.error.get("column")), str(err)
        return
    table = run_query(case.query, _batch(case))
    if case.expected_rows is not None:
        got = sorted(_norm_row(r) for r in table.records())
        want = sorted(_norm_row(r) for r in case.expected_rows)
        assert got == want, f"{case.id}: rows\n got  {got}\n want {want}"
    if case.expected_matches is not None:
        assert table.matches is not None, "expected_matches needs ONE ROW PER MATCH or ALL MATCHES"
        got = sorted(_norm_match(b, ts) for b, ts in table.matches)
        want = sorted(_norm_match(m["bindings"], m["ts"]) for m in case.expected_matches)
        assert got == want, f"{case.id}: matches\n got  {got}\n want {want}"


def test_loader_is_strict(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("cases:\n  - {id: x, title: t, source: s, query: q, events: [], expexted_rows: []}\n")
    with pytest.raises(ValueError, match="unknown key"):
        load_sql_cases(tmp_path)
    bad.write_text("cases:\n  - {id: x, title: t, source: s, query: q, events: [{id: 1, ts: 1}],\n"
                   "     expected_matches: [{bindings: {A: [2]}, ts: 1}]}\n")
    with pytest.raises(ValueError, match="does not contain"):
        load_sql_cases(tmp_path)
    bad.write_text("cases:\n  - {id: x, title: t, source: s, query: q, events: [], expected_rows: []}\n"
                   "  - {id: x, title: t, source: s, query: q, events: [], expected_rows: []}\n")
    with pytest.raises(ValueError, match="duplicate id"):
        load_sql_cases(tmp_path)
