"""The asv suite (benchmarks/asv/) stays runnable: `asv check` (every module imports, every benchmark is well
formed) and a one-repeat smoke run of two small benchmarks in the test environment (asv's `existing`
environment: the tree under test, not a commit asv builds), on inputs a hundredth of their size
(CEPKIT_ASV_QUICK=1), nothing recorded (--dry-run). The full suite is `make bench`, not part of `make test`.
Also: the configuration keeps the history apart per machine and in the repository, and every benchmark of
the history subset and of the gate exists."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ASV = Path(sys.executable).with_name("asv")
SMOKE = r"WindowEngines\.time_run|Writers\.time_write"

pytestmark = pytest.mark.skipif(not ASV.exists(), reason="asv is not installed (the test extra)")


def config() -> dict:
    text = (ROOT / "asv.conf.json").read_text(encoding="utf-8")
    return json.loads(re.sub(r"^\s*//.*$", "", text, flags=re.M))


def asv(tmp_path, *args: str, timeout: int = 120) -> subprocess.CompletedProcess:
    from cepkit.core.compile_cache import cache_dir

    # HOME for asv's machine file only; the compiled kernels stay where `cepkit warm` put them
    env = dict(os.environ, HOME=str(tmp_path), CEPKIT_CACHE=str(cache_dir()), CEPKIT_ASV_QUICK="1",
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    return subprocess.run([str(ASV), *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)


def test_asv_check_and_a_smoke_run(tmp_path):
    existing = f"existing:{sys.executable}"
    done = asv(tmp_path, "check", "-E", existing)
    assert done.returncode == 0 and "No problems found" in done.stdout, done.stdout + done.stderr
    assert asv(tmp_path, "machine", "--yes", "--machine", "ci-smoke").returncode == 0
    done = asv(tmp_path, "run", "-E", existing, "--quick", "--dry-run", "--show-stderr", "--machine", "ci-smoke",
               "--bench", SMOKE)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    for name in ("bench_windows.WindowEngines.time_run", "bench_output.Writers.time_write"):
        assert re.search(re.escape(name) + r"\s+ok", out), out
    assert "failed" not in out


def test_history_and_gate_subsets_name_existing_benchmarks():
    conf = config()
    assert conf["environment_type"] == "virtualenv" and conf["results_dir"] == "benchmarks/results"
    assert "{wheel_file}" in conf["install_command"][0] and "--no-deps" in conf["install_command"][0]
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    history = re.search(r"^HISTORY_BENCH := (.+)$", makefile, re.M).group(1)
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import asv_gate
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    names = []
    for path in sorted((ROOT / "benchmarks" / "asv").glob("bench_*.py")):
        text = path.read_text(encoding="utf-8")
        for cls in re.findall(r"^class (\w+)", text, re.M):
            for meth in ("time_run", "time_write", "time_command"):
                names.append(f"{path.stem}.{cls}.{meth}")
    for regex in (history, asv_gate.GATE_BENCH):
        assert any(re.search(regex, n) for n in names), regex
        for part in re.findall(r"\w+(?=[|)])", regex.split(r"\.")[0]):
            assert any(f".{part}." in n for n in names), part
