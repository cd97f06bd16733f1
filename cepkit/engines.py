"""The engines a user can pick by name, for SASE+ queries (kept for callers of cepkit.engines.ENGINES);
every language's engines are in reference/registry.py."""
from __future__ import annotations

from reference import registry

ENGINES = {name: registry.get_engine("sase", name) for name in registry.engines_for("sase")}
