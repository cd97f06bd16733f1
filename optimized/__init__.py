"""The optimized SASE+ engine (issue 7): the reference's NFA^b semantics with the per-event loop in Numba.

    from cepkit import compile
    program = compile(text, engine="optimized")                  # one cached kernel, formulas as tables
    program = compile(text, engine="optimized", codegen=True)    # a generated, cached module per query
    matches = program.feed(batch) + program.close()

Modules: bytecode (edge formulas -> postfix tables), values (exact int64 rationals), nfab (the NFA^b kernel:
formula tables, run loop, shared match buffer, merging of equivalent runs, run index, OptimizedEngine /
OptimizedProgram), codegen + cache (generated modules), store (exact columnar events), returns (RETURN
payloads in one pass); afa, lazy, sase1, sql, tpstream: the other languages' engines.
"""
from __future__ import annotations

import os as _os
import sys as _sys

# Numba caches cepkit's kernels by content, not by place (optimized/kernel_cache.py), so that a fresh clone,
# a new virtual environment or a Spark executor loads the machine code instead of compiling it: the
# locator goes first in Numba's list, set here without importing Numba. A list the user set is kept.
KERNEL_LOCATORS = ",".join(["cepkit.optimized.kernel_cache.KernelCacheLocator", "UserProvidedCacheLocator",
                            "InTreeCacheLocator", "UserWideCacheLocator", "IPythonCacheLocator", "ZipCacheLocator"])
if not _os.environ.get("NUMBA_CACHE_LOCATOR_CLASSES"):
    _os.environ["NUMBA_CACHE_LOCATOR_CLASSES"] = KERNEL_LOCATORS
    if "numba" in _sys.modules:   # imported before cepkit.optimized: its config has read the environment
        _sys.modules["numba"].config.CACHE_LOCATOR_CLASSES = KERNEL_LOCATORS
