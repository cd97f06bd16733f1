"""Start-up of `cepkit run --engine optimized` (not a test): wall time of the whole process on a small
file, and what `python -X importtime` counts, for one or more source trees side by side.

    python -m benchmarks.start_time [--events 1000] [--repeat 5] [--format csv|parquet] [--tree PATH ...]

The stock stream of spec/000 §7 (seed 1), N events, as CSV or Parquet; the query is the experiment
template p2s3 at W = 500 (benchmarks/engine_compare.py). Each tree runs once untimed (Numba's cache and
lark's grammar cache warm), then the trees alternate; the best of `--repeat` is reported. "imports" is the
sum of the top-level cumulative times of one `-X importtime` run (the interpreter's own start included).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

from benchmarks import engine_compare as C


def command(query: str, events: str) -> list[str]:
    return ["-m", "cepkit.cli", "run", query, events, "--engine", "optimized", "--output", os.devnull, "--no-progress"]


def wall(tree: str, args: list[str]) -> float:
    env = dict(os.environ, PYTHONPATH=tree)
    t = time.perf_counter()
    subprocess.run([sys.executable, *args], check=True, capture_output=True, env=env, cwd=tree)
    return time.perf_counter() - t


def import_seconds(tree: str, args: list[str]) -> tuple[float, int]:
    """(seconds of top-level imports by -X importtime, modules imported)."""
    env = dict(os.environ, PYTHONPATH=tree)
    done = subprocess.run([sys.executable, "-X", "importtime", *args], check=True, capture_output=True, text=True,
                          env=env, cwd=tree)
    total, count = 0, 0
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        _, cumulative, name = line.split("|")
        count += 1
        if len(name) - len(name.lstrip()) == 1:  # top level: one space after the bar
            total += int(cumulative)
    return total / 1e6, count


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--format", choices=("csv", "parquet"), default="csv")
    ap.add_argument("--tree", nargs="*", default=None, help="source trees side by side (default: this one)")
    args = ap.parse_args(argv)
    trees = args.tree or [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
    from benchmarks.workloads.stock import generate, write

    with tempfile.TemporaryDirectory() as tmp:
        events = os.path.join(tmp, f"stock_{args.events}.{args.format}")
        write(generate(args.events, symbols=C.SYMBOLS, seed=1), events)
        query = os.path.join(tmp, "p2s3.sase")
        with open(query, "w") as f:
            f.write(C.query_text("p2s3", 500))
        run = command(query, events)
        for tree in trees:
            wall(tree, run)
        best = {tree: float("inf") for tree in trees}
        for _ in range(args.repeat):
            for tree in trees:
                best[tree] = min(best[tree], wall(tree, run))
        for tree in trees:
            imports, modules = import_seconds(tree, run)
            print(f"{tree}: cepkit run wall {best[tree]:.3f} s (best of {args.repeat}); -X importtime top-level "
                  f"total {imports:.3f} s, {modules} modules", flush=True)


if __name__ == "__main__":
    main()
