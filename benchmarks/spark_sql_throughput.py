"""MATCH_RECOGNIZE on Spark against the single-process engine, on a partitioned ticker.

    python -m benchmarks.spark_sql_throughput N [--symbols 40] [--master local[2]] [--engine optimized]
                                                [--repeat 2] [--query examples/sql/v_shape.sql]

Generates N ticker rows over --symbols symbols (benchmarks.sql_optimized.ticker, as Parquet), runs the V-shape
query (PARTITION BY symbol) through the single-process engine (rows already in an EventBatch, best of
--repeat) and through the Spark job (the matching stage of the last of --repeat runs: the first pays for the
Python workers' imports and Numba cache loads), and prints events/s, events/s per core and their ratio
(Spark per core / single process).
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int)
    ap.add_argument("--symbols", type=int, default=40)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--engine", default="optimized")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--query", default=str(ROOT / "examples" / "sql" / "v_shape.sql"))
    args = ap.parse_args(argv)

    import warnings

    import cepkit
    from benchmarks.sql_optimized import ticker
    from cepkit.core.errors import CepkitWarning

    warnings.simplefilter("ignore", CepkitWarning)  # V shapes have no WITHIN (PARTITION BY bounds them)
    from cepkit.core import registry
    from cepkit.spark_jobs.job import run_job
    from cepkit.spark_jobs.session import get_session

    text = Path(args.query).read_text()
    work = Path(tempfile.mkdtemp(prefix="cepkit-spark-sql-bench-"))
    events = work / "ticker.parquet"
    frame = ticker(args.n, partitions=args.symbols, seed=1)
    frame.to_parquet(events, index=False)

    best, single = float("inf"), None
    for _ in range(args.repeat):
        program = cepkit.compile(text, language="sql", engine=args.engine)
        batch = registry.read_input("sql", args.engine, frame, query=program.query)
        t0 = time.perf_counter()
        single = program.run(batch)
        best = min(best, time.perf_counter() - t0)
    single_rate = args.n / best
    print(f"{Path(args.query).name}, {args.n:,} events, {args.symbols} symbols, engine {args.engine}")
    print(f"single process: {single_rate:,.0f} events/s engine only ({best:.2f} s); {len(single):,} matches")

    spark = get_session(args.master, **{"spark.sql.execution.arrow.maxRecordsPerBatch": "100000",
                                        "spark.ui.enabled": "false"})
    cores = spark.sparkContext.defaultParallelism
    for _ in range(args.repeat):
        s = run_job(text, str(events), str(work / "out"), engine=args.engine, spark=spark)
    assert s.matches == len(single), (s.matches, len(single))
    per_core = s.events_per_second / cores
    print(f"spark ({args.master}, {cores} cores, {s.plan}): {s.events_per_second:,.0f} events/s in the matching "
          f"stage ({s.match_seconds:.2f} s), {per_core:,.0f} per core = {per_core / single_rate:.2f} x single "
          f"process; total {s.total_seconds:.2f} s")
    spark.stop()


if __name__ == "__main__":
    main()
