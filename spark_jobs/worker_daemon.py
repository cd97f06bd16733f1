"""PySpark's Python worker daemon, started warm: it imports NumPy, pandas, pyarrow, Numba and the engine
modules once, then forks every Python worker from itself, so a new worker starts with them imported.
Selected by `spark.python.daemon.module` (cepkit.spark_jobs.session.job_settings)."""
from __future__ import annotations

import importlib

PRELOAD = ("numpy", "pandas", "pyarrow", "pyarrow.compute", "numba", "cepkit.core.readers", "cepkit.core.registry",
           "cepkit.spark_jobs.tasks")


def preload() -> None:
    """Import PRELOAD and the SASE+ engines the registry has (the engine modules a task loads); what fails
    to import is left for the worker to report."""
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - the task imports it again and reports the error
            pass
    try:
        # lazy: a failed import must not stop the daemon (the task imports it again and reports the error)
        from cepkit.core import registry
        engines = registry.engines_for("sase")
    except Exception:  # noqa: BLE001 - as above
        return
    for engine in engines:
        try:
            registry.get_engine("sase", engine)
        except Exception:  # noqa: BLE001 - an engine whose extra is missing; a task using it reports that
            pass


if __name__ == "__main__":
    preload()
    from pyspark.daemon import manager

    manager()
