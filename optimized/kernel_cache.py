"""Where Numba keeps the machine code of cepkit's kernels: by content, not by place. Numba's own locators
cache beside the source (`__pycache__`) or under a directory named after the source's absolute path, so a
fresh clone, a new virtual environment or another checkout compiles every kernel again (minutes). This
locator caches the kernels of cepkit.optimized in `$CEPKIT_CACHE/kernels/TAG/` (default
~/.cache/cepkit/numba), TAG a hash of the kernel's module and of every module of the package it imports,
directly or not (its callees live there), with Numba's version and Python's: any copy of the same code shares
the machine code, and a change to a kernel's source or to a callee in another file starts a new directory
instead of trusting stale code, while the kernels that do not import the changed file keep theirs (an edit to
the AFA kernel does not recompile the SQL engine's). Numba still checks each file's content hash and the CPU
in its index. An unwritable cache directory falls back to Numba's own locators.

optimized/__init__.py puts it first in Numba's locator list (NUMBA_CACHE_LOCATOR_CLASSES) without importing
Numba; functions outside cepkit.optimized are not its business (the next locator takes them)."""
from __future__ import annotations

import ast
import functools
import hashlib
import sys
import warnings
from pathlib import Path

import numba
from numba.core import caching
from numba.core.caching import _CacheLocator, _SourceFileBackedLocatorMixin

from cepkit.core.errors import CepkitWarning
from cepkit.optimized.cache import cache_dir

PACKAGE = Path(__file__).resolve().parent   # the cepkit.optimized sources


@functools.lru_cache(maxsize=None)
def imported(path: Path) -> tuple[Path, ...]:
    """The source files of cepkit.optimized that a source file imports (its absolute imports), and the
    package's __init__.py (it sets Numba up)."""
    found = {PACKAGE / "__init__.py"}
    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            if name == "cepkit.optimized" or name.startswith("cepkit.optimized."):
                inner = PACKAGE.joinpath(*name.split(".")[2:])
                for candidate in (inner.with_suffix(".py"), inner / "__init__.py"):
                    if candidate.is_file():
                        found.add(candidate)
    return tuple(sorted(found))


@functools.lru_cache(maxsize=None)
def module_tag(path: Path) -> str:
    """A hash of a source file of cepkit.optimized and of every file of the package it imports, directly or
    not, with Numba's version and Python's."""
    closure, todo = {path}, [path]
    while todo:
        for other in imported(todo.pop()):
            if other not in closure:
                closure.add(other)
                todo.append(other)
    digest = hashlib.sha256(f"{numba.__version__} {sys.version_info[:3]}".encode())
    for source in sorted(closure):
        digest.update(str(source.relative_to(PACKAGE)).encode())
        digest.update(source.read_bytes())
    return digest.hexdigest()[:16]


def kernel_cache_dir(py_file: str | Path) -> Path:
    """The directory the kernels of one source file of cepkit.optimized are cached in."""
    return cache_dir() / "kernels" / module_tag(Path(py_file).resolve())


class KernelCacheLocator(_SourceFileBackedLocatorMixin, _CacheLocator):
    """Caches a function of cepkit.optimized under kernel_cache_dir(its file), in the folder of its module's
    path inside the package (the same for every copy of the package)."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        inner = Path(py_file).resolve().parent.relative_to(PACKAGE)
        self._cache_path = str(kernel_cache_dir(py_file).joinpath(*inner.parts))

    def get_cache_path(self) -> str:
        return self._cache_path

    @classmethod
    def from_function(cls, py_func, py_file):
        try:
            if not Path(py_file).resolve().is_relative_to(PACKAGE):
                return None   # not a kernel of cepkit.optimized: Numba's own locators take it
            return super().from_function(py_func, py_file)   # None where the directory cannot be written
        except OSError:
            return None


UNREADABLE = (EOFError, ValueError, TypeError, AttributeError, ImportError, IndexError, KeyError)   # pickle's
_warned: list[str] = []


def _ours(cache_file) -> bool:
    return str(getattr(cache_file, "_cache_path", "")).startswith(str(cache_dir()))


def _unreadable(cache_file, exc: BaseException) -> None:
    """One warning per process: a file of the kernel cache could not be read; the function compiles again."""
    if not _warned:
        _warned.append(str(cache_file._index_path))
        warnings.warn(f"a file of the kernel cache could not be read ({type(exc).__name__}: {exc}; "
                      f"{cache_file._index_path}): its kernel is compiled again and the file rewritten",
                      CepkitWarning, stacklevel=2)


def _guard(cls) -> None:
    """IndexDataCacheFile reads an unreadable index (to load or to save) as an empty one, and an unreadable data
    file as a miss, in cepkit's cache."""
    if getattr(cls.load, "cepkit_guarded", False):
        return
    load_index, load = cls._load_index, cls.load

    def guarded_index(self):
        try:
            return load_index(self)
        except UNREADABLE + (caching.pickle.UnpicklingError,) as exc:
            if not _ours(self):
                raise
            _unreadable(self, exc)
            return {}

    def guarded_load(self, key):
        try:
            return load(self, key)
        except UNREADABLE + (caching.pickle.UnpicklingError,) as exc:
            if not _ours(self):
                raise
            _unreadable(self, exc)
            return None

    guarded_load.cepkit_guarded = True
    cls._load_index, cls.load = guarded_index, guarded_load


_guard(caching.IndexDataCacheFile)
