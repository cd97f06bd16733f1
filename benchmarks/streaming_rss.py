"""Peak memory of `cepkit run --engine optimized` with default options at two stream lengths: does it stay
flat as the file grows (issue 20, "Streaming by default")?

    python -m benchmarks.streaming_rss [--events 1000000 4000000] [--dir DIR] [--tree PATH ...] [-- EXTRA...]

Two workloads, each as a fresh process per run (peak RSS from os.wait4 of that process, wall time):
- Q1: SASE 1.0's examples/Q1.query under --dialect sase+ (Kleene, partition contiguity), over a stream
  made by `python -m cepkit.reference.sase1` from a copy of examples/sase1/Q1.stream with streamSize = N;
- heavy: the output-heavy skip-till-next-match Kleene query of benchmarks/output_heavy.py (QUERY,
  `generate`), as Parquet.
Output goes to /dev/null as JSON lines (the default format). With `--tree` each source tree (a checkout:
e.g. main before the change) is run in turn, on the same files. Arguments after `--` are added to every
command (e.g. `-- --chunk-size 0`).
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def q1_stream(n: int, directory: str) -> str:
    """DIR/q1_N.csv, generated once by SASE 1.0's generator settings with streamSize = N."""
    path = os.path.join(directory, f"q1_{n}.csv")
    if os.path.exists(path):
        return path
    with open(os.path.join(ROOT, "examples", "sase1", "Q1.stream"), encoding="utf-8") as f:
        config = re.sub(r"streamSize\s*=\s*\d+", f"streamSize = {n}", f.read())
    conf = os.path.join(directory, f"q1_{n}.stream")
    with open(conf, "w", encoding="utf-8") as f:
        f.write(config)
    subprocess.run([sys.executable, "-m", "cepkit.reference.sase1", conf, path + ".part"], check=True, cwd=ROOT,
                   env={**os.environ, "PYTHONPATH": ROOT})
    os.replace(path + ".part", path)  # an interrupted run leaves no short stream behind
    return path


def heavy_stream(n: int, directory: str) -> tuple[str, str]:
    """(DIR/heavy_N.parquet, the query file) of benchmarks/output_heavy.py."""
    from benchmarks.output_heavy import QUERY, stream_file

    query = os.path.join(directory, "heavy.sase")
    with open(query, "w", encoding="utf-8") as f:
        f.write(QUERY + "\n")
    return stream_file(n, directory), query


def measure(tree: str, argv: list[str]) -> tuple[float, float, str]:
    """(peak RSS in MiB, wall seconds, cepkit's summary line) of one `cepkit run` in a fresh process."""
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "cepkit", "run", *argv], cwd=tree, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": tree})
    err = proc.stderr.read().decode(errors="replace")
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"cepkit failed in {tree}: {err}")
    summary = next((line for line in err.splitlines() if " matches from " in line), "")
    return usage.ru_maxrss / 1024, wall, summary


def workloads(n: int, args: argparse.Namespace) -> list[tuple[str, list[str]]]:
    """(name, `cepkit run` arguments) of each workload at n events."""
    runs = []
    if args.only in (None, "q1"):
        runs.append(("Q1", [os.path.join(ROOT, "examples", "Q1.query"), q1_stream(n, args.dir), "--dialect", "sase+"]))
    if args.only in (None, "heavy"):
        events, query = heavy_stream(n, args.dir)
        runs.append(("heavy", [query, events]))
    return runs


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    extra: list[str] = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[: argv.index("--")]
    p = argparse.ArgumentParser(prog="python -m benchmarks.streaming_rss", description=__doc__.split("\n\n")[0])
    p.add_argument("--events", type=int, nargs="+", default=[1_000_000, 4_000_000])
    p.add_argument("--dir", default="/tmp/cepkit-streaming-rss")
    p.add_argument("--tree", nargs="+", default=[ROOT], help="source trees to run (default: this one)")
    p.add_argument("--only", choices=("q1", "heavy"), help="one workload only")
    args = p.parse_args(argv)
    os.makedirs(args.dir, exist_ok=True)
    for tree in args.tree:  # compile and cache each tree's kernels first: a compile is not the run's memory
        for name, command in workloads(10_000, args):
            measure(tree, [*command, "--engine", "optimized", "--output", os.devnull, "--no-progress", *extra])
    print("| workload | events | tree | peak RSS MiB | wall s | cepkit's summary |")
    print("|---|---|---|---|---|---|")
    for n in args.events:
        for name, command in workloads(n, args):
            for tree in args.tree:
                rss, wall, summary = measure(tree, [*command, "--engine", "optimized", "--output", os.devnull,
                                                    "--no-progress", *extra])
                print(f"| {name} | {n:,} | {tree} | {rss:,.0f} | {wall:.1f} | {summary} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
