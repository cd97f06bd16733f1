"""Where cepkit keeps compiled code: $CEPKIT_CACHE, else ~/.cache/cepkit/numba (the optimized engines'
kernels and generated query modules: cepkit.optimized.cache, cepkit.optimized.kernel_cache; what a Spark job
ships to its executors: cepkit.spark_jobs.kernel_pack)."""
from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """The cache directory (made if missing)."""
    root = os.environ.get("CEPKIT_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "cepkit", "numba")
    path = Path(root)
    path.mkdir(parents=True, exist_ok=True)
    return path
