"""A deliberately broken adapter (the reference less its last match): the kit fails exactly the vectors with
a match, shows each with its query, events, expected and actual matches and source, and exits 1."""
from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import cepkit
from cepkit.conformance.kit import vectors
from cepkit.core import registry
from tests.conformance_kit.kit_run import junit_counts, kit

ROOT = Path(__file__).resolve().parents[2]
BROKEN = "tests.conformance_kit.adapters:DropsLastMatch"


def _with_matches(case) -> bool:
    data = registry.read_input(case.language, "reference", case.events, **case.read_options)
    return len(cepkit.compile(case.query, language=case.language, **case.options).run(data)) > 0


def test_the_kit_reports_the_broken_adapter(capsys, tmp_path):
    out = tmp_path / "broken.xml"
    code, text = kit(capsys, "--adapter", BROKEN, "--case", "CC5-*", "--case", "CHOICE-*", "--language", "sase",
                     "--junit", str(out))
    chosen = vectors.select(vectors.all_cases(), ["sase"], ["CC5-*", "CHOICE-*"])
    failing = [c for c in chosen if _with_matches(c)]
    assert 0 < len(failing) < len(chosen)           # an empty result survives dropping a match
    assert code == 1
    assert f"{len(chosen) - len(failing)} passed, {len(failing)} failed, 0 refused" in text
    report = text.split("_ sase:CC5-s4-stream2 _", 1)[1].split("\n___", 1)[0]   # pytest's section of the failure
    assert "source: spec/000 §8 CC5" in report                    # the vector's source
    assert "PATTERN SEQ(A a, B b)" in report                      # the query
    assert '{"id": "x1", "type": "A", "ts": 1, "pid": 1}' in report  # the events
    assert "expected 4 matches, got 3" in report and "missing (1):" in report  # expected vs actual
    assert '"bindings": {"a": ["x1"], "b": ["x3"]}' in report        # the engine's rows
    counts = junit_counts(out)
    assert counts == {"tests": len(chosen), "failure": len(failing)}
    failure = ET.parse(out).getroot().find(".//testcase[@name='CC5-s4-stream2']/failure")
    assert "missing (1):" in failure.text and "source: spec/000" in failure.text


def test_the_command_line_exits_1_on_a_failure():
    done = subprocess.run([sys.executable, "-m", "cepkit.cli", "conformance", "--adapter", BROKEN, "--case",
                           "CC5-s4-stream1", "-q"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "0 passed, 1 failed, 0 refused, 0 errors" in done.stdout
