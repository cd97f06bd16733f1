"""cepkit: complex event processing with one precise meaning per pattern and engines that agree on it."""
from cepkit.errors import (CepkitError, CepkitWarning, EventError, MissingExtra, QueryError,  # noqa: F401
                           ResourceLimit, Unsupported)

__version__ = "0.1.0"

# The facade and the event and match types load on first use (PEP 562), so that `import cepkit` and
# `cepkit --version` do not import numpy, pandas, pyarrow or an engine.
_LAZY = {"compile": "cepkit.api", "run": "cepkit.api", "EventBatch": "cepkit.core.events",
         "Match": "cepkit.core.match"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib  # lazy: only when a facade name is first read

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'cepkit' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
