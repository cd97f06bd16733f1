"""The kit's `sase1` language: cepkit's engines pass its vectors through the kit, and so does the SASE 1.0 jar
through its command driver (conformance/adapters/sase1_jar.py) on every SASE 1.0 dialect vector it can read,
over its generated stream or over the vector's listed events (cepkit's Sase1JarEvents.java, compiled with
javac); skipped, saying why, where Java or the jar (../shared/peers/sase1/sase.jar or $CEPKIT_SASE1_JAR) is
absent. Without javac the vectors that list their events are refused, saying so, and the others still run."""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from cepkit.conformance.adapters import sase1_jar
from cepkit.conformance.kit import vectors
from cepkit.conformance.kit.protocol import vector_of
from tests.conformance_kit.kit_run import kit

ROOT = Path(__file__).resolve().parents[2]
JAR = Path(os.environ.get("CEPKIT_SASE1_JAR", str(ROOT.parent / "shared" / "peers" / "sase1" / "sase.jar")))
CASES = vectors.language_cases("sase1")
# what the jar runs: the SASE 1.0 dialect's vectors, over its generated stream or their listed events, except
# S1-FIG3, whose text (a { } block, 80%, a string symbol) the jar's query file cannot hold (the vector says how
# the jar's answer differs: differs_from sase1)
JAR_REFUSED = {"S1-FIG3"}
JAR_RUNS = [c for c in CASES if c.options["dialect"] == "sase1" and c.id not in JAR_REFUSED]


def jar_missing() -> str | None:
    why = sase1_jar.missing("java", JAR, sase1_jar.jeval_beside(JAR))
    return why and f"{why}; set CEPKIT_SASE1_JAR"


def test_a_sase1_vector_gives_the_query_text_the_generator_configuration_and_its_events():
    q1 = vector_of(next(c for c in CASES if c.id == "S1-Q1")).to_json()
    assert q1["language"] == "sase1" and q1["options"] == {"dialect": "sase1"}
    assert q1["query"].startswith("PATTERN SEQ(stock+ a, stock b)")
    assert q1["stream"]["streamSize"] == len(q1["events"]) == 100000
    assert q1["events"][1177]["id"] == q1["events"][1177]["ts"] == 1177
    assert len(JAR_RUNS) >= 32 and len(CASES) > len(JAR_RUNS)
    assert sum(c.stream is None for c in JAR_RUNS) >= 6   # vectors that list their events


@pytest.mark.parametrize("engine", ["reference", "optimized"])
def test_cepkit_passes_every_sase1_vector_through_the_kit(capsys, engine):
    code, text = kit(capsys, "--engine", engine, "--language", "sase1", "-q")
    assert code == 0, text
    assert f"{len(CASES)} passed, 0 failed, 0 refused, 0 errors" in text


def javac_missing() -> str | None:
    return None if shutil.which("javac") else "no javac on PATH (it compiles the driver over listed events)"


def test_the_jar_passes_every_sase1_vector_it_can_run(capsys, tmp_path):
    """All of them (about 60 s on 2 cores): the jar refuses only the vectors that read the query in the SASE+
    dialect and S1-FIG3, whose text its query file cannot hold."""
    why = jar_missing() or javac_missing()
    if why:
        pytest.skip(why)
    command = f"{sys.executable} -m cepkit.conformance.adapters.sase1_jar --jar {JAR} --cache {tmp_path}"
    code, text = kit(capsys, "--language", "sase1", "--command", command)
    assert code == 0, text
    refused = len(CASES) - len(JAR_RUNS)
    assert f"{len(JAR_RUNS)} passed, 0 failed, {refused} refused, 0 errors" in text
    assert "not a SASE 1.0 dialect vector" in text and "a query not written one clause a line" in text


def test_without_javac_the_listed_events_are_refused_and_the_generated_stream_runs(capsys, tmp_path):
    why = jar_missing()
    if why:
        pytest.skip(why)
    command = (f"{sys.executable} -m cepkit.conformance.adapters.sase1_jar --jar {JAR} --cache {tmp_path} "
               f"--javac {tmp_path / 'no-javac'}")
    code, text = kit(capsys, "--language", "sase1", "--case", "S1-WINDOW", "--case", "S1-JAR-seq3-price-s2-seed11-*",
                     "--command", command)
    assert code == 0, text
    assert "1 passed, 0 failed, 1 refused, 0 errors" in text and "no javac to compile Sase1JarEvents.java" in text


def test_no_jar_is_a_skip_with_the_reason(capsys, tmp_path):
    command = f"{sys.executable} -m cepkit.conformance.adapters.sase1_jar --jar {tmp_path / 'sase.jar'}"
    code, text = kit(capsys, "--language", "sase1", "--case", "S1-JAR-seq3-price-s2-seed11-*", "--command", command,
                     "--", "-rs")
    assert code == 0, text
    assert "0 passed, 0 failed, 0 refused, 0 errors, 1 skipped" in text and "no SASE 1.0 jar at" in text
