"""What `cepkit run --engine optimized` imports over CSV and Parquet (a structural check, not a timing): none
of Spark, OpenCL, the other subcommands, the other languages' front ends and engines, or the conformance
kit; pandas at most through pyarrow (which imports it on its first conversion: the last Python frame
before the import is a call into pyarrow, not an `import pandas` or a `pd.` of cepkit's own modules); and the Numba kernels come from the on-disk cache, not compiled again, on a second run."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

PROBE = r"""
import importlib.abc, json, os, sys, traceback

first = []


class Spy(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "pandas" and not first:
            frames = [f for f in traceback.extract_stack()[:-1] if not f.filename.startswith("<frozen")]
            first.append(f"{frames[-1].filename}:{frames[-1].lineno}: {frames[-1].line}" if frames else "?")
        return None


sys.meta_path.insert(0, Spy())
from cepkit.cli import main

code = main(["run", sys.argv[1], sys.argv[2], "--engine", "optimized", "--output", os.devnull])  # stderr: a pipe
misses = {}
for name, module in list(sys.modules.items()):
    if name.startswith(("cepkit_q", "cepkit.optimized")):
        for attr, obj in list(vars(module).items()):
            stats = getattr(obj, "stats", None)
            if stats is not None and hasattr(stats, "cache_misses"):
                misses[f"{name}.{attr}"] = sum(stats.cache_misses.values())
print(json.dumps({"code": code, "modules": sorted(sys.modules), "pandas_importer": first[0] if first else None,
                  "misses": misses}))
"""

FORBIDDEN_PACKAGES = ("pyspark", "pyopencl", "matplotlib", "mako", "tqdm")   # tqdm: only for a bar drawn
FORBIDDEN_MODULES = ("cepkit.spark_jobs", "cepkit.gpu", "cepkit.conformance", "cepkit.reference.sql", "cepkit.reference.tpstream", "cepkit.reference.afa", "cepkit.reference.windows", "cepkit.reference.lazy",
                     "cepkit.reference.rfid", "cepkit.reference.replay", "cepkit.optimized.sql", "cepkit.optimized.tpstream", "cepkit.optimized.afa",
                     "cepkit.optimized.lazy", "cepkit.spark_cli", "cepkit.replay_cli", "cepkit.window_cli", "cepkit.plot",
                     "cepkit.explain", "cepkit.spark_progress")


def probe(events: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, str(EXAMPLES / "query3.sase"), str(events)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def parquet_events(tmp_path_factory) -> Path:
    """The example stream as Parquet; one run first puts the kernels into Numba's on-disk cache (if they
    are not there yet), so that the runs checked load them."""
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    path = tmp_path_factory.mktemp("events") / "fig3_stream.parquet"
    pq.write_table(pcsv.read_csv(EXAMPLES / "fig3_stream.csv"), path)
    probe(path)
    return path


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_cepkit_run_optimized_imports_only_what_the_engine_needs(fmt, parquet_events):
    events = EXAMPLES / "fig3_stream.csv" if fmt == "csv" else parquet_events
    found = probe(events)
    assert found["code"] == 0
    modules = set(found["modules"])
    assert not {m.split(".")[0] for m in modules} & set(FORBIDDEN_PACKAGES)
    assert not [m for m in modules if m in FORBIDDEN_MODULES or m.startswith(tuple(p + "." for p in FORBIDDEN_MODULES))]
    importer = found["pandas_importer"]  # the last Python frame: a call into pyarrow, not an import of pandas
    assert importer is None or not any(w in importer for w in ("pandas", "pd.", "lazy_import")), importer
    assert found["misses"] and not any(found["misses"].values()), found["misses"]  # loaded, not recompiled


@pytest.mark.parametrize("code", [
    "import cepkit",
    "import sys\nfrom cepkit.cli import main\ntry:\n    main(['--version'])\nexcept SystemExit:\n    pass",
], ids=["import cepkit", "cepkit --version"])
def test_import_and_version_load_no_array_library_or_engine(code):
    """`import cepkit` and `cepkit --version` load none of numpy, pandas, pyarrow, numba, pytest (the
    conformance kit's), tqdm (the progress bars'), difflib (usage errors') and no engine (the facade loads on
    first use); a structural check, not a timing."""
    probe = code + "\nimport sys; print(' '.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    modules = set(done.stdout.split())
    assert "cepkit" in modules and len(modules) > 20, done.stdout   # the modules were listed
    assert not {m.split(".")[0] for m in modules} & {"numpy", "pandas", "pyarrow", "numba", "pytest",
                                                     "_pytest", "tqdm", "difflib"}
    assert not [m for m in modules if m.startswith(("cepkit.reference", "cepkit.optimized", "cepkit.spark_jobs",
                                                    "cepkit.conformance"))]


def test_the_lazy_facade_gives_the_same_objects():
    import cepkit
    import cepkit.api
    from cepkit.core.events import EventBatch

    assert cepkit.run is cepkit.api.run and cepkit.compile is cepkit.api.compile
    assert cepkit.EventBatch is EventBatch and "run" in dir(cepkit)
    with pytest.raises(AttributeError):
        cepkit.no_such_name


def test_a_run_on_a_terminal_loads_tqdm_only_once_a_bar_is_drawn():
    """On a terminal, a run quicker than the bar's delay (2 s) never imports tqdm; one whose bar is drawn does
    (the other side of the lazy import: the probe above has stderr on a pipe)."""
    from tests.terminal import cepkit

    probe = ["run", str(EXAMPLES / "query3.sase"), str(EXAMPLES / "fig3_stream.csv"), "--engine", "reference"]
    code = ("import runpy, sys; sys.argv = ['cepkit'] + sys.argv[1:]\n"
            "try:\n    runpy.run_module('cepkit', run_name='__main__')\n"
            "finally:\n    print('tqdm' in sys.modules)")
    for delay, loaded in (("60", b"False"), ("0", b"True")):
        _, out, err = cepkit(probe, terminal=True, python=["-c", code], env={"CEPKIT_PROGRESS_DELAY": delay})
        assert out.splitlines()[-1] == loaded, (delay, out, err)
