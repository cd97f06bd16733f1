"""The machine code a Spark job's tasks need, shipped from the driver to executors that do not share its compile
cache (a cluster: each machine has its own `$CEPKIT_CACHE`). The driver compiles or loads every kernel the
tasks will call (cepkit.spark_jobs.warmup.warm); `build` then packs the cache files of the kernels loaded in
the driver (Numba's index and data files under cepkit's cache directory, and the generated query modules
they belong to, with their modification times: Numba checks a source's time and size), the job ships the
pack with `SparkContext.addFile`, and each executor's Python worker unpacks it into its own cache directory
before its first task (`unpacking`), so no task compiles. Files already there and equal are left alone
(`local[...]`: the same directory); a pack from other code (another install) is ignored by Numba's own checks
and the task compiles, as before. docs/spark.md "A fast first run"."""
from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any, Callable

from cepkit.core.compile_cache import cache_dir

PREFIX = "cepkit-kernels-"
_UNPACKED: set[str] = set()   # the packs this worker process unpacked
_SHIPPED: set[tuple] = set()  # (application, pack) this driver added to its session's files


def _dispatchers() -> list[Any]:
    """The Numba functions of the modules loaded in this process (each module's own and imported names)."""
    import sys

    from numba.core.dispatcher import Dispatcher  # lazy: the driver of a Spark job only

    seen: dict[int, Any] = {}
    for module in list(sys.modules.values()):
        for value in list(getattr(module, "__dict__", {}).values()):
            if isinstance(value, Dispatcher):
                seen[id(value)] = value
    return list(seen.values())


def loaded_cache_files(root: Path) -> list[Path]:
    """The cache files under `root` of every Numba function this process compiled or loaded: each one's
    index, the data files it names, and the source of a generated module (a `.py` in `root`); for a kernel
    of cepkit.optimized, every cached function of its module."""
    root = root.resolve()
    found: set[Path] = set()
    for dispatcher in _dispatchers():
        cache_file = getattr(getattr(dispatcher, "_cache", None), "_cache_file", None)
        if cache_file is None or not dispatcher.overloads:
            continue
        index = Path(cache_file._index_path)
        if not index.is_file() or not index.resolve().is_relative_to(root):
            continue
        found.add(index)
        if index.resolve().is_relative_to(root / "kernels"):   # the folder of one module of cepkit.optimized
            # (its TAG is the module's): every function of it cached here, also those the warm-up's sample did
            # not reach (a buffer compaction, a bigger input's path) but a task may
            found.update(p for p in index.parent.iterdir() if p.suffix in (".nbi", ".nbc") and p.is_file())
        try:
            overloads = cache_file._load_index()
        except Exception:  # noqa: BLE001 - an unreadable index: the executor compiles that kernel
            continue
        found.update(p for p in (Path(cache_file._cache_path) / name for name in overloads.values()) if p.is_file())
        source = Path(dispatcher.py_func.__code__.co_filename)
        if source.parent.resolve() == root and source.is_file():   # a generated query module
            found.add(source)
    return sorted(p.resolve() for p in found)


def build(root: Path, folder: str | None = None) -> Path | None:
    """One file holding the loaded kernels' cache files under `root` (paths relative to it, bytes and
    modification times), named by its content; None when there are none."""
    files = loaded_cache_files(root)
    if not files:
        return None
    root = root.resolve()
    entries = {str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns) for p in files}
    data = pickle.dumps(entries, protocol=pickle.HIGHEST_PROTOCOL)
    path = Path(folder or tempfile.gettempdir()) / f"{PREFIX}{hashlib.sha256(data).hexdigest()[:16]}.pack"
    if not path.exists():
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    return path


def ship(spark: Any) -> None:
    """After the warm-up: the kernels it compiled or loaded, packed and added to the job's files (once per
    session and pack)."""
    built = build(cache_dir())
    key = (spark.sparkContext.applicationId, built.name if built is not None else None)
    if built is not None and key not in _SHIPPED:
        spark.sparkContext.addFile(str(built))
        _SHIPPED.add(key)


def unpack(pack_file: Path, root: Path) -> int:
    """Write the pack's files into `root` where they are missing or differ, with their modification times;
    the number written."""
    entries: dict[str, tuple[bytes, int]] = pickle.loads(pack_file.read_bytes())
    written = 0
    for rel, (data, mtime_ns) in entries.items():
        target = root / rel
        try:
            st = target.stat()
            if st.st_size == len(data) and st.st_mtime_ns == mtime_ns:
                continue
            if target.read_bytes() == data:
                os.utime(target, ns=(mtime_ns, mtime_ns))
                continue
        except OSError:
            pass
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.utime(tmp, ns=(mtime_ns, mtime_ns))
        os.replace(tmp, target)   # atomic: executors of one machine may unpack at the same time
        written += 1
    return written


def unpacking(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """`fn` (a task body) that first unpacks the packs among the job's files into this worker's cache directory
    (each once per worker process). The packs are found by name in SparkFiles' folder: Spark serializes the
    task function when the plan is built, before the warm-up made the pack."""
    def body(arg):
        from pyspark import SparkFiles  # lazy: in the executor's worker

        try:
            folder = Path(SparkFiles.getRootDirectory())
            names = [n for n in os.listdir(folder) if n.startswith(PREFIX) and n not in _UNPACKED]
        except (OSError, TypeError, AttributeError):   # no files folder (a task outside a job)
            names = []
        for name in names:
            try:
                unpack(folder / name, cache_dir())
            except (OSError, pickle.UnpicklingError, EOFError, ValueError):   # the task compiles instead
                pass
            _UNPACKED.add(name)
        return fn(arg)

    return body
