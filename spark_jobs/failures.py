"""A Spark job that failed for a reason that is not cepkit's own error (a worker that died, an executor that
cannot import cepkit, an output path a worker cannot write): one line saying what failed and where, with
Spark's own Java and Python traces written to a log file whose path the line names (docs/spark.md "Errors")."""
from __future__ import annotations

import os
import re
import tempfile
import time

from cepkit.core.errors import CepkitError

LOG_PREFIX = "cepkit-spark-"   # + the driver's process id + ".log", in the temporary directory
# the lines of Spark's text that say what failed, best first: a Python error's last line, a Java cause
_PY_ERROR = re.compile(r"^(\w+(?:\.\w+)*(?:Error|Exception)): (.+)$", re.MULTILINE)
_NO_MODULE = re.compile(r"(\S+): Error while finding module specification for 'cepkit")
_WRAPPERS = ("PythonException", "Py4JJavaError", "SparkException")   # say that something failed, not what
_HADOOP_NOISE = re.compile(r" \(exists=\w+, cwd=[^)]*\)")   # Hadoop's mkdirs failure appends the task's cwd
_LOST_TASK = re.compile(r"Lost task [\d.]+ in stage [\d.]+ \(TID \d+\) \(([^ )]+) executor ([^)]+)\): ([^\n]+)")


def log_path() -> str:
    """This driver's log of Spark failures."""
    return os.path.join(tempfile.gettempdir(), f"{LOG_PREFIX}{os.getpid()}.log")


def summary(text: str) -> str:
    """What failed and where, from Spark's text of a failed job: the executor (host and id) a task was lost
    on and the error it met (a Python error's last line where there is one), else the first line."""
    where = ""
    lost = _LOST_TASK.search(text)
    if lost:
        where = f" on executor {lost.group(2)} ({lost.group(1)})"
        cause = lost.group(3).strip()
    else:
        cause = next((line.strip() for line in text.splitlines() if line.strip()), "no message")
    py = [m for m in _PY_ERROR.finditer(text) if not m.group(1).endswith(_WRAPPERS)]
    if py:
        cause = f"{py[-1].group(1).rsplit('.', 1)[-1]}: {py[-1].group(2).strip()}"
    if "No module named 'cepkit'" in text:
        python = _NO_MODULE.search(text)
        cause = (f"the executors' Python{' ' + python.group(1) if python else ''} cannot import cepkit: install "
                 "cepkit in the Python every executor runs (spark.pyspark.python, PYSPARK_PYTHON)")
    return f"{_HADOOP_NOISE.sub('', cause)}{where}"


def spark_failure(exc: BaseException, what: str = "the Spark job") -> CepkitError:
    """The one-line error for a failed Spark action, its full text appended to log_path()."""
    text = f"{type(exc).__name__}: {exc}"
    java = getattr(exc, "java_exception", None)   # Py4JJavaError: the JVM's stack trace
    if java is not None:
        try:
            text += "\n" + str(java.toString())
        except Exception:  # noqa: BLE001 - the JVM may be gone; the text above remains
            pass
    path = log_path()
    try:
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"==== {time.strftime('%Y-%m-%d %H:%M:%S')} {what} failed\n{text}\n")
        shown = f"Spark's traces: {path}"
    except OSError:
        shown = "Spark's traces could not be written to a log"
    return CepkitError(f"{what} failed: {summary(text)} ({shown})")
