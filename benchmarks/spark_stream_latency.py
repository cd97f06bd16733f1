"""End-to-end latency of the streaming job (cepkit spark stream) per micro-batch.

A running stream (new files picked up as soon as the previous micro-batch ends) gets one Parquet file of
BATCH stock events at a time. The micro-batch that reads a file feeds each key's events up to that key's
largest timestamp minus the watermark delay (semantics SP-S1) and commits their matches; the events the
delay holds back go in with the next file. The latency of a file is the time from its landing in the source
directory (an atomic rename) to the end of the micro-batch that read it (seen by the job's progress
reporting, polled every 0.2 s). Each file lands once the previous one is done, and the micro-batch without
data that Spark runs after it (the watermark moved; at most 5 s later): the figures are per micro-batch of
BATCH events, without queueing.

    python -m benchmarks.spark_stream_latency --batch 100000 --batches 6
"""
from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import threading
import time

from benchmarks.workloads.stock import generate

QUERY = ("PATTERN SEQ(stock+ a[], stock b) WHERE skip_till_next_match { [symbol] and a[1].price % 5 = 0 "
         "and a[i].price > avg(a[..i-1].price) and b.volume < 200 } WITHIN 40 "
         "RETURN a[1].price AS first_price, avg(a[].price) AS avg_price")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=100_000, help="events per file (micro-batch)")
    ap.add_argument("--batches", type=int, default=6, help="files dropped one after the other")
    ap.add_argument("--symbols", type=int, default=100, help="keys (stock symbols)")
    ap.add_argument("--engine", help="engine (default: the streaming job's)")
    ap.add_argument("--partitions", type=int, help="state partitions (default: the session's)")
    ap.add_argument("--master", help="Spark master (default: cepkit's)")
    args = ap.parse_args(argv)

    from cepkit.spark_jobs.session import get_session
    from cepkit.spark_jobs.stream import run_stream
    from cepkit.spark_jobs.stream_source import StreamSource

    t0 = time.perf_counter()
    spark = get_session(args.master, **{"spark.sql.shuffle.partitions": str(args.partitions or 8)})
    print(f"session start {time.perf_counter() - t0:.1f} s")
    frame = generate(args.batch * args.batches, symbols=args.symbols, seed=1)
    root = tempfile.mkdtemp(prefix="cepkit-stream-bench-")
    src, staged = os.path.join(root, "src"), os.path.join(root, "staged")
    os.makedirs(src)
    os.makedirs(staged)
    for i in range(args.batches):
        frame.iloc[i * args.batch:(i + 1) * args.batch].to_parquet(os.path.join(staged, f"part-{i:04d}.parquet"),
                                                                     index=False)
    # the first file lands before the start (the schema comes from it); the others while the stream runs
    landed = {0: time.perf_counter()}
    os.rename(os.path.join(staged, "part-0000.parquet"), os.path.join(src, "part-0000.parquet"))
    done = threading.Event()
    results: list[tuple[float, int]] = []   # per file: landing to matches committed, its micro-batch's ms
    lock = threading.Lock()

    def land(i: int) -> None:
        with lock:
            if i in landed or i >= args.batches:
                return
            landed[i] = time.perf_counter()
            name = f"part-{i:04d}.parquet"
            os.rename(os.path.join(staged, name), os.path.join(src, name))

    def report(line: str) -> None:
        now = time.perf_counter()
        rows = int(line.split(": ", 1)[1].split(" rows in")[0])
        i = len(results)
        if not rows:  # the micro-batch without data that follows (the watermark moved): then the next file
            land(i)
            return
        ms = int(line.rsplit(" ms,", 1)[0].rsplit(", ", 1)[1])
        results.append((now - landed[i], ms))
        print(f"file {i}: landing to matches committed {results[-1][0]:.2f} s | {line}", flush=True)
        if i + 1 == args.batches:
            done.set()
            return
        threading.Timer(5.0, land, (i + 1,)).start()  # if Spark runs no micro-batch without data

    try:
        summary = run_stream(QUERY, StreamSource(path=src, max_files_per_trigger=1), os.path.join(root, "out"),
                             os.path.join(root, "ckpt"), engine=args.engine, spark=spark, report=report,
                             until=done.is_set)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    lat = [r[0] for r in results]
    if len(lat) > 1:
        steady = sorted(lat[1:])
        print(f"{args.batch} events per micro-batch, {args.symbols} keys, engine {summary.engine}: first batch "
              f"{lat[0]:.2f} s (Python workers start, engine loads); the next {len(steady)}: median "
              f"{steady[len(steady) // 2]:.2f} s, min {steady[0]:.2f} s, max {steady[-1]:.2f} s (the micro-batch "
              f"itself: median {sorted(r[1] for r in results[1:])[len(steady) // 2] / 1000:.2f} s); "
              f"{summary.matches} matches")


if __name__ == "__main__":
    main()
