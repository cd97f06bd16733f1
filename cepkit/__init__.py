"""cepkit: complex event processing with one precise meaning per pattern and engines that agree on it."""
from cepkit.api import compile, run  # noqa: F401  (the public facade)
from cepkit.errors import (CepkitError, CepkitWarning, EventError, MissingExtra, QueryError,  # noqa: F401
                           ResourceLimit, Unsupported)
from cepkit.core.events import EventBatch  # noqa: F401
from cepkit.core.match import Match  # noqa: F401

__version__ = "0.1.0"
