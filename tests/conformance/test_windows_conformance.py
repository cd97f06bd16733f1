"""The windowed-operator vectors (conformance/cases/windows/*.yaml) run in tests/conformance/test_all_engines.py,
as window queries on every engine registered for "window" (reference with the tree and the naive method,
gpu), through cepkit.conformance.windows_loader.cases() with the check this file made before (the output rows
equal the expected list, in order, exactly). What stays here: the loader's own strictness, and that every
vector is a harness case whose query text parses."""
from __future__ import annotations

import pytest

from cepkit.conformance.sql_loader import load_window_cases
from cepkit.conformance.windows_loader import cases
from cepkit.core import registry
def test_every_vector_is_a_harness_case():
    got = cases()
    for c in load_window_cases():
        assert any(x.id == c.id or x.id.startswith(c.id + "-") for x in got), c.id
    for x in got:
        registry.parse("window", x.query)


def test_loader_is_strict(tmp_path):
    from cepkit.conformance.sql_loader import load_replay_cases

    bad = tmp_path / "bad.yaml"
    bad.write_text("cases:\n  - {id: x, title: t, source: s, origin: sql2016, operator: filter, where: v > 1, events: [],"
                   " expected: [], windw: {}}\n")
    with pytest.raises(ValueError, match="unknown key"):
        load_window_cases(tmp_path)
    bad.write_text("cases:\n  - {id: x, title: t, source: s, origin: sql2016, operator: aggregate, events: [], expected: []}\n")
    with pytest.raises(ValueError, match="needs window, attr, funcs"):
        load_window_cases(tmp_path)
    bad.write_text("cases:\n  - {id: x, title: t, source: s, origin: sql2016, kind: agg_cost, params: {r: 1}, rows: []}\n")
    with pytest.raises(ValueError, match="params r, B, D, h"):
        load_replay_cases(tmp_path)
