"""The built wheel installs one import name, `cepkit`: its file list has no other top-level package, and in a
fresh virtual environment `import cepkit` works, the repository's folders (reference, optimized, gpu, ...) are
not importable on their own, and `cepkit run` gives the development install's output in every language.

The fresh environment gets the wheel alone (no dependencies installed); the dependencies are read from this
environment's site-packages through a folder of links that leaves out cepkit's own files and every .pth
file, so nothing of the source tree can be reached from it."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = tuple(sorted(p.name for p in (ROOT / "cepkit").iterdir() if p.is_symlink()))  # the folders cepkit/ links
RUNS = {  # one run per language, on the default engine
    "sase": ["examples/query3.sase", "examples/fig3_stream.csv"],
    "sase1": ["examples/sase1_stock.query", "examples/stocks.csv"],
    "sql": ["examples/sql/v_shape.sql", "examples/sql/ticker.csv", "--format", "csv"],
    "tpstream": ["examples/tpstream/aggressive_drivers.tps", "examples/tpstream/car_sensors.csv", "--ts-unit", "s"],
    "afa": ["examples/afa/q1.afa.yaml", "examples/afa/q1.shuffled.csv", "--net"],
    "window": ["examples/sql/volume.win", "examples/sql/trades.csv"],
}


def _build_wheel(out: Path) -> Path:
    """The wheel of a copy of the package's sources (so the build writes nothing into the repository)."""
    src = out / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc")
    for name in ("cepkit", *FOLDERS):
        shutil.copytree(ROOT / name, src / name, symlinks=True, ignore=skip)
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet",
                           "-w", str(out / "dist"), str(src)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return next((out / "dist").glob("cepkit-*.whl"))


def _fresh_env(base: Path, wheel: Path) -> Path:
    """A virtual environment with the wheel installed and this environment's other packages linked in."""
    env = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True, timeout=120)
    python = env / "bin" / "python"
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--quiet",
                           str(wheel)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    deps = base / "deps"
    deps.mkdir()
    ours = sysconfig.get_paths()["purelib"]
    for entry in Path(ours).iterdir():
        name = entry.name
        if name.endswith(".pth") or name.startswith(("cepkit", "__editable__", "_distutils_hack")):
            continue
        (deps / name).symlink_to(entry)
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "zz_test_dependencies.pth").write_text(str(deps) + "\n")
    return env


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    try:
        import setuptools
    except ImportError:
        pytest.skip("setuptools is not installed (the test extra has it)")
    if int(setuptools.__version__.split(".")[0]) < 77:
        pytest.skip(f"setuptools {setuptools.__version__} cannot build this pyproject.toml (needs 77+: make test)")
    base = tmp_path_factory.mktemp("wheel")
    wheel = _build_wheel(base)
    return wheel, _fresh_env(base, wheel), base


def _clean_env() -> dict:
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}


def test_the_wheel_holds_one_top_level_name(installed):
    wheel, _, _ = installed
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names}
    assert top == {"cepkit", next(t for t in top if t.endswith(".dist-info"))}, top
    # every folder of the repository is in the package, with its data (the grammars, the vectors)
    for folder in FOLDERS:
        assert f"cepkit/{folder}/__init__.py" in names
    assert "cepkit/front/language/sase.lark" in names and "cepkit/front/tpstream/tpstream.lark" in names
    assert sum(n.startswith("cepkit/conformance/cases/") and n.endswith(".yaml") for n in names) > 30
    assert not [n for n in names if n.startswith(("benchmarks/", "tests/", "cepkit/tests/"))]
    top_level = next((n for n in names if n.endswith(".dist-info/top_level.txt")), None)
    if top_level:
        assert zipfile.ZipFile(wheel).read(top_level).decode().split() == ["cepkit"]


def test_the_fresh_environment_imports_cepkit_only(installed):
    _, env, base = installed
    code = ("import importlib.util, cepkit, cepkit.errors, cepkit.core.registry; "
            "print(cepkit.__file__); "
            f"print([n for n in {FOLDERS + ('benchmarks', 'tests')!r} if importlib.util.find_spec(n)])")
    done = subprocess.run([str(env / "bin" / "python"), "-c", code], cwd=base, env=_clean_env(),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    where, importable = done.stdout.splitlines()
    assert Path(where).is_relative_to(env), where
    assert importable == "[]"


@pytest.mark.parametrize("language", sorted(RUNS))
def test_one_run_per_language_matches_the_development_install(installed, language):
    _, env, base = installed
    argv = [str(ROOT / a) if a.startswith("examples/") else a for a in RUNS[language]]
    fresh = subprocess.run([str(env / "bin" / "cepkit"), "run", *argv], cwd=base, env=_clean_env(),
                           capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    dev = subprocess.run([sys.executable, "-m", "cepkit", "run", *argv], cwd=ROOT, capture_output=True, text=True,
                         timeout=600, stdin=subprocess.DEVNULL)
    assert fresh.returncode == dev.returncode == 0, fresh.stderr + dev.stderr
    assert fresh.stdout == dev.stdout and fresh.stdout.strip()


def test_the_conformance_command_comes_from_the_packages_entry_point(installed):
    """`cepkit conformance` is added by the conformance kit's entry point (group cepkit.commands), not by a
    name in the command line's own list."""
    wheel, env, base = installed
    names = zipfile.ZipFile(wheel).namelist()
    entry = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/entry_points.txt"))).decode()
    assert "[cepkit.commands]" in entry and "conformance = cepkit.conformance.kit.cli:register" in entry
    from cepkit import cli

    assert not [c for c in cli.EXTRA_COMMANDS if "conformance" in c]
    done = subprocess.run([str(env / "bin" / "cepkit"), "conformance", "--engine", "reference", "--language", "afa"],
                          cwd=base, env=_clean_env(), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert " passed, 0 failed" in done.stdout
