"""Index-pruned replay on Spark against a full scan on Spark, for a selective query.

    python -m benchmarks.spark_replay N [--block-rows R] [--master local[2]] [--engine NAME] [--repeat 2]
                                        [--work DIR]

Writes N events (ts strictly increasing, id, p uniform in [0, N/10), v uniform in [0, 10^4)) as Parquet files
of 10^6 events in row groups of R events (default N/1000, at least 1,000: 1,000 blocks), builds the side
table with a secondary index on p (`cepkit spark index --index p`), then runs the insider-trading pattern
A B C* D WITHIN 1000 with A: p < 3 (about 30 events whatever N) by index-based replay and by a full scan
(`--method none`), each --repeat times (the first run pays for the Python workers' imports and Numba
loads). Prints blocks read / total and the Spark stage's seconds of each (the last run), the ratios, and
checks that both outputs are the same matches.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time

QUERY = """SELECT * FROM trades MATCH_RECOGNIZE (
  ORDER BY ts
  MEASURES A.ts AS a_ts, D.ts AS d_ts, COUNT(C.*) AS waited
  ALL MATCHES CONTIGUOUS
  PATTERN (A B C* D) WITHIN 1000
  DEFINE A AS p < 3, B AS v > 5000, D AS p > {high}
)"""
FILE_ROWS = 1_000_000


def write_events(root: str, n: int, block_rows: int, seed: int = 1) -> None:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    os.makedirs(root, exist_ok=True)
    t = 0
    for f, start in enumerate(range(0, n, FILE_ROWS)):
        m = min(FILE_ROWS, n - start)
        ts = t + np.cumsum(rng.integers(1, 3, m))
        t = int(ts[-1])
        table = pa.table({"ts": ts, "id": np.arange(start, start + m, dtype=np.int64),
                          "p": rng.integers(0, max(n // 10, 10), m), "v": rng.integers(0, 10_000, m)})
        pq.write_table(table, os.path.join(root, f"part-{f:05d}.parquet"), row_group_size=block_rows)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int)
    ap.add_argument("--block-rows", type=int)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--engine")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--work", help="directory for the events and outputs (default: a new temporary one)")
    args = ap.parse_args(argv)

    import pandas as pd

    from cepkit.spark_replay_cli import CONF, default_engine, spark_index, spark_replay
    from cepkit.spark_jobs.session import get_session

    engine = args.engine or default_engine()
    block_rows = args.block_rows or max(1_000, args.n // 1_000)
    work = args.work or tempfile.mkdtemp(prefix="cepkit-replay-bench-")
    events = os.path.join(work, "events")
    text = QUERY.format(high=max(args.n // 10, 10) * 99 // 100)
    t0 = time.perf_counter()
    write_events(events, args.n, block_rows)
    print(f"{args.n:,} events in row groups of {block_rows:,} written in {time.perf_counter() - t0:.1f} s "
          f"({events})")

    t0 = time.perf_counter()
    spark = get_session(args.master, **CONF)
    print(f"Spark session ({args.master}): {time.perf_counter() - t0:.1f} s")
    t0 = time.perf_counter()
    built = spark_index(events, ["p"], spark=spark)
    print(f"cepkit spark index --index p: {built.blocks:,} blocks, {time.perf_counter() - t0:.1f} s")

    results = {}
    for method in ("pareto", "none"):
        for run in range(args.repeat):
            t0 = time.perf_counter()
            summary, _ = spark_replay(text, events, os.path.join(work, f"out-{method}"), method, engine, spark)
            total = time.perf_counter() - t0
            label = "index replay" if method != "none" else "full scan"
            print(f"{label:12} run {run + 1}: {summary.matches:,} matches, blocks read {summary.blocks_read:,} of "
                  f"{summary.blocks_total:,}, {summary.units} units; Spark stage {summary.seconds:.2f} s, "
                  f"with planning {total:.2f} s")
            results[method] = (summary, total)
    (fast, fast_total), (full, full_total) = results["pareto"], results["none"]
    same = sorted(map(repr, pd.read_parquet(os.path.join(work, "out-pareto")).to_dict("records"))) == \
        sorted(map(repr, pd.read_parquet(os.path.join(work, "out-none")).to_dict("records")))
    print(f"engine {engine}; same matches: {same}")
    print(f"blocks: {full.blocks_read / max(fast.blocks_read, 1):.1f}x fewer; time: "
          f"{full.seconds / fast.seconds:.1f}x faster (Spark stage), {full_total / fast_total:.1f}x with planning")


if __name__ == "__main__":
    main()
