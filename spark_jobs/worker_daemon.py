"""PySpark's Python worker daemon, started warm: it imports NumPy, pandas, pyarrow, Numba and the engine
modules once, then forks every Python worker from itself, so a new worker starts with them imported.
Selected by `spark.python.daemon.module` (cepkit.spark_jobs.session.job_settings)."""
from __future__ import annotations

import importlib

PRELOAD = ("numpy", "pandas", "pyarrow", "pyarrow.compute", "numba", "cepkit.core.readers", "cepkit.core.registry",
           "cepkit.spark_jobs.tasks")


# one tiny query per language the Spark jobs run: parsing it builds that language's parser (lark's tables and
# lexers), which every task parsing its query would otherwise build again in its own worker
PARSED = {"sase": "PATTERN SEQ(A a, B b) WITHIN 1",
          "sql": "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A) DEFINE A AS true)",
          "tpstream": "FROM s DEFINE A AS x > 0, B AS x < 0 PATTERN A before B WITHIN 1"}


def preload() -> None:
    """Import PRELOAD and the SASE+ engines the registry has (the engine modules a task loads), initialise
    Numba (its extensions and its typing and target contexts: the first kernel a worker loads from the cache
    paid about 0.2 s for them) and build the parsers (PARSED); what fails is left for the worker to report."""
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
    for lang, text in PARSED.items():
        try:
            registry.parse(lang, text)
        except Exception:  # noqa: BLE001 - a task parsing its own query reports what fails
            pass
    try:
        from numba.core import entrypoints
        from numba.core.registry import cpu_target

        entrypoints.init_all()
        cpu_target.typing_context.refresh()
        cpu_target.target_context.refresh()
    except Exception:  # noqa: BLE001 - the first kernel a task loads initialises them, and reports what fails
        pass


if __name__ == "__main__":
    preload()
    from pyspark.daemon import manager

    manager()
