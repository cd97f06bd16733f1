"""A SparkSession whose Python workers run this environment's interpreter."""
from __future__ import annotations

import os
import sys
from cepkit.core.errors import CepkitError
from cepkit.spark_jobs import class_archive
from cepkit.spark_jobs.failures import log_path

# all cores; local[N,F] lets a task fail F times before the job fails (plain local[*] never retries a task)
DEFAULT_MASTER = "local[*,2]"
# the Python workers' daemon: imports NumPy, pandas, pyarrow, Numba and the engine once, before it forks
# each worker (spark_jobs/worker_daemon.py); $CEPKIT_SPARK_DAEMON overrides it ("" keeps PySpark's own)
DAEMON_MODULE = os.environ.get("CEPKIT_SPARK_DAEMON", "cepkit.spark_jobs.worker_daemon")
# Spark's console log as the session starts (warnings, no native-Hadoop note, no "Setting default log level")
QUIET_START = os.path.join(os.path.dirname(os.path.abspath(__file__)), "log4j2-quiet.properties")


def log_settings() -> tuple[dict[str, str], str | None]:
    """(session settings, setLogLevel's level or None) of Spark's log: nothing on the console below FATAL, its
    warnings, errors and traces in the driver's log file (QUIET_START, failures.log_path()), so that a failed
    task is cepkit's one-line error and not ~200 lines of Java and Python traces per attempt.
    CEPKIT_SPARK_LOG=WARN|INFO|ERROR|DEBUG keeps Spark's own console log at that level (docs/spark.md)."""
    level = os.environ.get("CEPKIT_SPARK_LOG", "").strip().upper()
    if level:
        return {}, level
    return {"spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile={QUIET_START} "
                                             f"-Dcepkit.spark.log={log_path()}"}, None


def check_reachable(master: str, timeout: float = 5.0) -> None:
    """A standalone master (`spark://host:port[,host:port...]`) must accept a connection: CepkitError naming it
    at once, where Spark would retry for about a minute and then print its traces. Other masters (local,
    yarn, k8s://) are Spark's to reach."""
    import socket

    if not master.startswith("spark://"):
        return
    failures = []
    for address in master[len("spark://"):].split(","):
        host, _, port = address.strip().rpartition(":")
        try:
            with socket.create_connection((host or address, int(port or 7077)), timeout=timeout):
                return
        except (OSError, ValueError) as exc:
            failures.append(f"{address}: {exc.strerror or exc}" if isinstance(exc, OSError) else f"{address}: {exc}")
    raise CepkitError(f"cannot reach the Spark master {master} ({'; '.join(failures)}): start it, or check the "
                      "URL given to --master")


def master_cores(master: str | None) -> int:
    """The cores a local master uses (local, local[N], local[N,F], local[*]); other masters: this machine's."""
    import re

    found = re.fullmatch(r"local(?:\[(\*|\d+)(?:,\d+)?\])?", master or DEFAULT_MASTER)
    if found is None or found.group(1) in (None, "*"):
        return (os.cpu_count() or 1) if found is None or found.group(1) == "*" else 1
    return max(1, int(found.group(1)))


def job_settings(master: str | None, cache_env: dict[str, str]) -> dict[str, str]:
    """The Spark job's session settings for a fast first run (docs/spark.md, "A fast first run"): Python
    workers reused across tasks and started warm by DAEMON_MODULE; the shuffle of the statistics pass
    in a few partitions, not 200; the caches the driver compiled into (`cache_env`) seen by the executors."""
    cores = master_cores(master)
    conf = {"spark.sql.execution.arrow.maxRecordsPerBatch": "100000",
            "spark.python.worker.reuse": "true",
            "spark.sql.shuffle.partitions": str(2 * cores),
            "spark.sql.adaptive.enabled": "true",
            "spark.sql.adaptive.coalescePartitions.enabled": "true"}
    if DAEMON_MODULE:
        conf["spark.python.daemon.module"] = DAEMON_MODULE
    conf.update({f"spark.executorEnv.{k}": v for k, v in cache_env.items()})
    return conf


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
    check_reachable(master or DEFAULT_MASTER)
    builder = SparkSession.builder.master(master or DEFAULT_MASTER).appName(app_name)
    start_conf, level = log_settings()
    settings = {"spark.ui.showConsoleProgress": "false", "spark.sql.session.timeZone": "UTC", **start_conf}
    settings.update(conf)
    archive = class_archive.java_options()   # the driver's classes mapped, not loaded (`cepkit warm --spark`)
    if archive:
        key = "spark.driver.extraJavaOptions"
        settings[key] = f"{settings.get(key, '')} {archive}".strip()
    for key, value in settings.items():
        builder = builder.config(key, value)
    try:
        spark = builder.getOrCreate()
    except Exception as exc:  # the JVM did not start (no Java, a bad JAVA_HOME, a master that refuses us)

        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise CepkitError(f"cannot start Spark on master {master or DEFAULT_MASTER}: {first} (Spark needs Java 17+ "
                          "on PATH or in JAVA_HOME, and a reachable master)") from None
    if level is not None:
        spark.sparkContext.setLogLevel(level)
    return spark
