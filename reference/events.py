"""The event model: a stream of events as one columnar batch, and the exact values read from it.

An event has a type, an integer timestamp, an id and any number of attributes. `EventBatch` holds them
column by column; `exact` is the exact Python value (int, Fraction, str, bool, None) of one cell, and
`attribute_column` is the one form an attribute column takes. Reading files, DataFrames and Arrow tables
into a batch is `reference.readers`.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any, Iterable

import numpy as np
import pandas as pd

from reference.errors import EventError
from reference.language.units import NANOS

__all__ = ["TIME_UNITS", "EventBatch", "exact", "assemble", "attribute_column"]

TIME_UNITS: dict[str, int] = NANOS  # unit name -> nanoseconds, shared with query durations

_INT64_MAX = np.iinfo(np.int64).max


@dataclass(eq=False)
class EventBatch:
    """Columnar events, in stream (timestamp) order."""

    columns: dict[str, np.ndarray]
    type_codes: np.ndarray
    type_names: tuple[str, ...]
    ts: np.ndarray
    ids: np.ndarray
    ts_unit: str | None
    source_rows: np.ndarray
    # True when ids are row positions made up by the reader (no id column): a program fed several
    # such batches numbers them on, so ids stay unique across the stream. A slice has fixed ids.
    positional_ids: bool = False
    ts_col: str = "ts"  # the input column the timestamps came from (MATCH_RECOGNIZE names it in queries)

    def __len__(self) -> int:
        return len(self.ts)

    def type_code(self, name: str) -> int | None:
        """The code of event type `name`, or None if no event has that type."""
        try:
            return self.type_names.index(name)
        except ValueError:
            return None

    def type_of(self, i: int) -> str:
        """The type name of event `i`."""
        return self.type_names[int(self.type_codes[i])]

    def slice(self, start: int, stop: int) -> "EventBatch":
        """Events start..stop-1 as a batch sharing this one's type dictionary."""
        return EventBatch(
            columns={k: v[start:stop] for k, v in self.columns.items()},
            type_codes=self.type_codes[start:stop],
            type_names=self.type_names,
            ts=self.ts[start:stop],
            ids=self.ids[start:stop],
            ts_unit=self.ts_unit,
            source_rows=self.source_rows[start:stop],
            ts_col=self.ts_col,
        )

    def exact_value(self, column: str, i: int) -> Any:
        """Attribute `column` of event `i` as an exact Python value (int, Fraction, str, bool or None)."""
        return exact(self.columns[column][i])

    def require_columns(self, names: Iterable[str], context: dict[str, str] | None = None) -> None:
        """Raise EventError for the first of `names` that is not an attribute column."""
        for name in names:
            if name not in self.columns:
                why = f" (needed by {context[name]})" if context and name in context else ""
                raise EventError(f"missing attribute column '{name}'{why}", column=name)

    def require_numeric(self, column: str, rows: np.ndarray | None = None,
                        context: str | None = None) -> None:
        """Check that `column` holds numbers (or nulls) at `rows` (a mask or indices; all if None).

        Numeric strings are converted to numbers in place, so that `exact_value` yields numbers.
        """
        self.require_columns([column])
        values = self.columns[column]
        if values.dtype.kind in "biuf":
            return
        if rows is None:
            idx = np.arange(len(values))
        else:
            rows = np.asarray(rows)
            idx = np.flatnonzero(rows) if rows.dtype == bool else rows.astype(np.int64, copy=False)
        series = pd.Series(values, dtype=object)
        numeric = pd.to_numeric(series, errors="coerce")
        null = series.isna().to_numpy()
        suspect = ~null & numeric.isna().to_numpy()
        for i in idx[suspect[idx]]:
            value = values[i]
            if not _is_numeric_value(value):
                raise EventError(f"non-numeric value {value!r} in a compared attribute{_context(context)}",
                                 row=int(self.source_rows[i]), column=column)
        is_str = np.fromiter((isinstance(v, str) for v in values[idx]), dtype=bool, count=len(idx))
        if not is_str.any():
            return
        whole_ok = not any(not _is_numeric_value(values[i]) for i in np.flatnonzero(suspect))
        if whole_ok:
            if numeric.dtype.kind in "iu" and not (numeric.dtype.kind == "u" and numeric.max() > _INT64_MAX):
                self.columns[column] = numeric.to_numpy(dtype=np.int64)
            else:
                self.columns[column] = numeric.to_numpy(dtype=np.float64, na_value=np.nan)
        else:
            # Other rows hold text: convert only the checked numeric strings, keeping the object column.
            conv = idx[is_str]
            converted = numeric.to_numpy(dtype=object)[conv]
            converted[pd.isna(converted)] = None
            values[conv] = converted


def _context(context: str | None) -> str:
    if not context:
        return ""
    if context[0].isspace() or context[0] in "(,;:-":
        return context
    return f" ({context})"


def _is_numeric_value(value: Any) -> bool:
    """True for a number, a null, or a string that reads as a number."""
    if value is None or value is pd.NA:
        return True
    if isinstance(value, str):
        try:
            float(value)
        except ValueError:
            return False
        return True
    return isinstance(value, (numbers.Real, Decimal, np.bool_))


def exact(value: Any) -> Any:
    if value is None or value is pd.NA:
        return None
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if math.isnan(value):
            return None
        if math.isinf(value):
            return value
        if value.is_integer():
            return int(value)
        return Fraction(repr(value))
    if isinstance(value, (Decimal, Fraction)):
        if isinstance(value, Decimal) and not value.is_finite():
            return None if value.is_nan() else float(value)
        value = Fraction(value)
        return value.numerator if value.denominator == 1 else value
    return value


def assemble(columns: dict[str, np.ndarray], type_codes: np.ndarray, type_names: tuple[str, ...], ts: np.ndarray,
             ids: np.ndarray, ts_unit: str | None, sort: bool, ts_col: str, positional_ids: bool) -> EventBatch:
    """The batch from read columns, after the timestamp order check (or the stable sort)."""
    n = len(ts)
    source_rows = np.arange(1, n + 1, dtype=np.int64)
    if n > 1:
        back = np.flatnonzero(ts[1:] < ts[:-1])
        if back.size:
            if not sort:
                i = int(back[0]) + 1
                raise EventError(
                    f"timestamps are not in order: {int(ts[i])} comes after {int(ts[i - 1])} "
                    "(sort the events by time, or pass sort=True / --sort)", row=i + 1, column=ts_col)
            order = np.argsort(ts, kind="stable")
            ts, ids, type_codes, source_rows = ts[order], ids[order], type_codes[order], source_rows[order]
            columns = {k: v[order] for k, v in columns.items()}

    return EventBatch(columns=columns, type_codes=type_codes, type_names=type_names, ts=ts, ids=ids,
                      ts_unit=ts_unit, source_rows=source_rows, positional_ids=positional_ids, ts_col=ts_col)


def attribute_column(s: pd.Series) -> np.ndarray:
    """One attribute column as int64, float64 (NaN for null), bool, or object (None for null)."""
    dtype = s.dtype
    null = s.isna().to_numpy()
    has_null = bool(null.any())
    if isinstance(dtype, pd.DatetimeTZDtype) or dtype.kind in "Mm":
        index = pd.DatetimeIndex(s) if dtype.kind != "m" else pd.TimedeltaIndex(s)
        values = index.as_unit("ns").asi8.copy()
        if not has_null:
            return values
        out = values.astype(object)
        out[null] = None
        return out
    if isinstance(dtype, pd.CategoricalDtype) or dtype == object or isinstance(dtype, pd.StringDtype):
        out = s.astype(object).to_numpy(dtype=object, copy=True)
        if has_null:
            out[null] = None
        return out
    if dtype.kind == "b":
        if not has_null:
            return s.to_numpy(dtype=bool)
        out = s.astype(object).to_numpy(dtype=object, copy=True)
        out[null] = None
        return out
    if dtype.kind in "iu":
        if has_null:
            return s.to_numpy(dtype=np.float64, na_value=np.nan)
        if dtype.kind == "u" and len(s) and s.max() > _INT64_MAX:
            return s.astype(object).map(int).to_numpy(dtype=object)
        return s.to_numpy(dtype=np.int64)
    if dtype.kind == "f":
        return s.to_numpy(dtype=np.float64, na_value=np.nan)
    out = s.astype(object).to_numpy(dtype=object, copy=True)
    if has_null:
        out[null] = None
    return out
