"""Generated modules live as real .py files in a cache directory, so `@njit(cache=True)` keeps their
machine code across processes: $CEPKIT_CACHE, else ~/.cache/cepkit/numba. A module's file name is the
hash of its source, so queries with equal source share one module and a changed generator never reads
stale code (the SQL and AFA generators keep constants and names out of the source: optimized/sql/exprgen.py,
optimized/afa/exprgen.py).
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import tempfile
from types import ModuleType

from cepkit.core.compile_cache import cache_dir  # noqa: F401  (where the engines find it)
from cepkit.core.errors import Unsupported


# A query's generated expressions beyond this many lines of source are refused (Unsupported): Numba / LLVM take
# time and memory beyond linear in a function's size (measured, a MATCH_RECOGNIZE DEFINE of n ANDed
# comparisons: n = 50, 800 lines, 4.7 s and 0.4 GB; n = 200, 2,900 lines, 61 s and 2.3 GB; n = 2,000, 28,000
# lines, past 12 GB), where the reference runs such a query at once.
MAX_LINES = 1_200


def bounded(source: str, engine: str, what: str) -> str:
    """The source, or Unsupported naming `what` when it is longer than MAX_LINES."""
    lines = source.count("\n")
    if lines > MAX_LINES:
        raise Unsupported(engine, f"{what} this large ({lines:,} lines of generated Numba source, more than "
                                  f"{MAX_LINES:,}: compiling it would take minutes and gigabytes)")
    return source


def load_module(source: str, prefix: str = "cepkit_q") -> ModuleType:
    """Import the module with this source, writing it to the cache directory first if needed."""
    digest = hashlib.sha256(source.encode()).hexdigest()[:20]
    name = f"{prefix}_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    path = cache_dir() / f"{name}.py"
    if not path.exists() or path.read_text() != source:
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            f.write(source)
        os.replace(tmp, path)  # atomic: concurrent writers (Spark executors) never see half a file
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
