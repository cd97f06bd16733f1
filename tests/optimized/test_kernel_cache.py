"""The kernels' machine code is cached by content, not by place (optimized/kernel_cache.py): a second process
and a fresh copy of the checkout run an optimized query without compiling (Numba's compile events counted,
as the Spark job counts them); a function outside cepkit.optimized is left to Numba's own locators, and an
unwritable cache directory falls back to them."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("cepkit",) + tuple(sorted(p.name for p in (ROOT / "cepkit").iterdir() if p.is_symlink())) + ("examples",)

PROBE = r"""
import json, sys
from numba.core import event
recorder = event.RecordingListener()
event.register("numba:compile", recorder)
from cepkit.cli import main
code = main(["run", sys.argv[2] if len(sys.argv) > 2 else "examples/query3.sase", "examples/fig3_stream.csv",
             "--engine", "optimized", "--output", sys.argv[1], "--no-progress"])
import cepkit.optimized
print(json.dumps({"code": code, "compiled": sum(1 for _, e in recorder.buffer if e.is_start),
                  "package": cepkit.optimized.__file__}))
"""


def _run(tree: Path, out: Path, env: dict, query: str | None = None) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, str(out), *([query] if query else [])], cwd=tree, capture_output=True, text=True,
                          timeout=900, env={**env, "PYTHONPATH": str(tree)})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _copy(tree: Path) -> None:
    """The checkout's package folders (links kept: cepkit/reference -> ../reference), without any cache."""
    for folder in FOLDERS:
        shutil.copytree(ROOT / folder, tree / folder, symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))


def test_a_fresh_copy_of_the_checkout_runs_without_compiling(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_LOCATOR_CLASSES"}
    first = _run(ROOT, tmp_path / "a.jsonl", env)          # compiles where the cache is cold, else loads
    second = _run(ROOT, tmp_path / "b.jsonl", env)         # a second process
    copy = tmp_path / "copy"
    _copy(copy)
    fresh = _run(copy, tmp_path / "c.jsonl", env)          # another place: no __pycache__, another path
    assert fresh["package"].startswith(str(copy))
    assert first["code"] == second["code"] == fresh["code"] == 0
    assert second["compiled"] == 0 and fresh["compiled"] == 0, (first, second, fresh)
    texts = [(tmp_path / f"{x}.jsonl").read_text() for x in "abc"]
    assert texts[0] == texts[1] == texts[2] and texts[0]
    # a new query: other constants, another window, other RETURN names; the same compiled code
    query = (ROOT / "examples" / "query3.sase").read_text()
    changed = query.replace("1000", "999").replace("80%", "85%").replace("1 hour", "2 hours")
    changed = changed.replace("AS drop_volume", "AS low_volume")
    assert changed.count("999") == 1 and "85%" in changed and "2 hours" in changed and "low_volume" in changed
    (tmp_path / "new.sase").write_text(changed)
    new = _run(ROOT, tmp_path / "d.jsonl", env, str(tmp_path / "new.sase"))
    assert new["code"] == 0 and new["compiled"] == 0, new
    assert "low_volume" in (tmp_path / "d.jsonl").read_text()


def test_a_changed_source_gets_a_new_cache_directory_and_only_its_importers_do(tmp_path, monkeypatch):
    """A kernel's directory is keyed on its file and the package files it imports, directly or not: a change
    to a callee's file moves its importers' kernels, and leaves the kernels that do not import it."""
    from cepkit.optimized import kernel_cache

    package = tmp_path / "optimized"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "callee.py").write_text("x = 1\n")
    (package / "sub" / "middle.py").write_text("from cepkit.optimized.callee import x\n")
    (package / "kernel.py").write_text("import numpy\nfrom cepkit.optimized.sub import middle\n")
    (package / "other.py").write_text("y = 1\n")
    monkeypatch.setattr(kernel_cache, "PACKAGE", package)

    def tags():
        kernel_cache.imported.cache_clear()
        kernel_cache.module_tag.cache_clear()
        return {name: kernel_cache.module_tag(package / name) for name in ("kernel.py", "other.py", "callee.py")}

    before = tags()
    (package / "callee.py").write_text("x = 2\n")
    after = tags()
    assert after["callee.py"] != before["callee.py"]
    assert after["kernel.py"] != before["kernel.py"]     # imports callee through sub.middle
    assert after["other.py"] == before["other.py"]       # imports nothing that changed
    kernel_cache.imported.cache_clear()
    kernel_cache.module_tag.cache_clear()


def test_other_functions_and_unwritable_directories_go_to_numbas_locators(tmp_path, monkeypatch):
    from cepkit.optimized import kernel_cache
    from cepkit.optimized.kernel_cache import KernelCacheLocator

    def elsewhere():
        return 1

    assert KernelCacheLocator.from_function(elsewhere, __file__) is None      # not a kernel of cepkit
    import cepkit.optimized.values as values
    kernel = values._norm.py_func
    assert KernelCacheLocator.from_function(kernel, values.__file__) is not None
    blocked = tmp_path / "blocked"
    blocked.write_text("a file, not a directory")
    monkeypatch.setattr(kernel_cache, "kernel_cache_dir", lambda py_file: blocked / "kernels")
    assert KernelCacheLocator.from_function(kernel, values.__file__) is None


def test_an_unreadable_cache_file_is_a_miss_with_one_warning(tmp_path, monkeypatch):
    """A truncated index or data file in cepkit's cache: the kernel compiles again (load gives None) with one
    CepkitWarning, where Numba itself would raise; a file outside cepkit's cache is Numba's business."""
    import pytest
    from numba.core.caching import IndexDataCacheFile

    from cepkit.core.errors import CepkitWarning
    from cepkit.optimized import kernel_cache

    monkeypatch.setenv("CEPKIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(kernel_cache, "_warned", [])
    ours = tmp_path / "cache" / "kernels" / "tag"
    ours.mkdir(parents=True)
    good = IndexDataCacheFile(str(ours), "m.f-1.py311", b"stamp")
    good.save("key", "data")
    assert good.load("key") == "data"
    (ours / "m.f-1.py311.nbi").write_bytes(b"garbage")
    with pytest.warns(CepkitWarning, match="could not be read"):
        assert IndexDataCacheFile(str(ours), "m.f-1.py311", b"stamp").load("key") is None
    good.save("key", "data")
    for data in ours.glob("*.nbc"):
        data.write_bytes(b"garbage")
    assert IndexDataCacheFile(str(ours), "m.f-1.py311", b"stamp").load("key") is None   # warned once already
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "m.f-1.py311.nbi").write_bytes(b"garbage")
    with pytest.raises(Exception):
        IndexDataCacheFile(str(other), "m.f-1.py311", b"stamp").load("key")
