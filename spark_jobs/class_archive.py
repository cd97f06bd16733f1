"""The Spark driver JVM's class-data-sharing archive (the JDK's dynamic CDS): the classes a first job loaded,
dumped once by `cepkit warm --spark` (`make install` runs it), then mapped by every later driver instead of being
loaded and verified again, so the session starts and each phase's first run is faster (docs/spark.md, "A fast
first run"). The archive is named after the Java binary and the PySpark installation it was made with; a driver
whose class path differs (its own SPARK_CONF_DIR, for one) does not use it, silently (the JVM's CDS log off)."""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DUMP_ENV = "CEPKIT_SPARK_CLASS_DUMP"   # set by `build` in its child: the file that child's driver dumps into
QUIET = "-Xlog:cds=off -Xlog:cds+dynamic=off"   # no JVM warning when an archive does not fit the class path
# the child of `build`: the Spark job over a few events, from CSV and from Parquet, by key and by time slice,
# so that the readers', the shuffle's, the sort's, the Arrow transfer's and the Parquet writer's classes load
WARM_JOBS = """
import sys, pandas as pd
from pathlib import Path
from cepkit.spark_jobs.job import run_job
tmp = Path(sys.argv[1])
frame = pd.DataFrame({"id": range(40), "ts": range(40), "type": ["A", "B"] * 20, "k": [0, 1, 2, 3] * 10,
                      "x": [float(i % 7) for i in range(40)]})
frame.to_csv(tmp / "e.csv", index=False)
frame.to_parquet(tmp / "e.parquet", index=False)
keyed = "PATTERN SEQ(A+ a[], B b) WHERE skip_till_next_match { [k] and b.x > a[1].x } WITHIN 10 RETURN avg(a[].x) AS m"
sliced = "PATTERN SEQ(A a, B b) WHERE b.x > a.x WITHIN 5 RETURN a.x AS ax"
for n, (query, events) in enumerate([(keyed, "e.csv"), (keyed, "e.parquet"), (sliced, "e.parquet")]):
    run_job(query, str(tmp / events), str(tmp / f"out{n}"))
"""


def java_binary() -> str | None:
    """The `java` Spark's launcher starts: $JAVA_HOME/bin/java, else the one on PATH."""
    home = os.environ.get("JAVA_HOME")
    if home:
        candidate = os.path.join(home, "bin", "java")
        return candidate if os.path.isfile(candidate) else None
    return shutil.which("java")


def archive_path() -> Path | None:
    """Where the archive for this Java and this PySpark is (or would be); None without a Java or a PySpark."""
    java = java_binary()
    try:
        import pyspark  # lazy: only where a Spark session starts

        real = os.path.realpath(java) if java else None
        key = f"{real}|{os.stat(real).st_mtime_ns}|{pyspark.__version__}|{os.path.dirname(pyspark.__file__)}" \
            if real else None
    except (ImportError, OSError):
        return None
    if key is None:
        return None
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "cepkit" / "jvm"
    return root / f"spark-driver-{hashlib.sha1(key.encode()).hexdigest()[:12]}.jsa"


def java_options() -> str:
    """The driver JVM's options for the archive: dump into $CEPKIT_SPARK_CLASS_DUMP (in `build`'s child), else
    map the archive where one was built; "" otherwise."""
    dump = os.environ.get(DUMP_ENV)
    if dump:
        return f"-XX:ArchiveClassesAtExit={dump} {QUIET}"
    path = archive_path()
    return f"-XX:SharedArchiveFile={path} {QUIET}" if path is not None and path.is_file() else ""


def build(timeout: float = 600) -> str:
    """Make the archive: WARM_JOBS in a child process whose driver dumps its classes at exit, the file then put
    in place whole. Returns a line saying what happened (a failure never raises: a warm-up never stops an
    install)."""
    path = archive_path()
    if path is None:
        return "no class archive: no Java or no PySpark here"
    path.parent.mkdir(parents=True, exist_ok=True)
    dump = path.with_name(f"{path.name}.{os.getpid()}.part")
    with tempfile.TemporaryDirectory(prefix="cepkit-class-archive-") as tmp:
        try:
            done = subprocess.run([sys.executable, "-c", WARM_JOBS, tmp], env={**os.environ, DUMP_ENV: str(dump)},
                                  capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            done = None
    if done is None or done.returncode != 0 or not dump.is_file():
        dump.unlink(missing_ok=True)
        why = "timed out" if done is None else (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        return f"no class archive: its Spark jobs failed ({why})"
    os.replace(dump, path)
    return f"class archive {path} ({path.stat().st_size / 2**20:.0f} MiB)"
