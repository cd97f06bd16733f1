"""Events/s of the whole `cepkit run` process (not a test): interpreter start, imports, query compile,
reading the file, matching and writing JSON lines to /dev/null.

    python -m benchmarks.cli_throughput [--events 1000000 ...] [--query p2s2] [--window 500]
                                        [--chunk-size N] [--repeat 3] [--dir DIR]

The stock stream of spec/000 §7 (seed 1) is written to DIR/stock_N.parquet (kept for reruns; the
same files as benchmarks/chunked_state.py). Each run is a fresh `cepkit run --engine optimized`
process after one untimed run (Numba's cache warm); the best of `--repeat` runs is reported, as
process wall time and as the time cepkit's own summary line reports (read + match + write).
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

from benchmarks import engine_compare as C
from benchmarks.chunked_state import stock_file


def run_once(query: str, events: str, extra: list[str]) -> tuple[float, float, str]:
    """(process wall seconds, cepkit's reported seconds, its summary line)."""
    cmd = [sys.executable, "-m", "cepkit.cli", "run", query, events, "--engine", "optimized",
           "--output", os.devnull, "--no-progress", *extra]
    t = time.perf_counter()
    done = subprocess.run(cmd, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - t
    summary = done.stderr.strip().splitlines()[-1]
    return wall, float(re.search(r"in ([0-9.]+) s", summary).group(1)), summary


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, nargs="+", default=[1_000_000])
    ap.add_argument("--query", default="p2s2", choices=C.QUERIES + C.MERGE_QUERIES)
    ap.add_argument("--window", type=int, default=500)
    ap.add_argument("--chunk-size", type=int)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dir", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "cepkit-chunked"))
    args = ap.parse_args(argv)
    os.makedirs(args.dir, exist_ok=True)
    extra = ["--chunk-size", str(args.chunk_size)] if args.chunk_size else []
    with tempfile.NamedTemporaryFile("w", suffix=".sase", delete=False) as fh:
        fh.write(C.query_text(args.query, args.window))
    try:
        print(f"{args.query} W={args.window}{', chunks of ' + str(args.chunk_size) if extra else ''}")
        print("events | process s | process ev/s | cepkit-reported s | reported ev/s | summary")
        for n in args.events:
            path = stock_file(n, args.dir)
            run_once(fh.name, path, extra)  # warm Numba's cache and the page cache
            wall, inner, summary = min(run_once(fh.name, path, extra) for _ in range(args.repeat))
            print(f"{n:,} | {wall:.2f} | {n / wall:,.0f} | {inner:.2f} | {n / inner:,.0f} | {summary}", flush=True)
    finally:
        os.unlink(fh.name)


if __name__ == "__main__":
    main()
