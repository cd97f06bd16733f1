"""`cepkit warm` compiles the compiled engines' kernels into the cache once; a second warm, and then a run,
compile nothing (Numba's compile events counted)."""
from __future__ import annotations

import os
import re
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


def _run(cache: Path) -> str:
    env = {**os.environ, "CEPKIT_CACHE": str(cache)}
    done = subprocess.run([sys.executable, "-m", "cepkit", "run", "examples/tpstream/aggressive_drivers.tps",
                           "examples/tpstream/car_sensors.csv", "--ts-unit", "s", "--engine", "optimized"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    return done.stderr


def test_a_first_run_says_what_it_compiled_and_a_warm_cache_compiles_nothing(tmp_path):
    cache = tmp_path / "cache"
    first = _run(cache)   # an empty cache: the run compiles, and says so
    assert re.search(r"^compiled \d+ Numba functions in \d+\.\d s on this run \(.+\); they are cached now",
                     first, re.M), first
    warmed = _warm(cache, "--language", "tpstream")
    assert "optimized (tpstream):" in warmed, warmed
    again = _warm(cache, "--language", "tpstream")
    assert "1 engines, 0 functions compiled" in again, again
    assert "compiled" not in _run(cache)   # nothing left to compile: no line
    assert any((cache / "kernels").rglob("*.nbi"))
