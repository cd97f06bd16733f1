"""Every conformance vector of every language, through cepkit.compile, on every engine that claims it."""
from __future__ import annotations

import importlib

import pytest

from cepkit.conformance.harness import Case, run_case
from cepkit.core import registry
from cepkit.core.errors import CepkitError, Unsupported

LOADERS = ("cepkit.conformance.loader", "cepkit.conformance.sql_loader", "cepkit.conformance.tpstream_loader", "cepkit.conformance.afa_loader",
           "cepkit.conformance.windows_loader", "cepkit.conformance.sase1_loader")


def _cases() -> list[Case]:
    """Every loader's cases (a loader that is missing or has no cases() is an error, not an empty list)."""
    return [case for name in LOADERS for case in importlib.import_module(name).cases()]


CASES = _cases()


def _params():
    for case in CASES:
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


def test_every_language_has_vectors_and_every_engine_a_case():
    """The harness cannot pass by running nothing: each registered language has vectors, and each registered
    engine is asked to run at least one of them."""
    asked = {(c.language, e) for c in CASES for e in (c.engines or registry.engines_for(c.language))}
    for (language, engine) in registry.ENGINES:
        assert (language, engine) in asked, f"no conformance case runs on {language} engine '{engine}'"
