"""The engines a user can pick by name."""
from __future__ import annotations

from reference.brute import BruteForceEngine
from reference.engine import ReferenceEngine

ENGINES = {
    "reference": ReferenceEngine(),
    "brute": BruteForceEngine(),
}
