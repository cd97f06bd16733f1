"""A real Spark standalone cluster on this machine: one master and N workers, each a separate JVM started
with the `spark-class` launcher that ships with PySpark, bound to 127.0.0.1, each worker with its own work
directory, its own HOME and its own empty compile caches (Numba's and cepkit's), so that what a cluster does
differently from `local[...]` (executors in their own processes, no shared home or compile cache, a task
lost with its executor) is exercised. For the tests (tests/spark/test_cluster.py) and `make demo CLUSTER=1`.

    with LocalCluster(workers=2) as cluster:
        run_job(..., master=cluster.url)       # or: cepkit spark run --master <cluster.url> ...
        cluster.kill_worker(0)                 # the worker and its executor, by process group

    python -m cepkit.spark_jobs.local_cluster [--workers 2]    # starts one, prints its URLs, waits for Ctrl-C
"""
from __future__ import annotations

import json
import os
import shlex
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

from cepkit.core.errors import CepkitError

START_TIMEOUT = 90.0   # seconds for the master to listen and every worker to register
DAEMON_MEMORY = "256m"  # the master's and workers' own JVM heaps (the executors get spark.executor.memory)


def spark_class() -> Path:
    """PySpark's `bin/spark-class` launcher."""
    import pyspark  # lazy: only where a cluster is started

    path = Path(pyspark.__file__).resolve().parent / "bin" / "spark-class"
    if not path.exists():
        raise CepkitError(f"no spark-class launcher at {path} (PySpark installed without its bin folder)")
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalCluster:
    """A standalone master and `workers` workers of `cores` cores and `memory` each, in folders under `root`
    (a new temporary folder when None, removed by `stop`); `url` is the master's `spark://` URL."""

    def __init__(self, workers: int = 2, cores: int = 1, memory: str = "1g", root: str | None = None,
                 read_only: tuple[str, ...] = (), java_options: str = "") -> None:
        self.n_workers, self.cores, self.memory = workers, cores, memory
        self.java_options = java_options   # every JVM of the cluster: its daemons, and drivers/executors (app_env)
        self.read_only = tuple(str(Path(p).resolve()) for p in read_only)
        self._own_root = root is None
        self.root = Path(root or tempfile.mkdtemp(prefix="cepkit-cluster-"))
        self.port, self.ui_port = free_port(), free_port()
        self.url = f"spark://127.0.0.1:{self.port}"
        self.ui = f"http://127.0.0.1:{self.ui_port}"
        self.master: subprocess.Popen | None = None
        self.workers: list[subprocess.Popen | None] = []

    def app_env(self) -> dict[str, str]:
        """Environment for a driver process of this cluster: its executors and itself get `java_options`
        (java_options_env)."""
        return java_options_env(self.java_options)

    # ------------------------------------------------------------------ start and stop
    def __enter__(self) -> "LocalCluster":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> None:
        """Start the master, then the workers; return once every worker is registered (CepkitError naming
        the log to read when one does not start)."""
        try:
            self.master = self._launch("master", ["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                                                  "--port", str(self.port), "--webui-port", str(self.ui_port)])
            self._wait(lambda: self._listening(self.port), "the master to listen", "master")
            for i in range(self.n_workers):
                self.workers.append(self._start_worker(i))
            self._wait(lambda: len(self.alive_workers()) >= self.n_workers, f"{self.n_workers} workers to register",
                       "worker-0")
        except BaseException:
            self.stop()
            raise

    def _start_worker(self, i: int) -> subprocess.Popen:
        home = self.root / f"worker-{i}"
        return self._launch(f"worker-{i}", ["org.apache.spark.deploy.worker.Worker", self.url, "--host", "127.0.0.1",
                                            "--cores", str(self.cores), "--memory", self.memory,
                                            "--work-dir", str(home / "work"), "--webui-port", str(free_port())],
                            {"NUMBA_CACHE_DIR": str(home / "numba-cache"), "CEPKIT_CACHE": str(home / "cepkit-cache"),
                             "XDG_CACHE_HOME": str(home / "cache")}, self.read_only)

    def _launch(self, name: str, args: list[str], extra: dict[str, str] | None = None,
                read_only: tuple[str, ...] = ()) -> subprocess.Popen:
        home = self.root / name
        (home / "work").mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "CEPKIT_CACHE", "SPARK_HOME")}
        env.update({"HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_LOG_DIR": str(home),
                    "SPARK_WORKER_DIR": str(home / "work"), "SPARK_DAEMON_MEMORY": DAEMON_MEMORY,
                    **({"SPARK_DAEMON_JAVA_OPTS": self.java_options} if self.java_options else {}),
                    **(extra or {})})
        log = open(self.root / f"{name}.log", "wb")
        try:
            return subprocess.Popen(read_only_view(read_only, [str(spark_class()), *args]), stdout=log, stderr=subprocess.STDOUT, env=env,
                                    cwd=str(home), start_new_session=True)
        finally:
            log.close()

    def stop(self) -> None:
        """Stop the workers (with their executors) and the master; remove the folders this object made."""
        for proc in [*self.workers, self.master]:
            if proc is not None and proc.poll() is None:
                _signal_group(proc, signal.SIGTERM)
        for proc in [*self.workers, self.master]:
            if proc is not None:
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    _signal_group(proc, signal.SIGKILL)
                    proc.wait()
                _signal_group(proc, signal.SIGKILL)   # an executor left in the group
        self.workers, self.master = [], None
        if self._own_root:
            import shutil  # lazy: only at the end

            shutil.rmtree(self.root, ignore_errors=True)

    def kill_worker(self, i: int) -> None:
        """SIGKILL worker i and the executor it launched (one process group): a machine lost mid-job."""
        proc = self.workers[i]
        if proc is not None:
            _signal_group(proc, signal.SIGKILL)
            proc.wait()

    def restart_worker(self, i: int) -> None:
        """Start worker i again (killed or not) and wait until it registered (same folders, same caches)."""
        self.kill_worker(i)
        before = {w.get("id") for w in self.alive_workers()}
        self.workers[i] = self._start_worker(i)
        self._wait(lambda: any(w.get("id") not in before for w in self.alive_workers()), f"worker {i} to register",
                   f"worker-{i}")

    # ------------------------------------------------------------------ state
    def state(self) -> dict:
        """The master's JSON view (workers, applications), {} while it does not answer."""
        try:
            with urllib.request.urlopen(f"{self.ui}/json/", timeout=2) as r:
                return json.load(r)
        except (OSError, ValueError):
            return {}

    def alive_workers(self) -> list[dict]:
        return [w for w in self.state().get("workers", []) if w.get("state") == "ALIVE"]

    def log(self, name: str) -> Path:
        return self.root / f"{name}.log"

    @staticmethod
    def _listening(port: int) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
        except OSError:
            return False

    def _wait(self, ready, what: str, log_name: str) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while not ready():
            dead = [p for p in [self.master, *self.workers] if p is not None and p.poll() is not None]
            if dead or time.monotonic() > deadline:
                tail = self.log(log_name).read_text(errors="replace").strip().splitlines()[-1:] \
                    if self.log(log_name).exists() else []
                raise CepkitError(f"the local Spark cluster did not start: waited for {what} "
                                  f"({'a process ended' if dead else f'{START_TIMEOUT:.0f} s'}); see "
                                  f"{self.log(log_name)}{': ' + tail[0] if tail else ''}")
            time.sleep(0.2)


def java_options_env(java_options: str) -> dict[str, str]:
    """Environment for a driver process whose JVM and executors' JVMs get `java_options`: PYSPARK_SUBMIT_ARGS
    setting Spark's *.defaultJavaOptions (a job's own extraJavaOptions still apply; not a SPARK_CONF_DIR, which
    joins the driver's class path and keeps it from mapping the class archive, spark_jobs/class_archive.py);
    {} without java_options."""
    if not java_options:
        return {}
    confs = " ".join(f"--conf {shlex.quote(f'spark.{side}.defaultJavaOptions={java_options}')}"
                     for side in ("driver", "executor"))
    return {"PYSPARK_SUBMIT_ARGS": f"{confs} pyspark-shell"}


def read_only_view(paths: tuple[str, ...], command: list[str]) -> list[str]:
    """`command` run where each of `paths` is a read-only mount (its own mount namespace, `unshare -m`; the
    same process, so its process group is the command's): a machine on which a worker cannot write there."""
    if not paths:
        return command
    mounts = " && ".join(f"mount --bind -o ro {shlex.quote(p)} {shlex.quote(p)}" for p in paths)
    return ["unshare", "-m", "sh", "-c", f'{mounts} && exec "$@"', "sh", *command]


def can_mount_read_only() -> bool:
    """Whether this machine lets read_only_view's command run (unshare -m and a bind mount need privileges)."""
    probe = tempfile.mkdtemp(prefix="cepkit-ro-")
    try:
        done = subprocess.run(read_only_view((probe,), ["sh", "-c", f"! touch {shlex.quote(probe)}/x"]),
                              capture_output=True, timeout=10)
        return done.returncode == 0 and not os.path.exists(os.path.join(probe, "x"))
    except (OSError, subprocess.TimeoutExpired):
        return False
    finally:
        import shutil  # lazy: only here and at the end

        shutil.rmtree(probe, ignore_errors=True)


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _interrupted(*_) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    import argparse  # lazy: the command only

    ap = argparse.ArgumentParser(description="start a local Spark standalone cluster and wait (Ctrl-C or SIGTERM "
                                             "stops it)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--cores", type=int, default=1)
    ap.add_argument("--memory", default="1g")
    args = ap.parse_args(argv)
    signal.signal(signal.SIGTERM, _interrupted)   # `kill`, a supervisor: stopped as by Ctrl-C, no daemon left
    try:   # an interrupt at any point, the start included: the cluster stopped (LocalCluster's exit), exit 0
        with LocalCluster(args.workers, args.cores, args.memory) as cluster:
            print(f"master: {cluster.url}\nmaster UI: {cluster.ui}\nlogs: {cluster.root}", flush=True)
            while True:
                time.sleep(3600)
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
