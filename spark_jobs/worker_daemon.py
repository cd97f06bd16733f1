"""PySpark's Python worker daemon, started warm: it imports NumPy, pandas, pyarrow, Numba and the engine
modules once, then forks every Python worker from itself, so a new worker starts with them imported.
Selected by `spark.python.daemon.module` (spark_jobs.session.job_settings)."""
from __future__ import annotations

import importlib

PRELOAD = ("numpy", "pandas", "pyarrow", "pyarrow.compute", "numba", "reference.readers", "reference.registry",
           "optimized.engine", "spark_jobs.tasks")


def preload() -> None:
    """Import PRELOAD; a module that fails to import is left for the worker to report."""
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - the task imports it again and reports the error
            pass


if __name__ == "__main__":
    preload()
    from pyspark.daemon import manager

    manager()
