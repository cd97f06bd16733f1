"""The extras (pyproject.toml): `pip install cepkit` is the core; spark, gpu and plot add what they name.

A missing extra is simulated, not mocked: the CLI runs in a subprocess whose PYTHONPATH holds a
`sitecustomize` that puts a finder first on sys.meta_path, refusing the blocked top-level packages with
ModuleNotFoundError exactly as an absent package would. Nothing of cepkit, Spark or OpenCL is replaced.
Each command must answer with one line naming `pip install 'cepkit[EXTRA]'` and exit 2, before any work.
The core must not even import an optional package: a subprocess checks sys.modules after parsing every
language and running the reference and optimized engines."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
OPTIONAL = ("pyspark", "py4j", "pyopencl", "mako", "matplotlib")

BLOCKER = '''
import os, sys

BLOCKED = set(filter(None, os.environ.get("CEPKIT_TEST_BLOCK", "").split(",")))


class Absent:
    """Finds nothing for the blocked packages: they import as if they were not installed."""

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, Absent())
'''


@pytest.fixture(scope="module")
def blocker(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("absent")
    (path / "sitecustomize.py").write_text(BLOCKER)
    return path


def _python(blocker: Path, block: str, args: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(blocker), str(ROOT)]), "CEPKIT_TEST_BLOCK": block}
    return subprocess.run([sys.executable, *args], cwd=cwd or ROOT, env=env, capture_output=True, text=True,
                          timeout=120)


def _cepkit(blocker: Path, block: str, *argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return _python(blocker, block, ["-m", "cepkit.cli", *argv], cwd)


def test_the_blocker_makes_a_package_absent(blocker):
    done = _python(blocker, "pyspark", ["-c", "import pyspark"])
    assert done.returncode == 1 and "ModuleNotFoundError: No module named 'pyspark'" in done.stderr


def test_cepkit_spark_without_pyspark_names_the_spark_extra(blocker, tmp_path):
    out = tmp_path / "out"
    done = _cepkit(blocker, "pyspark,py4j", "spark", "run", str(EX / "query3.sase"), str(EX / "fig3_stream.csv"),
                   str(out))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "cepkit spark needs the spark extra: pip install 'cepkit[spark]'\n"
    assert not out.exists()


@pytest.mark.parametrize("argv", [
    ["run", "examples/sql/v_shape.sql", "examples/sql/ticker.csv", "--engine", "gpu"],
    ["run", "examples/tpstream/aggressive_drivers.tps", "examples/tpstream/car_sensors.csv", "--engine", "gpu"],
    ["run", "examples/sql/big_trades.win", "examples/sql/trades.csv", "--engine", "gpu"],
    ["window", "filter", "examples/sql/trades.csv", "--where", "v > 3", "--engine", "gpu"],
    ["conformance", "--engine", "gpu"],
], ids=["run-sql", "run-tpstream", "run-window", "window-filter", "conformance"])
def test_engine_gpu_without_pyopencl_names_the_gpu_extra(blocker, argv):
    done = _cepkit(blocker, "pyopencl", *argv)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "engine 'gpu' needs the gpu extra: pip install 'cepkit[gpu]'\n"


def test_cepkit_devices_without_pyopencl_names_the_gpu_extra(blocker):
    done = _cepkit(blocker, "pyopencl", "devices")
    assert (done.returncode, done.stderr) == (2, "cepkit devices needs the gpu extra: pip install 'cepkit[gpu]'\n")


def test_mako_alone_missing_is_the_gpu_extra_too(blocker):
    done = _cepkit(blocker, "mako", "devices")
    assert (done.returncode, done.stderr) == (2, "cepkit devices needs the gpu extra: pip install 'cepkit[gpu]'\n")


def test_plot_png_needs_the_plot_extra_html_does_not(blocker, tmp_path):
    args = [str(EX / "query3.sase"), str(EX / "fig3_stream.csv")]
    done = _cepkit(blocker, "matplotlib", "plot", *args, "--out", str(tmp_path / "m.png"))
    assert (done.returncode, done.stderr) == (2, "cepkit plot --out FILE.png needs the plot extra: "
                                                 "pip install 'cepkit[plot]'\n")
    assert not (tmp_path / "m.png").exists()
    done = _cepkit(blocker, "matplotlib", "plot", *args, "--out", str(tmp_path / "m.html"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "m.html").read_text().lstrip().lower().startswith("<!doctype html")


def test_the_api_raises_a_cepkit_error_naming_the_gpu_extra(blocker):
    code = """
import cepkit
from pathlib import Path
text = Path("examples/sql/v_shape.sql").read_text()
for call in (lambda: cepkit.compile(text, engine="gpu"),
             lambda: cepkit.run("examples/sql/v_shape.sql", "examples/sql/ticker.csv", engine="gpu")):
    try:
        call()
    except cepkit.MissingExtra as exc:
        assert isinstance(exc, cepkit.CepkitError) and not isinstance(exc, ImportError)
        print(exc.extra, exc.package, exc, sep="|")
"""
    done = _python(blocker, "pyopencl", ["-c", code])
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["gpu|pyopencl|engine 'gpu' needs the gpu extra: pip install 'cepkit[gpu]'"] * 2


def test_the_core_runs_with_every_extra_absent(blocker):
    """--help lists every engine (gpu too) and the reference and optimized engines run, nothing optional there."""
    block = ",".join(OPTIONAL)
    done = _cepkit(blocker, block, "run", "--help")
    assert done.returncode == 0, done.stderr
    assert "gpu" in done.stdout and "cepkit[gpu]" in " ".join(done.stdout.split())
    for engine in ("reference", "optimized"):
        done = _cepkit(blocker, block, "run", "examples/query3.sase", "examples/fig3_stream.csv", "--engine", engine)
        assert done.returncode == 0, done.stderr
        assert len(done.stdout.splitlines()) > 0 and all(json.loads(line) for line in done.stdout.splitlines())


SYS_MODULES = """
import sys
from pathlib import Path
import cepkit
from cepkit.cli import build_parser
from cepkit.core import registry
build_parser()  # `cepkit run --help` lists every engine
for query, events, lang in [("query3.sase", "fig3_stream.csv", "sase"), ("sql/v_shape.sql", "sql/ticker.csv", "sql"),
                            ("tpstream/aggressive_drivers.tps", "tpstream/car_sensors.csv", "tpstream"),
                            ("afa/q1.afa.yaml", "afa/q1.events.csv", "afa"),
                            ("sql/big_trades.win", "sql/trades.csv", "window")]:
    text = Path("examples", query).read_text()
    registry.parse(lang, text)
    for engine in ("reference", "optimized") if lang in ("sase", "sql") else ("reference",):
        cepkit.run(Path("examples", query), Path("examples", events), engine=engine,
                   read_options={"tpstream": {"ts_unit": "s"}, "window": {"default_type": "T"}}.get(lang))
print(",".join(sorted({m.split(".")[0] for m in sys.modules} & set(sys.argv[1].split(",")))))
"""


def test_the_core_imports_no_optional_package(blocker):
    """In the full environment (every extra installed): nothing optional is imported by the core's work."""
    done = _python(blocker, "", ["-c", SYS_MODULES, ",".join(OPTIONAL)])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""
