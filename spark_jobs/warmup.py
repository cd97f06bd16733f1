"""Compile the engine code the tasks need once, in the driver, before the matching stage: the task body
runs over a small sample of the stage's own input, so Numba compiles (or loads) every kernel with the
signatures the tasks will use and writes it to the cache directory the executors' Python workers read
(`cache_roots`). Tasks then load machine code instead of compiling it; `cache_writes` measures that."""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pyarrow as pa

from spark_jobs import tasks as T

SAMPLE_ROWS = 2_000
CACHE_SUFFIXES = (".nbi", ".nbc")


def cache_env() -> dict[str, str]:
    """The cache settings the executors' Python workers must share with the driver, where set:
    $NUMBA_CACHE_DIR (else Numba caches beside the engine's sources, the same files for local workers)
    and $CEPKIT_CACHE (generated per-query modules; else the same default directory)."""
    return {k: os.environ[k] for k in ("NUMBA_CACHE_DIR", "CEPKIT_CACHE") if os.environ.get(k)}


def cache_roots() -> tuple[list[Path], list[Path]]:
    """Where Numba writes the engine's machine code: ($NUMBA_CACHE_DIR, else the folders of the engine
    package `optimized`, whose `__pycache__` it uses), and the folders of the generated modules this
    process has loaded (`cepkit_*`, optimized/cache.py; without $NUMBA_CACHE_DIR their cache is beside them)."""
    import importlib.util

    numba_dir = os.environ.get("NUMBA_CACHE_DIR")
    if numba_dir:
        engine = [Path(numba_dir)]
    else:
        spec = importlib.util.find_spec("optimized")
        engine = [Path(p) for p in (spec.submodule_search_locations or [])] if spec else []
    return engine, sorted({Path(m.__file__).parent for m in _generated()})


def _generated() -> list:
    import sys

    return [m for name, m in list(sys.modules.items()) if name.startswith("cepkit_") and getattr(m, "__file__", None)]


def cache_snapshot() -> dict[str, int]:
    """{cache file: modification time} of the engine's Numba cache files: every one under the engine's
    roots (`cache_roots`), and those of the loaded generated modules under theirs (that directory holds
    other queries' modules too, which are not this job's)."""
    engine, generated_dirs = cache_roots()
    names = tuple(m.__name__ + "." for m in _generated())
    found: dict[str, int] = {}
    for roots, wanted in ((engine, None), (generated_dirs, names)):
        for root in roots:
            for dirpath, _, files in os.walk(root):
                for name in files:
                    if name.endswith(CACHE_SUFFIXES) and (wanted is None or name.startswith(wanted)):
                        path = os.path.join(dirpath, name)
                        try:
                            found[path] = os.stat(path).st_mtime_ns
                        except FileNotFoundError:
                            pass
    return found


def cache_writes(before: dict[str, int]) -> int:
    """Cache files written since `before` (Numba writes one whenever it compiles a cached function)."""
    return sum(1 for path, mtime in cache_snapshot().items() if before.get(path) != mtime)


def warm(spec: T.TaskSpec, sample: pa.Table) -> int:
    """Run the task body over `sample` (rows of the matching stage's input, any order) in this process;
    returns the number of output rows. Failure injection is off; an error in the sample is left for the
    tasks to report."""
    spec = dataclasses.replace(spec, fail_once_marker=None, fail_first_attempt=None)
    if sample.num_rows == 0:
        return 0
    order = [(c, "ascending") for c in (*spec.group_cols, spec.ts_col, spec.id_col) if c in sample.column_names]
    sample = sample.sort_by(order)
    try:
        return sum(b.num_rows for b in T.match_partition(spec, iter(sample.to_batches())))
    except Exception:  # the tasks meet the same rows and report them
        return 0


def start_workers(spark):
    """Start the executors' Python workers now, in a background Spark job (one tiny task per core), so
    that they import NumPy, pandas, pyarrow, Numba and the engine while the driver's checks and statistics
    pass run; reused workers (spark.python.worker.reuse) then serve the matching stage. Returns the thread."""
    import threading

    sc = spark.sparkContext
    cores = max(1, sc.defaultParallelism)

    def job() -> None:
        try:
            sc.parallelize(range(cores), cores).mapPartitions(_import_engine).collect()
        except Exception:  # noqa: BLE001 - only a head start; the matching stage starts its own workers
            pass

    thread = threading.Thread(target=job, name="cepkit-start-workers", daemon=True)
    thread.start()
    return thread


def _import_engine(rows):
    from spark_jobs.worker_daemon import preload

    preload()
    return [sum(1 for _ in rows)]
