"""Events/s of the reference engine (the oracle) on the spec/000 experiment queries at W = 500.

    python -m benchmarks.reference_throughput [--events N] [--queries p2s2 p1s3 q3] [--repeat R]

Uses only `cepkit.compile` and benchmarks.engine_compare's workloads, so the same file measures an older
checkout too: `git worktree add /tmp/base REV && PYTHONPATH=/tmp/base python benchmarks/reference_throughput.py`
(run from this checkout's root) gives REV's figures to compare in the same session.
"""
from __future__ import annotations

import argparse
import time


def main(argv: list[str] | None = None) -> int:
    import cepkit
    from benchmarks.engine_compare import query_text, stream

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=4000)
    ap.add_argument("--queries", nargs="+", default=["p2s2", "p1s3", "q3"])
    ap.add_argument("--window", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    print("query | events | matches | events/s (best of repeats)")
    for name in args.queries:
        text = query_text(name, args.window)
        batch = stream(args.events, name == "q3")
        best, n = float("inf"), 0
        for _ in range(args.repeat):
            program = cepkit.compile(text)
            t = time.perf_counter()
            n = len(program.run(batch))
            best = min(best, time.perf_counter() - t)
        print(f"{name} | {len(batch):,} | {n:,} | {len(batch) / best:,.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
