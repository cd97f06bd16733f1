"""A SparkSession whose Python workers run this environment's interpreter."""
from __future__ import annotations

import os
import sys

# all cores; local[N,F] lets a task fail F times before the job fails (plain local[*] never retries a task)
DEFAULT_MASTER = "local[*,2]"


def prepare_environment(master: str | None) -> None:
    """Workers must start this interpreter (else: no module named pandas); local Spark binds to loopback."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    if (master or DEFAULT_MASTER).startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")


def get_session(master: str | None = None, app_name: str = "cepkit", **conf: str):
    """The active session, or a new one on `master` (default DEFAULT_MASTER: all cores, a failed task
    retried once) with `conf` applied."""
    prepare_environment(master)
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    builder = SparkSession.builder.master(master or DEFAULT_MASTER).appName(app_name)
    settings = {"spark.ui.showConsoleProgress": "false", "spark.sql.session.timeZone": "UTC"}
    settings.update(conf)
    for key, value in settings.items():
        builder = builder.config(key, value)
    try:
        spark = builder.getOrCreate()
    except Exception as exc:  # the JVM did not start (no Java, a bad JAVA_HOME, a master that refuses us)
        from reference.errors import CepkitError

        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise CepkitError(f"cannot start Spark on master {master or DEFAULT_MASTER}: {first} (Spark needs Java 17+ "
                          "on PATH or in JAVA_HOME, and a reachable master)") from None
    spark.sparkContext.setLogLevel("ERROR")
    return spark
