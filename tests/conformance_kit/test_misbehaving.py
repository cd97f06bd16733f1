"""Engines that misbehave are that vector's error, named, and the run goes on (issue 33): an adapter that
calls sys.exit(0) was a silent pass of the whole run (exit 0, no output, no JUnit file); a command that floods
its output was held in memory without bound."""
from __future__ import annotations

import shlex
import sys

from tests.conformance_kit.kit_run import junit_counts, kit


def test_an_adapter_that_exits_fails_each_vector_and_the_run_goes_on(capsys, tmp_path):
    out = tmp_path / "exits.xml"
    code, text = kit(capsys, "--adapter", "tests.conformance_kit.adapters:ExitsInRun", "--case", "CC5-s4-stream*",
                     "--junit", str(out))
    assert code == 1
    assert "the adapter exited (SystemExit(0)) in run()" in text
    counts = junit_counts(out)
    assert counts["tests"] >= 2 and counts["tests"] == counts["failure"] + counts["error"]


def test_a_command_that_floods_its_output_is_stopped_at_the_bound(capsys, monkeypatch):
    monkeypatch.setenv("CEPKIT_KIT_OUTPUT_MAX", "1")   # MiB
    flood = f"{sys.executable} -c " + shlex.quote("import sys\nwhile True: sys.stdout.write('x' * 65536)")
    code, text = kit(capsys, "--command", flood, "--case", "CC5-s4-stream1", "--timeout", "60")
    assert code == 1
    assert "the command wrote more than 1 MiB to stdout" in text
