"""Issue 30's bounds table: each explosive example on every engine that accepts it, with no options and with
`--limit 10`, as a user runs it (`python -m cepkit run ...` in a child process): exit code, seconds, peak
resident memory (the child's, from wait4), matches written.

    python -m benchmarks.limits_table [--timeout 90] [--only explosive.sase]

Prints a Markdown table. Exit 4 is a bound that held; a row past the timeout is killed and shown as such.
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMITS = ROOT / "examples" / "limits"
STOCKS = ROOT / "examples" / "stocks.csv"

SASE_ENGINES = ("reference", "optimized", "optimized --no-merge", "reference-lazy", "optimized-lazy",
                "optimized-eager", "reference-eager", "optimized-tree", "reference-tree", "brute",
                "reference-ssc")
CASES = (
    ("explosive.sase", LIMITS / "explosive.sase", LIMITS / "explosive.csv", ("",) + SASE_ENGINES),
    ("partition_kleene.sase", LIMITS / "partition_kleene.sase", STOCKS, ("",) + SASE_ENGINES),
    ("explosive.sql", LIMITS / "explosive.sql", LIMITS / "explosive.csv", ("", "optimized", "reference", "gpu")),
)


def run_one(query: Path, events: Path, engine: str, extra: list[str], timeout: float) -> tuple[str, float, float, int]:
    """(exit, seconds, peak GB, matches) of one child run."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.csv"
        cmd = [sys.executable, "-m", "cepkit", "run", str(query), str(events), "--output", str(out)]
        cmd += engine.split() and ["--engine"] + engine.split() or []
        cmd += extra
        start = time.monotonic()
        with open(Path(tmp) / "stderr", "w+b") as err_file:   # a file: a pipe would fill and stall the child
            child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err_file, start_new_session=True)
            while True:   # wait4: the child's own peak memory (resource.getrusage would sum every child)
                pid, code, usage = os.wait4(child.pid, os.WNOHANG)
                if pid:
                    status = os.waitstatus_to_exitcode(code)
                    break
                if time.monotonic() - start > timeout:
                    os.killpg(child.pid, signal.SIGKILL)
                    _, code, usage = os.wait4(child.pid, 0)
                    status = "killed"
                    break
                time.sleep(0.05)
            child.returncode = status if isinstance(status, int) else -signal.SIGKILL   # reaped by wait4
            seconds = time.monotonic() - start
            err_file.seek(0)
            err = err_file.read().decode(errors="replace").strip()
        if status not in (0, 4, "killed"):
            status = f"{status}: {err.splitlines()[-1][:80] if err else ''}"
        lines = out.read_text().count("\n") if out.exists() else 0   # JSON lines: one match per line
        return str(status), seconds, usage.ru_maxrss / (1 << 20), lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=90.0)
    ap.add_argument("--only", help="one case (its file name)")
    args = ap.parse_args(argv)
    print("| query | engine | options | exit | seconds | peak GB | matches |")
    print("|---|---|---|---|---:|---:|---:|")
    for name, query, events, engines in CASES:
        if args.only and args.only != name:
            continue
        for engine in engines:
            for extra in ([], ["--limit", "10"]):
                status, seconds, peak, matches = run_one(query, events, engine, extra, args.timeout)
                print(f"| {name} | {engine or '(default)'} | {' '.join(extra) or '-'} | {status} | {seconds:.1f} "
                      f"| {peak:.2f} | {matches} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
