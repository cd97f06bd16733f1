"""The event model: a stream of events as one columnar batch, and the exact values read from it.

An event has a type, an integer timestamp, an id and any number of attributes. `EventBatch` holds them
column by column; `exact` is the exact Python value (int, Fraction, str, bool, None) of one cell, and
`attribute_column` is the one form an attribute column takes. Reading files, DataFrames and Arrow tables
into a batch is `cepkit.core.readers`.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any, Iterable

import numpy as np

from cepkit.core.errors import EventError
from cepkit.core.units import NANOS
from cepkit.core.numbers_text import NotANumber, exact, parse_number  # noqa: F401  (exact: where callers find it)
from cepkit.core.typed_columns import values_column
from cepkit.core.lazy_import import lazy_module

pd = lazy_module("pandas")  # imported where a column needs it (the common CSV / Parquet shapes do not)

__all__ = ["TIME_UNITS", "EventBatch", "exact", "assemble", "attribute_column", "number_value"]

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
    # How the input wrote its timestamps: True when they were datetimes (then `ts` is nanoseconds since
    # 1970-01-01 UTC), and the time zone they carried ("UTC", "+02:00", "Europe/Berlin"; None: naive).
    # Output writers print them back in that form (cepkit --ts-format, docs/semantics.md TS-1).
    ts_datetime: bool = False
    ts_tz: str | None = None
    # A chunk of a file read in chunks (cepkit.core.event_chunks): for each attribute column that is text
    # over the whole file, {event type: (row, value) of its first cell of that type that is not a number},
    # so that `require_numeric` decides as it would over the whole file (docs/semantics.md SD2). None: the
    # batch is the whole input.
    text_elsewhere: dict[str, dict[str, tuple[int, Any]]] | None = None

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
        """Events start..stop-1 as a batch sharing this one's type dictionary (made-up row ids stay made up
        from the first event on; past it they are the ids they were)."""
        return EventBatch(
            columns={k: v[start:stop] for k, v in self.columns.items()},
            type_codes=self.type_codes[start:stop],
            type_names=self.type_names,
            ts=self.ts[start:stop],
            ids=self.ids[start:stop],
            ts_unit=self.ts_unit,
            source_rows=self.source_rows[start:stop],
            positional_ids=self.positional_ids and start == 0,
            ts_col=self.ts_col,
            ts_datetime=self.ts_datetime,
            ts_tz=self.ts_tz,
            text_elsewhere=self.text_elsewhere,
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
                        context: str | None = None, types: Iterable[str] | None = None) -> None:
        """Check that `column` holds numbers (or nulls) at `rows` (a mask or indices; all if None): text that
        reads as a number (cepkit.core.numbers_text) is one; a boolean, other text, an array or an object is
        not (EventError naming the row and column). `types`: the event types `rows` stand for (None: all),
        for a chunk of a file read in chunks, whose other chunks count as well (`text_elsewhere`).

        Numeric text is converted in place, so that `exact_value` yields numbers; a column that is numbers
        on every row becomes a typed column (cepkit.core.typed_columns.values_column).
        """
        self.require_columns([column])
        values = self.columns[column]
        if values.dtype.kind in "iuf":
            return
        elsewhere = (self.text_elsewhere or {}).get(column)
        if elsewhere:  # as over the whole file: the first cell of a type read that is not a number
            wanted = None if types is None else set(types)
            bad = [(row, v) for t, (row, v) in elsewhere.items() if wanted is None or t in wanted]
            if bad:
                row, v = min(bad, key=lambda rv: rv[0])
                raise EventError(f"non-numeric value {v!r} in a compared attribute{_context(context)}",
                                 row=row, column=column)
        if rows is None:
            idx = np.arange(len(values))
        else:
            rows = np.asarray(rows)
            idx = np.flatnonzero(rows) if rows.dtype == bool else rows.astype(np.int64, copy=False)
        if values.dtype.kind == "b":
            if len(idx):
                i = int(idx[0])
                raise EventError(f"non-numeric value {bool(values[i])!r} in a compared attribute{_context(context)}",
                                 row=int(self.source_rows[i]), column=column)
            return
        converted = values.copy()
        for i in idx:
            try:
                converted[i] = number_value(values[i])
            except NotANumber:
                raise EventError(f"non-numeric value {values[i]!r} in a compared attribute{_context(context)}",
                                 row=int(self.source_rows[int(i)]), column=column) from None
        if elsewhere:  # other rows of the file hold text (of other types): convert only the checked ones
            values[idx] = converted[idx]
            return
        if len(idx) < len(values):
            rest = np.ones(len(values), dtype=bool)
            rest[idx] = False
            for i in np.flatnonzero(rest):
                try:
                    converted[i] = number_value(values[i])
                except NotANumber:
                    values[idx] = converted[idx]  # other rows hold text: convert only the checked ones
                    return
        self.columns[column] = values_column(list(converted))


def _context(context: str | None) -> str:
    if not context:
        return ""
    if context[0].isspace() or context[0] in "(,;:-":
        return context
    return f" ({context})"


def number_value(value: Any) -> int | Fraction | None:
    """The exact number a cell stands for (None for null); NotANumber for a boolean, text that is not a
    number, a non-finite number, or anything else."""
    if value is None or type(value).__name__ == "NAType":
        return None
    if isinstance(value, (bool, np.bool_)):
        raise NotANumber(f"{value!r} is a boolean")
    if isinstance(value, str):
        return parse_number(value)
    if isinstance(value, (numbers.Real, Decimal)):
        if isinstance(value, (float, np.floating)) and math.isnan(value):
            return None
        if isinstance(value, Decimal) and value.is_nan():
            return None
        if isinstance(value, (float, np.floating, Decimal)) and not math.isfinite(value):
            raise NotANumber(f"{value!r} is not a finite number")
        return exact(value)
    raise NotANumber(f"{value!r} is not a number")


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


def attribute_column(s: pd.Series, name: str | None = None) -> np.ndarray:
    """One attribute column as int64, float64 (NaN for null), bool, or object (None for null).

    Integers stay exact (a column of integers with nulls is float64 only where float64 holds every one of
    them); an infinite number is refused (EventError naming the row and the column `name`).
    """
    name = str(s.name) if name is None and s.name is not None else name
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
        _refuse_odd_objects(out, name)
        return out
    if dtype.kind == "b":
        if not has_null:
            return s.to_numpy(dtype=bool)
        out = s.astype(object).to_numpy(dtype=object, copy=True)
        out[null] = None
        return out
    if dtype.kind in "iu":
        if has_null:
            return values_column([None if n else int(v) for v, n in zip(s.astype(object), null)])
        if dtype.kind == "u" and len(s) and s.max() > _INT64_MAX:
            return s.astype(object).map(int).to_numpy(dtype=object)
        return s.to_numpy(dtype=np.int64)
    if dtype.kind == "f":
        values = s.to_numpy(dtype=np.float64, na_value=np.nan)
        infinite = np.isinf(values)
        if infinite.any():
            i = int(np.flatnonzero(infinite)[0])
            raise EventError(f"infinite value {float(values[i])!r} (a number must be finite; NaN is read as "
                             "null)", row=i + 1, column=name)
        return values
    out = s.astype(object).to_numpy(dtype=object, copy=True)
    if has_null:
        out[null] = None
    _refuse_odd_objects(out, name)
    return out


_NESTED = (list, tuple, dict, set, frozenset, np.ndarray)


def _refuse_odd_objects(values: np.ndarray, name: str | None) -> None:
    """EventError at the first nested value (array, object: an attribute is a number, text, a boolean or null)
    or infinite float or Decimal of an object column."""
    kinds = set(map(type, values))
    if any(issubclass(k, _NESTED) for k in kinds):
        i = next(i for i, v in enumerate(values) if isinstance(v, _NESTED))
        raise EventError(f"{type(values[i]).__name__} value {values[i]!r:.40} is not an event attribute value "
                         "(attributes are numbers, text, booleans or null; flatten nested fields)",
                         row=i + 1, column=name)
    if not any(issubclass(k, (float, np.floating, Decimal)) for k in kinds):
        return
    for i, v in enumerate(values):
        if isinstance(v, (float, np.floating, Decimal)) and not isinstance(v, bool) and (
                (isinstance(v, Decimal) and v.is_infinite()) or (not isinstance(v, Decimal) and math.isinf(v))):
            raise EventError(f"infinite value {float(v)!r} (a number must be finite; NaN is read as null)",
                             row=i + 1, column=name)


def concat_batches(batches: list[EventBatch]) -> EventBatch:
    """One batch of several in stream order (type dictionaries merged, columns concatenated)."""
    if len(batches) == 1:
        return batches[0]
    names: list[str] = []
    for b in batches:
        names += [n for n in b.type_names if n not in names]
    codes = np.concatenate([np.asarray([names.index(n) for n in b.type_names], dtype=np.int64)[b.type_codes]
                            if len(b.type_names) else np.zeros(len(b), np.int64) for b in batches])
    columns: dict[str, np.ndarray] = {}
    for col in dict.fromkeys(c for b in batches for c in b.columns):
        parts = [b.columns[col] if col in b.columns else np.full(len(b), None, dtype=object) for b in batches]
        if len({p.dtype for p in parts}) > 1:
            parts = [p.astype(object) for p in parts]
        columns[col] = np.concatenate(parts)
    first = batches[0]
    return EventBatch(columns=columns, type_codes=codes.astype(first.type_codes.dtype, copy=False),
                      type_names=tuple(names), ts=np.concatenate([b.ts for b in batches]),
                      ids=np.concatenate([np.asarray(b.ids, dtype=object) if b.ids.dtype != batches[0].ids.dtype
                                          else b.ids for b in batches]),
                      ts_unit=first.ts_unit, source_rows=np.concatenate([b.source_rows for b in batches]),
                      positional_ids=first.positional_ids, ts_col=first.ts_col, ts_datetime=first.ts_datetime,
                      ts_tz=first.ts_tz)
