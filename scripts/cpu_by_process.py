"""Run a command and print the CPU seconds its run used per kind of process on this machine (Linux /proc):
the Spark drivers' and executors' JVMs, the cluster's daemons, the Python workers, pytest's processes. The
profile behind docs/spark.md "Test time".

    python scripts/cpu_by_process.py -- pytest -q -n 2 tests/spark

Processes are polled every 0.25 s, so one that starts and ends between two polls is missed; CPU that processes
already running had used before the command started is not counted.
"""
from __future__ import annotations

import collections
import os
import subprocess
import sys
import threading
import time

TICK = os.sysconf("SC_CLK_TCK")
KINDS = (("deploy.master.Master", "Spark master JVM"), ("deploy.worker.Worker", "Spark worker JVM"),
         ("CoarseGrainedExecutorBackend", "Spark executor JVM"))


def kind(cmd: list[str]) -> str:
    """The kind of process a command line is."""
    line = " ".join(cmd)
    if cmd and cmd[0].endswith("/java"):
        found = next((name for key, name in KINDS if key in line), None)
        if found:
            return found
        if "SparkSubmit" in line:
            return "Spark driver JVM (" + ("cluster" if "spark://" in line else "local") + ")"
        return "other JVM"
    if "pyspark.daemon" in line or "spark_jobs.worker_daemon" in line:
        return "Python workers (daemon and forks)"
    if "exec(eval(sys.stdin" in line or "pytest" in line:
        return "pytest processes"
    name = os.path.basename(cmd[0]) if cmd else "?"
    return "other Python" if "python" in name else f"other: {name}"


def cpu_of(pid: str) -> tuple[str, float] | None:
    """(the process's start time, its CPU seconds so far)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            rest = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return rest[19], (int(rest[11]) + int(rest[12])) / TICK


def sample(done: threading.Event, me: int) -> dict:
    """Each process's kind and the CPU it used since the first poll, until `done`."""
    base: dict = {}
    used: dict = {}
    first = True
    while not done.is_set():
        for pid in filter(str.isdigit, os.listdir("/proc")):
            if int(pid) == me:
                continue
            now = cpu_of(pid)
            if now is None:
                continue
            key = (pid, now[0])
            if first:
                base[key] = now[1]
                continue
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmd = [c.decode(errors="replace") for c in f.read().split(b"\0") if c]
            except OSError:
                cmd = []
            # a command line as it last read (a launcher's becomes its JVM's; an ended process's is empty)
            name = kind(cmd) if cmd else used.get(key, ("other: ?", 0.0))[0]
            used[key] = (name, now[1] - base.get(key, 0.0))
        first = False
        done.wait(0.25)
    return used


def main(argv: list[str]) -> int:
    command = argv[argv.index("--") + 1:] if "--" in argv else argv
    if not command:
        print(__doc__.strip().splitlines()[3], file=sys.stderr)
        return 2
    done, out = threading.Event(), {}
    poller = threading.Thread(target=lambda: out.update(sample(done, os.getpid())))
    poller.start()
    time.sleep(0.3)   # the first poll: what runs already
    start = time.monotonic()
    code = subprocess.call(command)
    wall = time.monotonic() - start
    done.set()
    poller.join()
    totals = collections.defaultdict(lambda: [0.0, 0])
    for name, seconds in out.values():
        totals[name][0] += seconds
        totals[name][1] += 1
    print(f"\n{wall:.1f} s wall; CPU seconds by kind of process (processes seen):")
    for name, (seconds, n) in sorted(totals.items(), key=lambda kv: -kv[1][0]):
        if seconds >= 0.5:
            print(f"{seconds:8.1f}  {name} ({n})")
    return code


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
