"""Compile the engine code the tasks need once, in the driver, before the matching stage: the task body
runs over a small sample of the stage's own input, so Numba compiles (or loads) every kernel with the
signatures the tasks will use and writes it to the cache directory the executors' Python workers read
($NUMBA_CACHE_DIR, else beside the engine's sources; `cache_env`). Tasks then load machine code instead of
compiling it: `counting` counts the compilations each task does (Numba's compile events in the task's own
worker, summed in a Spark accumulator)."""
from __future__ import annotations

import dataclasses
import os
from typing import Any, Callable, Iterator, Sequence

import pyarrow as pa

from cepkit.core.compiles import Compiles
from cepkit.spark_jobs import tasks as T
from cepkit.spark_jobs.worker_daemon import preload

SAMPLE_ROWS = 2_000


def cache_env() -> dict[str, str]:
    """The cache settings the executors' Python workers must share with the driver, where set:
    $NUMBA_CACHE_DIR (else Numba caches beside the engine's sources, the same files for local workers)
    and $CEPKIT_CACHE (generated per-query modules; else the same default directory)."""
    return {k: os.environ[k] for k in ("NUMBA_CACHE_DIR", "CEPKIT_CACHE") if os.environ.get(k)}


def warm(body: Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]], sample: pa.Table,
         order: Sequence[str]) -> int:
    """Run a task body (tasks.match_partition, generic_tasks.match_groups) over `sample` (rows of the
    matching stage's input, any order), sorted by the `order` columns it has, in this process; returns the
    number of output rows. An error in the sample is left for the tasks to report."""
    if sample.num_rows == 0:
        return 0
    keys = [c for c in dict.fromkeys(order) if c in sample.column_names]
    sample = sample.sort_by([(c, "ascending") for c in keys])
    try:
        return sum(b.num_rows for b in body(iter(sample.to_batches())))
    except Exception:  # noqa: BLE001 - the tasks meet the same rows and report them
        return 0


def without_failures(spec: T.TaskSpec) -> T.TaskSpec:
    """The spec with the tests' failure injection off (for the driver's own run of the task body)."""
    return dataclasses.replace(spec, fail_once_marker=None, fail_first_attempt=None)


def start_workers(spark):
    """Start the executors' Python workers now, in a background Spark job (one tiny task per core), so
    that they import NumPy, pandas, pyarrow, Numba and the engine while the driver's checks and statistics
    pass run; reused workers (spark.python.worker.reuse) then serve the matching stage. An Arrow job, as the
    matching stage is: Spark keeps one worker daemon per kind of Python job, and an RDD job's workers
    (mapPartitions) do not serve a `mapInArrow` stage. Returns the thread; its `pids` are the workers' process
    ids once it ended."""
    import threading

    cores = max(1, spark.sparkContext.defaultParallelism)
    pids: list[int] = []

    def job() -> None:
        try:
            rows = spark.range(cores, numPartitions=cores).mapInArrow(_import_engine, "pid long").collect()
            pids.extend(r["pid"] for r in rows)
        except Exception:  # noqa: BLE001 - only a head start; the matching stage starts its own workers
            pass

    thread = threading.Thread(target=job, name="cepkit-start-workers", daemon=True)
    thread.pids = pids
    thread.start()
    return thread


def _import_engine(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    preload()
    for _ in batches:
        pass
    yield pa.RecordBatch.from_pydict({"pid": [os.getpid()]})


def counting(fn: Any, compiled: Any):
    """The task function `fn` (one argument: an iterator of batches, or a pandas group) with the Numba
    compilations it causes in its worker added to the accumulator `compiled` (a cache load is not one)."""
    def body(arg):
        compiles = Compiles().start()
        try:
            out = fn(arg)
        except BaseException:
            _close(compiles, compiled)
            raise
        if hasattr(out, "__next__"):   # mapInArrow: a generator, consumed by Spark after this returns
            return _counted_iter(out, compiles, compiled)
        _close(compiles, compiled)
        return out

    return body


def _counted_iter(batches: Iterator, compiles: Any, compiled: Any) -> Iterator:
    try:
        yield from batches
    finally:
        _close(compiles, compiled)


def _close(compiles: Any, compiled: Any) -> None:
    compiles.stop()
    compiled.add(compiles.count)
