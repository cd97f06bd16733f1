"""The errors and warnings cepkit raises, by their public name (`cepkit.errors.QueryError`, ...). Every mistake
in a query or in the events is one of these; the command line prints its message and exits with its code."""
from cepkit.core.errors import (Beyond64Bits, CepkitError, CepkitWarning, EventError, MissingExtra, QueryError,
                                     ResourceLimit, Unsupported)

__all__ = ["Beyond64Bits", "CepkitError", "CepkitWarning", "EventError", "MissingExtra", "QueryError",
           "ResourceLimit", "Unsupported"]
