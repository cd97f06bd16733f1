"""Every conformance vector of every language, through cepkit.compile, on every engine that claims it."""
from __future__ import annotations

import importlib

import pytest

from conformance.harness import Case, run_case
from reference import registry
from reference.errors import CepkitError, Unsupported

LOADERS = ("conformance.loader", "conformance.sql_loader", "conformance.tpstream_loader", "conformance.afa_loader",
           "conformance.windows_loader")


def _cases() -> list[Case]:
    out: list[Case] = []
    for name in LOADERS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError:
            continue
        if hasattr(module, "cases"):
            out += module.cases()
    return out


def _params():
    for case in _cases():
        for engine in case.engines or registry.engines_for(case.language):
            yield pytest.param(case, engine, id=f"{case.language}:{case.id}:{engine}")


@pytest.mark.parametrize("case, engine", list(_params()))
def test_case_on_engine(case: Case, engine: str):
    try:
        table = run_case(case, engine)
    except Unsupported as exc:
        pytest.skip(f"{engine}: {exc}")
    except CepkitError as exc:
        if case.error is None:
            raise
        case.error(exc)
        return
    assert case.error is None, f"{case.id}: expected an error, {engine} returned {len(table)} rows"
    case.check(table)
