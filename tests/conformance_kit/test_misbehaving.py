"""Engines that misbehave are that vector's error, named, and the run goes on (issue 33): an adapter that
calls sys.exit(0) was a silent pass of the whole run (exit 0, no output, no JUnit file), one that hung hung
the kit whatever --timeout said, and a command that flooded its output was held in memory without bound.
Every adapter runs in a child process; the kit enforces the timeout and the output bound from outside."""
from __future__ import annotations

import shlex
import sys

import pytest

from tests.conformance_kit.kit_run import junit_counts, kit

ADAPTERS = "tests.conformance_kit.adapters"


def test_an_adapter_that_exits_fails_each_vector_and_the_run_goes_on(capsys, tmp_path):
    out = tmp_path / "exits.xml"
    code, text = kit(capsys, "--adapter", f"{ADAPTERS}:ExitsInRun", "--case", "CC5-s4-stream*", "--junit", str(out))
    assert code == 1
    assert "the adapter exited (SystemExit(0)) in run()" in text
    counts = junit_counts(out)
    assert counts == {"tests": 2, "error": 2}
    assert "0 passed, 0 failed, 0 refused, 2 errors" in text


def test_an_adapter_that_hangs_fails_only_its_vector_within_the_timeout(capsys, tmp_path):
    """HangsOnCC5s4stream2 never returns on CC5-s4-stream2: that vector is an error after --timeout, the child
    is stopped, and a fresh one answers the next vector."""
    out = tmp_path / "hangs.xml"
    code, text = kit(capsys, "--adapter", f"{ADAPTERS}:HangsOnCC5s4stream2", "--case", "CC5-s4-stream*",
                     "--case", "CC6-*", "--timeout", "3", "--junit", str(out))
    assert code == 1
    assert "the adapter ran past the timeout (3 s, --timeout) on this vector; its process was stopped" in text
    counts = junit_counts(out)
    assert counts["error"] == 1 and counts["tests"] > 2 and "failure" not in counts


@pytest.mark.parametrize("adapter, message", [
    ("EndsTheProcess", "the adapter's process exited (exit code 0) on this vector, without an answer"),
    ("Segfaults", "the adapter's process was killed by SIGSEGV on this vector, without an answer"),
])
def test_an_adapter_that_ends_its_process_is_the_vectors_error(capsys, adapter, message):
    code, text = kit(capsys, "--adapter", f"{ADAPTERS}:{adapter}", "--case", "CC5-s4-stream*")
    assert code == 1
    assert message in text and "0 passed, 0 failed, 0 refused, 2 errors" in text


def test_an_adapter_that_floods_its_output_is_stopped_at_the_bound(capsys, monkeypatch):
    monkeypatch.setenv("CEPKIT_KIT_OUTPUT_MAX", "1")   # MiB
    code, text = kit(capsys, "--adapter", f"{ADAPTERS}:Floods", "--case", "CC5-s4-stream*")
    assert code == 1
    assert "the adapter wrote more than 1 MiB to stdout on this vector" in text
    assert "2 errors" in text


def test_a_command_that_floods_its_output_is_stopped_at_the_bound(capsys, monkeypatch):
    monkeypatch.setenv("CEPKIT_KIT_OUTPUT_MAX", "1")   # MiB
    flood = f"{sys.executable} -c " + shlex.quote("import sys\nwhile True: sys.stdout.write('x' * 65536)")
    code, text = kit(capsys, "--command", flood, "--case", "CC5-s4-stream1", "--timeout", "60")
    assert code == 1
    assert "the command wrote more than 1 MiB to stdout" in text
