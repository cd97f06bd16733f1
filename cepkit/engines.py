"""The engines a user can pick by name."""
from __future__ import annotations

from optimized.engine import OptimizedEngine
from reference.engine import BruteForceEngine, ReferenceEngine
from reference.pattern.engines import EagerEngine, LazyChainEngine, TreeEngine
from reference.rfid.engine import SSCEngine

ENGINES = {
    "reference": ReferenceEngine(),
    "brute": BruteForceEngine(),
    "reference-eager": EagerEngine(),
    "reference-lazy": LazyChainEngine(),
    "reference-tree": TreeEngine(),
    "reference-ssc": SSCEngine(),
    "optimized": OptimizedEngine(),
}
