"""The kind of a value (number, text, boolean) and of an attribute column, as the readers type them
(cepkit.core.typed_columns): what the checks of a comparison with a text literal read (SQL:
cepkit.front.sql.kinds; SASE: cepkit.front.binding.check_columns; docs/semantics.md SQ-N1)."""
from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

NUMBER, TEXT, BOOLEAN = "number", "text", "boolean"


def column_kind(values: Any) -> str | None:
    """The kind of a column's values (None: nulls only, or a mix of kinds)."""
    values = np.asarray(values)
    if values.dtype.kind in "iu":
        return NUMBER
    if values.dtype.kind == "f":   # NaN is null: a column of nulls only has no kind
        return NUMBER if len(values) and not np.isnan(values).all() else None
    if values.dtype.kind == "b":
        return BOOLEAN
    if values.dtype.kind in "US":
        return TEXT
    kinds = {value_kind(x) for x in values.tolist()} - {None}
    return kinds.pop() if len(kinds) == 1 else None


def value_kind(x: Any) -> str | None:
    """The kind of one value (None: null)."""
    if x is None or (isinstance(x, float) and x != x):
        return None
    if isinstance(x, (bool, np.bool_)):
        return BOOLEAN
    if isinstance(x, (int, float, Fraction, Decimal, np.integer, np.floating)):
        return NUMBER
    if isinstance(x, str):
        return TEXT
    return "other"
