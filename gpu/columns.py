"""EventBatch columns as device-ready NumPy arrays, and the clexpr Operand that reads them in a kernel.

A column becomes int64 ('long'), float64 ('double', NaN never reaches a comparison: it is null) or int32
codes into a sorted dictionary ('code') shared by every column of a group (the columns a condition
compares), plus a uint8 null mask when the column has nulls. Text that reads as a number also gets a
numeric view, so text/number comparisons follow cepkit.front.evaluate.compare_values. Values the kernels
cannot hold exactly (integers beyond int64, mixed text and numbers, float ids) raise Unsupported.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from cepkit.gpu.clexpr import INT64_MAX, INT64_MIN, Operand, exact_float
from cepkit.core.errors import Unsupported
from cepkit.front.evaluate import as_number
from cepkit.core.events import exact


@dataclass
class DeviceColumn:
    """One column ready for a device: `values` (int64, float64 or int32 codes) and an optional null mask."""

    kind: str
    values: np.ndarray
    null: np.ndarray | None = None
    dictionary: tuple[str, ...] | None = None
    number: "DeviceColumn | None" = None
    boolean: bool = False
    decimal: np.ndarray | None = None      # float64 values as int64 multiples of 10**-scale (for arithmetic)
    scale: int = 0

    def arrays(self) -> list[np.ndarray]:
        """The arrays a kernel receives for this column, in the order of params()."""
        out = [self.values] + ([self.null] if self.null is not None else [])
        out += [self.decimal] if self.decimal is not None else []
        return out + (self.number.arrays() if self.number is not None else [])

    def params(self, name: str) -> list[str]:
        """OpenCL C parameter declarations for arrays(), named after `name`."""
        ctype = {"long": "long", "double": "double", "code": "int"}[self.kind]
        out = [f"__global const {ctype} *{name}"]
        if self.null is not None:
            out.append(f"__global const uchar *{name}_null")
        if self.decimal is not None:
            out.append(f"__global const long *{name}_dec")
        return out + (self.number.params(f"{name}_num") if self.number is not None else [])

    def operand(self, name: str, index: str) -> Operand:
        """The Operand reading element `index` (a C expression) of the arrays named by params(name)."""
        null = f"{name}_null[{index}]" if self.null is not None else None
        num = self.number.operand(f"{name}_num", index) if self.number is not None else None
        exact = (Operand(f"{name}_dec[{index}]", "ratio", null, den=f"({10 ** self.scale}L)")
                 if self.decimal is not None else None)
        return Operand(f"{name}[{index}]", self.kind, null, self.dictionary, num, self.boolean, exact=exact)

    def take(self, rows: np.ndarray) -> "DeviceColumn":
        """The column at the given row positions (the same dictionary)."""
        return DeviceColumn(self.kind, self.values[rows], None if self.null is None else self.null[rows],
                            self.dictionary, None if self.number is None else self.number.take(rows),
                            self.boolean, None if self.decimal is None else self.decimal[rows], self.scale)


def raw_column(batch, name: str) -> np.ndarray:
    """The values of attribute `name`, or of the event timestamp ('ts') or id ('id')."""
    if name == "ts":
        return np.asarray(batch.ts, dtype=np.int64)
    if name == "id" and name not in batch.columns:
        ids = np.asarray(batch.ids)
        if ids.dtype.kind == "f":   # the reference compares such ids as binary floats, not decimals
            raise Unsupported("gpu", "conditions on non-integral float ids")
        return ids
    return batch.columns[name]


def device_columns(group: Sequence[np.ndarray], names: Sequence[str] | str, engine: str = "gpu",
                   decimal: Sequence[bool] | None = None) -> list[DeviceColumn]:
    """Device columns for raw columns that are compared with each other (one shared text dictionary);
    float64 columns flagged in `decimal` (computed with) also get their exact decimal form."""
    if isinstance(names, str):      # one name for the whole group
        names = [names] * len(group)
    texts: set[str] = set()
    kinds = [_classify(v, name, engine) for v, name in zip(group, names)]
    for v, k in zip(group, kinds):
        if k == "text":
            texts.update(x for x in v if x is not None)
    dictionary = tuple(sorted(texts))
    out = [_text(v, dictionary, name, engine) if k == "text" else _numeric(v, k, name, engine)
           for v, k, name in zip(group, kinds, names)]
    for col, want, name in zip(out, decimal or [False] * len(out), names):
        if want and col.kind == "double":
            col.decimal, col.scale = _decimal(col, name, engine)
    return out


def device_column(raw: np.ndarray, name: str, engine: str = "gpu") -> DeviceColumn:
    return device_columns([raw], [name], engine)[0]


def _classify(v: np.ndarray, name: str, engine: str) -> str:
    if v.dtype.kind in "iu":
        if v.dtype.kind == "u" and len(v) and v.max() > INT64_MAX:
            raise Unsupported(engine, f"integers beyond int64 (column '{name}')")
        return "int"
    if v.dtype.kind == "f":
        return "float"
    if v.dtype.kind == "b":
        return "bool"
    kinds = set()
    for x in v:
        x = exact(x)
        if x is None:
            continue
        kinds.add("text" if isinstance(x, str) else "bool" if isinstance(x, bool) else "num")
        if len(kinds) > 1:
            raise Unsupported(engine, f"a column mixing text, numbers or booleans (column '{name}')")
    return kinds.pop() if kinds else "int"


def _numeric(v: np.ndarray, kind: str, name: str, engine: str) -> DeviceColumn:
    if kind == "int":
        if v.dtype == object:
            return _from_exact([exact(x) for x in v], name, engine)
        return DeviceColumn("long", v.astype(np.int64, copy=False))
    if kind == "float":
        values = v.astype(np.float64, copy=False)
        nan = np.isnan(values)
        mask = nan.astype(np.uint8) if nan.any() else None
        present = values[~nan]
        if np.all(np.isfinite(present)) and np.all(present == np.floor(present)) and \
                np.all((present >= -2.0 ** 63) & (present < 2.0 ** 63)):
            # integral floats are exact integers to the reference (an int column with nulls reads as float)
            return DeviceColumn("long", np.where(nan, 0, values).astype(np.int64), mask)
        return DeviceColumn("double", values, mask)
    if kind == "bool":
        null = np.array([x is None for x in v], dtype=bool) if v.dtype == object else np.zeros(len(v), bool)
        values = np.array([bool(x) if x is not None else False for x in v], dtype=np.int64)
        return DeviceColumn("long", values, null.astype(np.uint8) if null.any() else None, boolean=True)
    return _from_exact([exact(x) for x in v], name, engine)


def _from_exact(values: list, name: str, engine: str) -> DeviceColumn:
    """Exact numbers (or None) as int64 when they all are int64 integers, else float64 if exact."""
    null = np.array([x is None for x in values], dtype=bool)
    present = [x for x in values if x is not None]
    mask = null.astype(np.uint8) if null.any() else None
    if all(isinstance(x, int) and INT64_MIN <= x <= INT64_MAX for x in present):
        return DeviceColumn("long", np.array([0 if x is None else x for x in values], dtype=np.int64), mask)
    out = np.array([np.nan if x is None else float(x) for x in values], dtype=np.float64)
    for x, d in zip(values, out):
        if x is not None and exact_float(float(d)) != x:
            raise Unsupported(engine, f"numbers that float64 cannot hold exactly (column '{name}': {x})")
    return DeviceColumn("double", out, mask)


def _text(v: np.ndarray, dictionary: tuple[str, ...], name: str, engine: str) -> DeviceColumn:
    codes = pd.Categorical(pd.Series(v, dtype=object), categories=list(dictionary)).codes.astype(np.int32)
    null = codes < 0
    col = DeviceColumn("code", np.where(null, 0, codes).astype(np.int32), null.astype(np.uint8) if null.any()
                       else None, dictionary)
    parsed = [as_number(t) for t in dictionary]
    if any(not isinstance(p, str) for p in parsed):
        table = [None if isinstance(p, str) else p for p in parsed]
        numbers = _from_exact(table, name, engine)
        num_null = numbers.null if numbers.null is not None else np.zeros(len(table), np.uint8)
        rows = np.where(null, 0, codes)
        nulls = (num_null[rows] | null.astype(np.uint8)) if len(table) else np.ones(len(v), np.uint8)
        col.number = DeviceColumn(numbers.kind, numbers.values[rows] if len(table) else
                                  np.zeros(len(v), np.int64), nulls.astype(np.uint8))
    return col


__all__ = ["DeviceColumn", "device_column", "device_columns", "raw_column"]


def scaled_integers(raw: np.ndarray, name: str, engine: str = "gpu") -> tuple[np.ndarray, np.ndarray | None, int]:
    """A numeric column as exact int64 multiples of 10**-scale: (values, null mask or None, scale).
    float64 values are the reference's exact decimals (their shortest repr); Unsupported when no int64
    scale holds them all."""
    col = device_column(raw, name, engine)
    if col.kind == "long":
        return col.values, col.null, 0
    if col.kind != "double":
        raise Unsupported(engine, f"aggregating non-numbers (column '{name}')")
    values, scale = _decimal(col, name, engine)
    return values, col.null, scale


def _decimal(col: DeviceColumn, name: str, engine: str) -> tuple[np.ndarray, int]:
    """A float64 column's exact decimals as int64 multiples of 10**-scale (the smallest such scale)."""
    present = np.unique(col.values[~np.isnan(col.values)])
    exact = [exact_float(float(d)) for d in present]
    if any(isinstance(x, float) for x in exact):
        raise Unsupported(engine, f"computing with infinite values (column '{name}')")
    scale = 0
    for x in exact:
        den = x.denominator if hasattr(x, "denominator") else 1
        twos = (den & -den).bit_length() - 1
        scale = max(scale, twos, _fives(den >> twos))
    factor = 10 ** scale
    scaled = [int(x * factor) for x in exact]
    if any(not INT64_MIN <= v <= INT64_MAX for v in scaled):
        raise Unsupported(engine, f"float64 values without a common int64 decimal scale (column '{name}')")
    nan = np.isnan(col.values)
    if not len(present):
        return np.zeros(len(col.values), dtype=np.int64), 0
    pos = np.searchsorted(present, np.where(nan, present[0], col.values))
    return np.where(nan, 0, np.array(scaled, dtype=np.int64)[pos]).astype(np.int64), scale


def _fives(n: int) -> int:
    k = 0
    while n > 1 and n % 5 == 0:
        n //= 5
        k += 1
    return k
