"""The SASE 1.0 jar's vectors (conformance/cases/sase1/sase1_jar.yaml, scripts/sase1_vectors.py) are the jar's
answers: one of each query is rerun on the jar where Java and the jar exist (skipped, saying why, elsewhere).
Every one of them runs on cepkit's reference and optimized engines in tests/conformance/test_all_engines.py."""
from __future__ import annotations

import importlib.util
import os
from collections import Counter
from pathlib import Path

import pytest

from cepkit.conformance.adapters import sase1_jar as SJ
from cepkit.conformance.loader import match_key
from cepkit.conformance.sase1_loader import load_cases

ROOT = Path(__file__).resolve().parents[2]
JAR = os.environ.get("CEPKIT_SASE1_JAR", str(ROOT.parent / "shared" / "peers" / "sase1" / "sase.jar"))
SPEC = importlib.util.spec_from_file_location("sase1_vectors", ROOT / "scripts" / "sase1_vectors.py")
script = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(script)
JAR_CASES = [c for c in load_cases() if c.origin.kind == "sase1" and c.id.startswith("S1-JAR-")]


def test_the_jar_vectors_cover_strategies_kleene_and_sizes():
    assert len(JAR_CASES) >= 30
    for strategy in script.STRATEGIES.values():
        assert any(strategy in c.query for c in JAR_CASES), strategy
    assert any("+" in c.query for c in JAR_CASES) and any("+" not in c.query for c in JAR_CASES)
    assert len({(c.stream["randomSeed"], c.stream["streamSize"]) for c in JAR_CASES}) >= 5


@pytest.mark.parametrize("name", sorted(script.QUERIES))
def test_a_vector_of_each_query_is_the_jars_answer(name):
    why = SJ.missing("java", JAR, SJ.jeval_beside(JAR))
    if why:
        pytest.skip(why)
    case = next(c for c in JAR_CASES if c.id.startswith(f"S1-JAR-{name}-") and len(c.expected) < 100)
    names = SJ.variables(case.query)
    path = SJ.classpath(JAR, SJ.jeval_beside(JAR))
    got = [SJ.bindings(names, ids) for ids in SJ.jar_matches("java", path, case.query, case.stream)]
    assert Counter(match_key(m) for m in got) == Counter(match_key(m) for m in case.expected)
