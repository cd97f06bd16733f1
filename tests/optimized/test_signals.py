"""A signal stops a run whose time goes to a Numba kernel (issue 30, item 5): the optimized engine's kernel
comes back to Python after a bounded amount of work (optimized/nfab/program.py CALL_WORK), so the command
line's SIGTERM / Ctrl-C handler runs within about a second instead of when the feed ends."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# every A event starts a run and no B comes: the kernel visits k runs at the k-th event, about 1.8 x 10^9 run
# visits over 60,000 events (minutes in one kernel call without the bound on a call's work)
QUERY = "PATTERN SEQ(A a, B b) WHERE skip_till_any_match(a, b) { b.price > a.price } WITHIN 1000000"


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the child's CPU time from /proc")
@pytest.mark.parametrize("sig, code", [("SIGTERM", 143), ("SIGINT", 130)])
def test_a_signal_stops_a_long_kernel(tmp_path, sig, code):
    query = tmp_path / "long.sase"
    query.write_text(QUERY)
    events = tmp_path / "long.csv"
    events.write_text("id,ts,type,price\n" + "".join(f"{i},{i},A,{i % 97}\n" for i in range(60_000)))
    tiny = tmp_path / "tiny.csv"
    tiny.write_text("id,ts,type,price\n" + "".join(f"{i},{i},A,{i}\n" for i in range(5)))
    command = [sys.executable, "-m", "cepkit", "run", str(query)]
    options = ["--engine", "optimized", "--no-progress", "--whole"]
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    # the kernels compiled (and cached) first, so that the signal comes while the kernel runs, not the compiler
    warm = subprocess.run(command + [str(tiny)] + options, cwd=ROOT, capture_output=True, env=env, timeout=600)
    assert warm.returncode == 0, warm.stderr.decode()
    run = subprocess.Popen(command + [str(events)] + options, cwd=ROOT, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=env)
    try:
        start = _cpu_seconds(run.pid)
        deadline = time.monotonic() + 300
        while _cpu_seconds(run.pid) < start + 4:   # start-up, reading, then well inside the kernel
            assert run.poll() is None and time.monotonic() < deadline, run.stderr.read().decode()
            time.sleep(0.1)
        run.send_signal(getattr(signal, sig))
        try:
            rc = run.wait(timeout=30)   # generous: the kernel comes back every 0.05-0.2 s
        except subprocess.TimeoutExpired:
            rc = None
        err = run.stderr.read().decode() if rc is not None else ""
        assert rc == code, f"still running 30 s after {sig}" if rc is None else err
        assert "Traceback" not in err and "SystemError" not in err, err
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
