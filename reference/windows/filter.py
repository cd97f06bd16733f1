"""Filter σ_φ (Def 2.10): the events whose payload satisfies φ, in input order with input timestamps."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from cepkit.reference.sql.exprs import Ctx, holds


def filter_events(rows: Sequence[Mapping[str, Any]], condition) -> list[int]:
    """Indices of the rows (mappings of exact values) for which `condition` (an expression) is true."""
    return [i for i in range(len(rows)) if holds(condition, Ctx(rows, (i,), ("_",), 0, {}))]
