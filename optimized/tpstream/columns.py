"""Attribute columns as exact numeric vectors: int64 numerators, int64 denominators (None: all 1) and a
null mask (None: no nulls), the values cepkit.core.events.exact reads from the same cells."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cepkit.core.events import EventBatch

SAFE = 9.0e18        # magnitudes a checked int64 result may reach (optimized/values.py)
EXACT_FLOAT = 2.0 ** 51  # |numerator| below which a decimal reading of a float is its shortest repr


@dataclass
class NumVec:
    """Exact numbers n / d per event; `null` marks missing values (their n and d are meaningless)."""

    n: np.ndarray
    d: np.ndarray | None = None
    null: np.ndarray | None = None
    boolean: bool = False   # read from a truth-value column (a number 0/1 in conditions)


def raw(batch: EventBatch, attr: str) -> np.ndarray:
    """The cells of attribute `attr`: its column, else the pseudo-attributes ts and id."""
    if attr in batch.columns:
        return batch.columns[attr]
    return batch.ts if attr == "ts" else batch.ids


def numeric(values: np.ndarray) -> NumVec | None:
    """The exact numbers of a column, or None where they are not all numbers held exactly in int64
    (text, objects, floats that are no short decimal): those take the reference's evaluator."""
    kind = values.dtype.kind
    if kind == "i":
        return NumVec(values.astype(np.int64, copy=False))
    if kind == "b":
        return NumVec(values.astype(np.int64), boolean=True)
    if kind == "u":
        if len(values) and values.max() > np.iinfo(np.int64).max:
            return None
        return NumVec(values.astype(np.int64))
    if kind == "f":
        return decimal_floats(values.astype(np.float64, copy=False))
    return None


def decimal_floats(v: np.ndarray) -> NumVec | None:
    """Floats as n / 10**k with the smallest common k <= 15: exactly the Fraction of each float's repr
    (cepkit.core.events.exact) when |n| < 2**51; None when no such k exists. NaN is null."""
    null = np.isnan(v)
    x = np.where(null, 0.0, v)
    for k in range(16):
        scale = 10.0 ** k
        n = np.round(x * scale)
        if np.abs(n).max(initial=0.0) >= EXACT_FLOAT:
            return None
        if np.array_equal(n / scale, x):
            d = None if k == 0 else np.full(len(v), 10 ** k, np.int64)
            return NumVec(n.astype(np.int64), d, null if null.any() else None)
    return None
