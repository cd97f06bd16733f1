"""Where the Spark job's matching stage spends its time (issue 31, item 2): the stage rebuilt step by step on
the same keyed stock stream, each step timed as a whole Spark action, warm (the best of --repeat), so that the
difference between two steps is what the added step costs:

1. scan        read the Parquet events, every column (the JVM's scan), the type as its code (as the job);
2. shuffle     + repartition by the key (the exchange);
3. sort        + sort within partitions by (key, ts, id);
4. transfer    + mapInArrow with a body that reads every batch and returns nothing (Arrow batches to the
                 Python workers);
5. match       + the job's task body (tasks.match_partition: the engine, its values as exact JSON);
6. write       + write the matches as the job does (spark_io.write_matches: typed, Parquet, atomic).

Steps 1-5 run as Spark's `noop` sink (every row and column computed, nothing written): a count() would read
only the columns it needs and drop the sort.

It also times the single-process engine over the same events (already in memory), its read of the same file
(pyarrow, then an event batch), and prints the per-core
ratio of the full stage (step 6): (events / stage seconds / cores) / single-process events/s.

    python -m benchmarks.spark_stage_breakdown N [--symbols 8] [--master local[2]] [--repeat 2] [--partitions P]
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

QUERY3 = Path(__file__).resolve().parent.parent / "examples" / "query3.sase"


def _typed_write(ordered, spec, out_schema, spark, out: str) -> None:
    """The job's matching stage and typed write: the tasks gather the witnesses (task_witnesses), as run_job's."""
    from cepkit.spark_jobs import task_witnesses as TW, tasks as T
    from cepkit.spark_jobs.spark_io import write_matches

    gathered = TW.accumulator(spark)
    matched = ordered.mapInArrow(TW.gathering(T.call(T.match_partition, spec), spec.returns, gathered), out_schema)
    write_matches(matched, out, values=spec.returns, gathered=gathered)


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int)
    ap.add_argument("--symbols", type=int, default=8)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--partitions", type=int, help="matching partitions (default: the job's rule)")
    args = ap.parse_args(argv)

    import cepkit
    from benchmarks.workloads.stock import generate
    from cepkit.core.readers import from_pandas
    from cepkit.front.language import parse
    from cepkit.spark_jobs import job as J, tasks as T, typed_output as TO
    from cepkit.spark_jobs.job import run_job
    from cepkit.spark_jobs.session import get_session, job_settings
    from cepkit.spark_jobs.warmup import cache_env

    text = QUERY3.read_text()
    frame = generate(args.n, symbols=args.symbols, seed=7, volume_max=1010)
    tmp = Path(tempfile.mkdtemp(prefix="cepkit-stage-"))
    events = tmp / "stock.parquet"
    frame.to_parquet(events, index=False)

    program = cepkit.compile(text, engine="optimized")
    batch = from_pandas(frame, ts_unit="min")
    program.run(batch)   # compiled and warm
    single = best(lambda: cepkit.compile(text, engine="optimized").run(batch), args.repeat)
    import pyarrow.parquet as pq

    from cepkit.core.readers import from_arrow
    read = best(lambda: from_arrow(pq.read_table(events), ts_unit="min"), args.repeat)   # the scan Spark replaces

    spark = get_session(args.master, app_name="cepkit-stage-breakdown", **job_settings(args.master, cache_env()))
    cores = spark.sparkContext.defaultParallelism
    run_job(text, str(events), str(tmp / "warm"), spark=spark, ts_unit="min")   # workers started, kernels loaded
    parts = args.partitions or J.partition_count(args.n, cores)

    type_names = tuple(sorted(frame["type"].unique()))
    df = spark.read.parquet(str(events)).withColumn("type", J.IO.type_code("type", type_names, type_names))   # as the job
    keyed = df.repartition(parts, "symbol")
    ordered = keyed.sortWithinPartitions("symbol", "ts", "id")
    schema = df.schema

    def consume(batches):
        for b in batches:
            b.num_rows
        return iter(())

    # the job's own task spec, as run_job builds it (keyed plan), to time the task body inside Spark
    q = parse(text)
    spec = T.TaskSpec(query=text, engine="optimized", selection="all", ts_col="ts", id_col="id", type_col="type",
                      default_type=None, ts_unit="min", type_names=type_names, type_coded=True,
                      variables=tuple(program.variables), returns=tuple(r.name for r in q.returns), id_is_int=True,
                      text_cols=(), text_forms=(), group_cols=("symbol",), values=TO.BATCH_VALUES)
    out_schema = J.IO.spark_schema(T.output_schema(spec.variables, spec.returns, True, spec.values))
    matched = ordered.mapInArrow(T.call(T.match_partition, spec), out_schema)

    def run(frame) -> None:   # every row and column computed, nothing written (count() would prune columns
        frame.write.format("noop").mode("overwrite").save()   # and drop the sort)

    steps = [
        ("scan", lambda: run(df)),
        ("shuffle", lambda: run(keyed)),
        ("sort", lambda: run(ordered)),
        ("transfer", lambda: run(ordered.mapInArrow(consume, schema))),
        ("match", lambda: run(matched)),
        ("write", lambda: _typed_write(ordered, spec, out_schema, spark, str(tmp / "out"))),   # typed, as the job
    ]
    print(f"{args.n:,} events, {args.symbols} symbols, {parts} partitions, master {args.master} ({cores} cores); "
          f"single process (optimized, events in memory): {single:.2f} s = {args.n / single:,.0f} events/s; "
          f"its read of the file (pyarrow, to an event batch): {read:.2f} s")
    print("| step | seconds | added by the step |")
    print("|---|---:|---:|")
    before = 0.0
    for name, action in steps:
        action()   # warm (a first run of each plan compiles Spark's code)
        seconds = best(action, args.repeat)
        print(f"| {name} | {seconds:.2f} | {seconds - before:+.2f} |", flush=True)
        before = seconds
    ratio = (args.n / before / cores) / (args.n / single)
    print(f"per-core speed of the stage (write): {ratio:.2f} of the single process")
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
