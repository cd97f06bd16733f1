"""Signals at a random moment of a run (issue 30, item 7): `cepkit run ... --output OUT` over an existing OUT,
killed by SIGTERM, SIGINT or SIGKILL after a random delay. OUT is then either the old file, untouched, or the
whole new output (the run finished first), never a part; SIGTERM / SIGINT end with 143 / 130 (0 when the run
had finished, -N when the signal came before Python set its handlers); and after the same command again no
temporary file of the killed run is left (docs/semantics.md TS-7)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from cepkit.reference.sase1.stock_stream import StockStreamConfig, write_csv
from tests.fuzz.settings import fuzz_settings

ROOT = Path(__file__).resolve().parents[2]
QUERY = "PATTERN SEQ(stock1 a, stock2 b, stock3 c)\nWHERE skip-till-any-match\nAND [price]\nWITHIN 1000\n"
OLD = b'{"old": "output"}\n'
CODES = {signal.SIGTERM: 143, signal.SIGINT: 130, signal.SIGKILL: -9}   # -N: killed before Python's handlers


@pytest.fixture(scope="module")
def run_files(tmp_path_factory):
    """The query, its events (a run of about a second), and the whole output of an undisturbed run."""
    folder = tmp_path_factory.mktemp("signals")
    query, events = folder / "q.query", folder / "events.csv"
    query.write_text(QUERY)
    write_csv(StockStreamConfig(streamSize=8000, maxPrice=100, numOfSymbol=3, randomSeed=11,
                                increaseProbability=101), events)
    whole = folder / "whole.jsonl"
    done = subprocess.run(_command(query, events, whole), cwd=ROOT, env=_env(folder), capture_output=True)
    assert done.returncode == 0, done.stderr
    return query, events, whole.read_bytes()


def _command(query, events, out):
    return [sys.executable, "-m", "cepkit", "run", str(query), str(events), "--output", str(out), "--no-progress"]


def _env(tmp: Path) -> dict:
    return {**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(ROOT)}


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if "cepkit-" in p.name and p.name != "whole.jsonl")


@fuzz_settings(0.08)
@given(delay=st.floats(0.0, 2.5), sig=st.sampled_from(sorted(CODES)))
def test_a_run_killed_at_a_random_moment_loses_nothing(run_files, tmp_path_factory, delay, sig):
    query, events, whole = run_files
    folder = tmp_path_factory.mktemp("killed")
    out = folder / "out.jsonl"
    out.write_bytes(OLD)
    child = subprocess.Popen(_command(query, events, out), cwd=ROOT, env=_env(folder), stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
    time.sleep(delay)
    child.send_signal(sig)
    _, err = child.communicate(timeout=120)
    assert child.returncode in (CODES[sig], 0, -sig), (child.returncode, err[-2000:])
    assert b"Traceback" not in err, err[-2000:]
    assert out.read_bytes() in (OLD, whole), "the output is neither the old file nor the whole new one"
    # the same command again removes what a SIGKILL left (its temporary output beside OUT, a spill or a copy
    # in TMPDIR); a SIGTERM / SIGINT left nothing to begin with
    if sig != signal.SIGKILL:
        assert _leftovers(folder) == [], _leftovers(folder)
    again = subprocess.run(_command(query, events, out), cwd=ROOT, env=_env(folder), capture_output=True,
                           timeout=120)
    assert again.returncode == 0, again.stderr[-2000:]
    assert _leftovers(folder) == [] and out.read_bytes() == whole, _leftovers(folder)
