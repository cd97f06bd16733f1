"""Spark job throughput against the single-process engine on a partitioned stock stream.

    python -m benchmarks.spark_throughput N [--symbols 8] [--master local[2]] [--query-file examples/query3.sase]
                                            [--query p2s3 --window 500] [--engine NAME] [--udf arrow,pandas]
                                            [--repeat 2] [--task-body]

The query is Query 3 (examples/query3.sase, `WITHIN 1 hour` over one event a minute, volumes up to 1010)
unless --query names one of benchmarks.engine_compare's templates (with --window events).

Prints the single-process engine's events/s (events already in an EventBatch) and the Spark job's
matching-stage events/s for each task body (mapInArrow, applyInPandas), warm (the last of --repeat runs:
the first pays for the Python workers' imports and Numba cache loads), and the per-core ratio
(Spark events/s / cores) / single-process events/s.
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

QUERY3_FILE = Path(__file__).resolve().parent.parent / "examples" / "query3.sase"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int)
    ap.add_argument("--symbols", type=int, default=8)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--query-file", default=str(QUERY3_FILE), help="a SASE+ query (ts in minutes)")
    ap.add_argument("--query", help="an engine_compare template instead (p2s3, q3, ...), ts in events")
    ap.add_argument("--window", type=int, default=500)
    ap.add_argument("--engine")
    ap.add_argument("--udf", default="arrow,pandas")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--keyless", action="store_true", help="drop [symbol]: the time-slice plan")
    ap.add_argument("--task-body", action="store_true",
                    help="also time the task body (tasks.match_partition) alone on the stream as one partition")
    args = ap.parse_args(argv)

    import cepkit
    from benchmarks.engine_compare import query_text
    from benchmarks.workloads.stock import generate
    from cepkit.core.readers import read_events
    from cepkit.spark_jobs.job import default_engine, run_job
    from cepkit.spark_jobs.session import get_session, job_settings
    from cepkit.spark_jobs.warmup import cache_env

    engine = args.engine or default_engine()
    text = query_text(args.query, args.window) if args.query else Path(args.query_file).read_text(encoding="utf-8")
    ts_unit = None if args.query else "min"
    label = f"query {args.query} W={args.window}" if args.query else f"query {args.query_file}"
    if args.keyless:
        text = text.replace("[symbol] and ", "")
    work = Path(tempfile.mkdtemp(prefix="cepkit-spark-bench-"))
    events = work / "stock.parquet"
    generate(args.n, symbols=args.symbols, seed=1, volume_max=1000 if args.query not in (None, "q3") else 1010) \
        .to_parquet(events, index=False)

    t0 = time.perf_counter()
    batch = read_events(events, ts_unit=ts_unit)
    read_s = time.perf_counter() - t0
    cepkit.compile(text, engine=engine).run(batch.slice(0, 2_000))  # warm
    t0 = time.perf_counter()
    single = cepkit.compile(text, engine=engine).run(batch)
    single_s = time.perf_counter() - t0
    print(f"{label}{' (no key)' if args.keyless else ''}, {args.n:,} events, "
          f"{args.symbols} symbols, engine {engine}")
    print(f"single process: {args.n / single_s:,.0f} events/s engine only ({single_s:.2f} s), "
          f"{args.n / (single_s + read_s):,.0f} events/s with reading ({read_s:.2f} s); {len(single):,} matches")

    if args.task_body and not args.keyless:
        rate, seconds = task_body_rate(text, engine, events, ts_unit)
        print(f"task body alone (one partition sorted by symbol, ts, id; batches of 100,000): {rate:,.0f} events/s "
              f"({seconds:.2f} s)")

    spark = get_session(args.master, **{**job_settings(args.master, cache_env()), "spark.ui.enabled": "false"})
    cores = spark.sparkContext.defaultParallelism
    for udf in args.udf.split(","):
        for _ in range(args.repeat):
            s = run_job(text, str(events), str(work / f"out-{udf}"), engine=engine, spark=spark, udf=udf,
                        ts_unit=ts_unit)
        assert s.matches == len(single), (s.matches, len(single))
        per_core = s.events_per_second / cores
        print(f"spark {udf:<6} ({args.master}, {cores} cores, {s.plan}): {s.events_per_second:,.0f} events/s in the "
              f"matching stage ({s.match_seconds:.2f} s), {per_core:,.0f} per core = "
              f"{per_core / (args.n / single_s):.2f} x single process; total {s.total_seconds:.2f} s")
        print("  time: " + ", ".join(f"{name} {sec:.2f} s" for name, sec in s.phases)
              + f"; Numba compilations in the tasks: {s.task_compiles}")
    spark.stop()


def task_body_rate(text: str, engine: str, events: Path, ts_unit: str | None) -> tuple[float, float]:
    """events/s and seconds of tasks.match_partition over the whole stream as one by-key partition (best of 2)."""
    import pyarrow.parquet as pq

    import cepkit
    from cepkit.spark_jobs.tasks import TaskSpec, match_partition

    table = pq.read_table(events).sort_by([("symbol", "ascending"), ("ts", "ascending"), ("id", "ascending")])
    program = cepkit.compile(text, engine=engine)
    spec = TaskSpec(query=text, engine=engine, selection="all", ts_col="ts", id_col="id", type_col="type",
                    default_type=None, ts_unit=ts_unit, type_names=("stock",), group_cols=("symbol",),
                    variables=tuple(program.variables), returns=tuple(r.name for r in program.query.returns),
                    id_is_int=True)
    batches = table.to_batches(max_chunksize=100_000)
    best = float("inf")
    for _ in range(2):
        t0 = time.perf_counter()
        for _ in match_partition(spec, iter(batches)):
            pass
        best = min(best, time.perf_counter() - t0)
    return table.num_rows / best, best


if __name__ == "__main__":
    main()
