"""The kit runs on pytest (issue 33, item 1): a test per vector, so that -k, -x, --junitxml, -n (pytest-xdist)
and any pytest option after -- are pytest's own; the plugin works under plain pytest too."""
from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from cepkit.conformance.kit import vectors
from tests.conformance_kit.kit_run import junit_counts, kit

ROOT = Path(__file__).resolve().parents[2]
BROKEN = "tests.conformance_kit.adapters:DropsLastMatch"


def test_k_selects_by_language_and_id(capsys, tmp_path):
    out = tmp_path / "k.xml"
    code, text = kit(capsys, "-k", "sase and CC5 and s4", "--junitxml", str(out))
    assert code == 0, text
    names = sorted(tc.get("name") for tc in ET.parse(out).getroot().iter("testcase"))
    assert names == ["CC5-s4-stream1", "CC5-s4-stream2"]
    assert "2 passed, 0 failed, 0 refused, 0 errors" in text


def test_x_stops_at_the_first_failure(capsys):
    chosen = [c for c in vectors.select(vectors.all_cases(["sase"]), ["sase"], ["CC5-*"]) if c.variant_of is None]
    code, text = kit(capsys, "--adapter", BROKEN, "--case", "CC5-*", "-x")
    assert code == 1
    assert "stopping after 1 failures" in text and "1 failed, 0 refused, 0 errors" in text
    assert len(chosen) > 3 and f"{len(chosen)} passed" not in text


def test_junit_is_pytests_with_one_testcase_per_vector(capsys, tmp_path):
    out = tmp_path / "broken.xml"
    code, _ = kit(capsys, "--adapter", BROKEN, "--case", "CC5-s4-*", "--case", "CC1", "--junitxml", str(out))
    assert code == 1
    assert junit_counts(out) == {"tests": 3, "failure": 3}
    case = ET.parse(out).getroot().find(".//testcase[@name='CC5-s4-stream1']")
    assert case.get("classname") == "conformance.cases.sase" and "missing (1):" in case.find("failure").text


def test_n_2_runs_on_two_processes_with_one_summary(capsys, tmp_path):
    out = tmp_path / "n2.xml"
    code, text = kit(capsys, "--language", "sase", "--case", "CC5-*", "--case", "LAZY-*", "-n", "2", "-v",
                     "--junitxml", str(out))
    chosen = vectors.select(vectors.all_cases(["sase"]), ["sase"], ["CC5-*", "LAZY-*"])
    assert code == 0, text
    assert "[gw0] [" in text and "[gw1] [" in text                     # both workers ran vectors
    assert text.count("cepkit conformance: engine 'reference': ") == 1  # the controller's summary, once
    assert f"{len(chosen)} passed, 0 failed, 0 refused, 0 errors" in text
    assert junit_counts(out) == {"tests": len(chosen)}


def test_pytest_options_after_the_double_dash(capsys):
    code, text = kit(capsys, "--case", "CC5-s4-*", "--", "--collect-only", "-q")
    assert code == 0, text
    assert "conformance/cases::sase::CC5-s4-stream1" in text and "conformance/cases::sase::CC5-s4-stream2" in text


def test_the_plugin_under_plain_pytest(tmp_path):
    """The command `cepkit conformance` runs, written out: pytest with the plugin and the vectors' folder."""
    (tmp_path / "none.ini").write_text("[pytest]\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "cepkit.conformance.kit.plugin", "-p",
                           "no:cacheprovider", "--kit-adapter", BROKEN, "--kit-case", "CC5-s4-stream1",
                           "--rootdir", str(tmp_path), "-c", str(tmp_path / "none.ini"),
                           str(vectors.cases_dir().resolve())], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 1, done.stdout + done.stderr
    assert "0 passed, 1 failed, 0 refused, 0 errors" in done.stdout
