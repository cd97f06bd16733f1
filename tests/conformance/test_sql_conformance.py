"""The MATCH_RECOGNIZE vectors (conformance/cases/sql/*.yaml) run in tests/conformance/test_all_engines.py, on every
engine registered for "sql" (reference, gpu, replay), through cepkit.conformance.sql_loader.cases() with the checks
this file made before (rows as a multiset by repr of the exact value, matches by bindings and ts, expected
errors by message, line and column). What stays here: the loader's own strictness."""
from __future__ import annotations

import pytest

from cepkit.conformance.sql_loader import cases, load_sql_cases


def test_every_vector_is_a_harness_case():
    ids = {c.id for c in cases()}
    assert {c.id for c in load_sql_cases()} <= ids


def test_loader_is_strict(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("cases:\n  - {id: x, title: t, source: s, origin: sql2016, query: q, events: [], expexted_rows: []}\n")
    with pytest.raises(ValueError, match="unknown key"):
        load_sql_cases(tmp_path)
    bad.write_text("cases:\n  - {id: x, title: t, source: s, origin: sql2016, query: q, events: [{id: 1, ts: 1}],\n"
                   "     expected_matches: [{bindings: {A: [2]}, ts: 1}]}\n")
    with pytest.raises(ValueError, match="does not contain"):
        load_sql_cases(tmp_path)
    bad.write_text("cases:\n  - {id: x, title: t, source: s, origin: sql2016, query: q, events: [], expected_rows: []}\n"
                   "  - {id: x, title: t, source: s, origin: sql2016, query: q, events: [], expected_rows: []}\n")
    with pytest.raises(ValueError, match="duplicate id"):
        load_sql_cases(tmp_path)
