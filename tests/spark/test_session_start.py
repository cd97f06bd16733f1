"""A Spark that cannot start (no Java at JAVA_HOME) is a clear error, exit 1, not a traceback."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_no_java_is_a_clear_error(tmp_path):
    env = dict(os.environ, JAVA_HOME=str(tmp_path / "no-java"), PATH="/usr/bin:/bin", PYTHONPATH=str(ROOT))
    env.pop("SPARK_HOME", None)
    done = subprocess.run([sys.executable, "-m", "cepkit.cli", "spark", "run", str(ROOT / "examples/query3.sase"),
                           str(ROOT / "examples/fig3_stream.csv"), str(tmp_path / "out")],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert done.returncode == 1, done.stderr
    assert "error: cannot start Spark on master local[*,2]" in done.stderr and "Java 17+" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "out").exists()
