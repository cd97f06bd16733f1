"""What the two kinds of outside engine (Python adapter, external command) share: which vectors they run
and the reference's match-table layout their rows are read into."""
from __future__ import annotations

import warnings

from cepkit.conformance.harness import Case
from cepkit.core.errors import CepkitError, CepkitWarning
from cepkit.core.match_table import Layout
from cepkit.conformance.harness import run_case
from cepkit.conformance.kit.vectors import LOADERS


def runs(case: Case) -> bool:
    """An outside engine runs each vector once: not the engine-level variants (chunked feeding, a method)."""
    return case.variant_of is None


def languages() -> list[str]:
    """Every kit language."""
    return list(LOADERS)


def reference_layout(case: Case) -> Layout | None:
    """The columns the reference engine gives the vector's matches (None when the reference refuses the
    query: an expected-error vector)."""

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CepkitWarning)
            # the table's own layout: a SQL SELECT * names the table's columns only once it has read them
            return run_case(case, "reference").layout
    except CepkitError:
        return None
