"""cepkit's temporary files in real child processes (issue 30, item 5; docs/semantics.md TS-7): they carry
the process id and go where TMPDIR says; a run killed by SIGKILL leaves them and the next run removes them
(only its own prefixes, only for dead processes); standard input is sniffed before it is copied (NUL bytes,
no header row: exit 3 at once) and its copy, like the spill, is bounded (CEPKIT_TEMP_MAX)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"


def cepkit(tmp_path: Path, *argv, **env) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "cepkit", "run", *map(str, argv)], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "TMPDIR": str(tmp_path), **env})


def wait_for(run: subprocess.Popen, found) -> None:
    """Until `found()` holds (the child still running); a hang guard, not a timing assertion."""
    deadline = time.monotonic() + 120
    while not found():
        assert run.poll() is None and time.monotonic() < deadline, run.stderr.read().decode()
        time.sleep(0.02)


def ours(tmp_path: Path) -> list[str]:
    return sorted(p.name for p in tmp_path.iterdir() if "cepkit" in p.name)


def test_sigkill_leftovers_carry_the_pid_and_the_next_run_removes_them(tmp_path):
    """A run writing CSV with RETURN columns to --output (temporary output + spill) and one copying
    standard input, both killed by SIGKILL: their entries, named with their pids, are in TMPDIR / beside the
    output; the next run removes them, keeps a live process's entry and anything not of cepkit's prefixes."""
    out = tmp_path / "out.csv"
    out.write_text("the earlier results\n")
    run = cepkit(tmp_path, EX / "limits" / "explosive.sase", EX / "limits" / "explosive.csv", "--format", "csv",
                 "--output", out, "--chunk-size", "5")
    wait_for(run, lambda: any(n.startswith("cepkit-spill-") for n in ours(tmp_path)))
    pipe = cepkit(tmp_path, EX / "query3.sase", "-")
    pipe.stdin.write(b"id,ts,type,symbol,price,volume\n" + b"".join(b"e%d,%d,Stock,Goog,100,1010\n" % (i, i)
                                                                   for i in range(5000)))
    pipe.stdin.flush()   # past the sniffed head, and kept open: the child is copying standard input
    wait_for(pipe, lambda: any(n.startswith("cepkit-events-") for n in ours(tmp_path)))
    for child in (run, pipe):
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=120)
        child.stdin.close()
    left = ours(tmp_path)
    assert any(n.startswith(f".out.csv.cepkit-tmp-{run.pid}-") for n in left), left
    assert any(n.startswith(f"cepkit-spill-{run.pid}-") for n in left), left
    assert any(n.startswith(f"cepkit-events-{pipe.pid}-") for n in left), left
    assert out.read_text() == "the earlier results\n"
    live = tmp_path / f"cepkit-spill-{os.getpid()}-keep"   # this test's process is alive
    live.mkdir()
    other = tmp_path / "cepkit-notes-1-keep"
    other.write_text("not ours")
    after = cepkit(tmp_path, EX / "query3.sase", EX / "fig3_stream.csv", "--output", out)
    _, err = after.communicate(timeout=120)
    assert after.returncode == 0, err.decode()
    assert ours(tmp_path) == sorted([live.name, other.name])
    assert out.read_text().count("\n") == 3


def test_nul_bytes_on_standard_input_exit_3_before_copying(tmp_path):
    """Endless NUL bytes (/dev/zero): exit 3 at once, naming them; nothing copied, nothing left."""
    with open("/dev/zero", "rb") as zero:
        run = subprocess.Popen([sys.executable, "-m", "cepkit", "run", str(EX / "query3.sase"), "-"], cwd=ROOT,
                               stdin=zero, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ, "TMPDIR": str(tmp_path)})
        _, err = run.communicate(timeout=120)
    assert run.returncode == 3
    assert err.decode().splitlines() == ["event error: <stdin>: standard input is not CSV text: its first bytes hold "
                                         "a NUL byte (binary data); pipe CSV with a header row or JSON lines into "
                                         "cepkit, or name Parquet with --input-format parquet"]
    assert ours(tmp_path) == []


def _feed(run: subprocess.Popen, piece: bytes) -> threading.Thread:
    """Write `piece` to the child's standard input over and over until it goes away."""
    def write():
        try:
            while True:
                run.stdin.write(piece)
        except (BrokenPipeError, ValueError, OSError):
            pass

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


def test_no_header_row_on_standard_input_exits_3_at_once(tmp_path):
    """An endless first line (no header row ends): exit 3 once 1 MiB of it is read, not a copy of it all."""
    run = cepkit(tmp_path, EX / "query3.sase", "-")
    feeder = _feed(run, b"a" * 65536)
    err = run.stderr.read()
    assert run.wait(timeout=120) == 3
    feeder.join(timeout=120)
    assert "no header row on standard input: its first line is longer than 1 MiB" in err.decode()
    assert len(err.decode().splitlines()) == 1 and ours(tmp_path) == []


def test_the_stdin_copy_is_bounded_and_removed(tmp_path):
    """Endless rows with CEPKIT_TEMP_MAX=64K: exit 3 naming the bound; the copy (in TMPDIR) removed."""
    run = cepkit(tmp_path, EX / "query3.sase", "-", CEPKIT_TEMP_MAX="64K")
    run.stdin.write(b"id,ts,type,symbol,price,volume\n")
    feeder = _feed(run, b"e1,1,Stock,Goog,100,1010\n" * 1000)
    err = run.stderr.read().decode()
    assert run.wait(timeout=120) == 3
    feeder.join(timeout=120)
    assert err.startswith(f"event error: <stdin>: standard input is longer than 64.0 KiB, the bound of its "
                          f"temporary copy in {tmp_path} (CEPKIT_TEMP_MAX")
    assert ours(tmp_path) == []


def test_the_spill_is_bounded(tmp_path):
    """CSV with RETURN columns in chunks keeps the matches on disk (TMPDIR); past CEPKIT_TEMP_MAX: exit 4,
    one line, the output as it was, nothing left."""
    out = tmp_path / "out.csv"
    events, query = tmp_path / "ev.csv", tmp_path / "q.sase"
    events.write_text("id,ts,type,v\n" + "".join(f"{i},{i},A,{i}\n" for i in range(400)))
    query.write_text("PATTERN SEQ(A a)\nRETURN a.v AS v\n")
    run = cepkit(tmp_path, query, events, "--format", "csv", "--output", out, "--chunk-size", "50",
                 CEPKIT_TEMP_MAX="1K")
    _, err = run.communicate(timeout=120)
    lines = [line for line in err.decode().splitlines() if not line.startswith("warning:")]
    assert run.returncode == 4, err.decode()
    assert len(lines) == 1 and "the matches kept on disk to write the output at the end would pass 1.0 KiB" in lines[0]
    assert not out.exists() and ours(tmp_path) == []
    run = cepkit(tmp_path, query, events, "--format", "csv", "--output", out, "--chunk-size", "50",
                 CEPKIT_TEMP_MAX="1M")
    _, err = run.communicate(timeout=120)
    assert run.returncode == 0 and out.read_text().count("\n") == 401 and ours(tmp_path) == []
