"""`python -m cepkit.spark_jobs.local_cluster`: it prints where the cluster is, and SIGTERM stops it as Ctrl-C
does, its daemons and its folder gone (a master alone here: `--workers 0`)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.spark.helpers import TEST_JVM


def test_sigterm_stops_the_cluster_and_removes_its_folder():
    env = {**os.environ, "SPARK_DAEMON_JAVA_OPTS": TEST_JVM}
    proc = subprocess.Popen([sys.executable, "-m", "cepkit.spark_jobs.local_cluster", "--workers", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        lines = [proc.stdout.readline() for _ in range(3)]
        assert lines[0].startswith("master: spark://127.0.0.1:"), (lines, proc.stderr.read())
        root = Path(lines[2].split("logs: ", 1)[1].strip())
        assert root.is_dir()
        master = [p for p in Path("/proc").iterdir() if p.name.isdigit() and _master_of(p, root)]
        assert master, "no master process"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0, proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert not root.exists()
    assert not [p for p in master if p.exists() and _master_of(p, root)], "the master outlived its command"


def _master_of(proc_dir: Path, root: Path) -> bool:
    try:
        cmdline = (proc_dir / "cmdline").read_bytes()
        environ = (proc_dir / "environ").read_bytes()
    except OSError:
        return False
    return b"deploy.master.Master" in cmdline and f"SPARK_LOG_DIR={root}/master".encode() in environ
