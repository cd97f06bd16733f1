"""`cepkit warm` compiles the compiled engines' kernels into the cache once; a second warm, and then a run,
compile nothing (Numba's compile events counted)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from cepkit.conformance.warm import compiled_engines

ROOT = Path(__file__).resolve().parents[2]


def _warm(cache: Path, *args: str) -> str:
    env = {**os.environ, "CEPKIT_CACHE": str(cache)}
    done = subprocess.run([sys.executable, "-m", "cepkit", "warm", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    return done.stderr


def test_the_compiled_engines_are_the_optimized_ones():
    engines = compiled_engines()
    assert ("sase", "optimized") in engines and ("afa", "optimized") in engines
    assert all(name.startswith("optimized") for _lang, name in engines)
    assert compiled_engines(["tpstream"]) == [("tpstream", "optimized")]


def test_a_second_warm_compiles_nothing(tmp_path):
    first = _warm(tmp_path / "cache", "--language", "tpstream")
    assert "optimized (tpstream):" in first and " 0 functions compiled" not in first.splitlines()[0], first
    second = _warm(tmp_path / "cache", "--language", "tpstream")
    assert "optimized (tpstream):" in second and "1 engines, 0 functions compiled" in second, second
    assert any((tmp_path / "cache" / "kernels").rglob("*.nbi"))
