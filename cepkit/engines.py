"""The engines a user can pick by name."""
from __future__ import annotations

from optimized.engine import OptimizedEngine
from reference.brute import BruteForceEngine
from reference.engine import ReferenceEngine
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
