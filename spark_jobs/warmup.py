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
    """The cache settings the executors' Python workers must share with the driver: $NUMBA_CACHE_DIR
    where set (else Numba caches beside the engine's sources, the same files for local workers) and
    cepkit's generated-code directory."""
    from optimized.cache import cache_dir

    env = {"CEPKIT_CACHE": os.fspath(cache_dir())}
    if os.environ.get("NUMBA_CACHE_DIR"):
        env["NUMBA_CACHE_DIR"] = os.environ["NUMBA_CACHE_DIR"]
    return env


def cache_roots() -> list[Path]:
    """The directories Numba writes the engine's machine code under: $NUMBA_CACHE_DIR, else the
    `__pycache__` folders of the `optimized` package; and cepkit's generated modules (optimized.cache)."""
    import optimized
    from optimized.cache import cache_dir

    numba_dir = os.environ.get("NUMBA_CACHE_DIR")
    return [Path(numba_dir) if numba_dir else Path(optimized.__file__).parent, cache_dir()]


def cache_snapshot() -> dict[str, int]:
    """{cache file: modification time} of the Numba cache files of the engine: every one under the first
    of `cache_roots`, and those of the generated modules this process has loaded under the second (other
    queries' modules there are not this job's)."""
    import sys

    numba_root, generated = cache_roots()
    loaded = tuple(name + "." for name in sys.modules if name.startswith("cepkit_"))
    found: dict[str, int] = {}
    for root, wanted in ((numba_root, None), (generated, loaded)):
        if wanted == ():
            continue
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
