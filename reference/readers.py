"""Readers: an event stream from a file (CSV, Parquet, JSON Lines), a pandas DataFrame or an Arrow table,
as one `reference.events.EventBatch`, and back to pandas.

Every mistake in the input is reported as an `EventError` naming the source row (1-based, header
excluded) and the column.
"""
from __future__ import annotations

import json
import os
import re
from typing import Any

import numpy as np
import pandas as pd

from reference.errors import EventError
from reference.events import TIME_UNITS, EventBatch, assemble, attribute_column, exact

__all__ = [
    "from_pandas", "from_arrow", "to_pandas", "read_csv", "read_parquet", "read_jsonl", "read_events",
    "event_format", "check_file",
]

_INT64_MIN, _INT64_MAX = np.iinfo(np.int64).min, np.iinfo(np.int64).max
# CSV cells read as null; pandas' default list would also turn names such as 'NA' or 'None' into nulls.
_CSV_NULLS = ["", "NaN", "nan", "NULL", "null"]
_INT_TEXT = r"\s*[+-]?\d+\s*"


# ---------------------------------------------------------------------------------------------
# Building a batch from a DataFrame.

def from_pandas(df: pd.DataFrame, *, type_col: str | None = "type", ts_col: str = "ts",
                id_col: str | None = "id", ts_unit: str | None = None, sort: bool = False,
                default_type: str | None = None) -> EventBatch:
    """Events from a DataFrame, one row per event."""
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"from_pandas expects a pandas DataFrame, not {type(df).__name__}")
    if ts_unit is not None and ts_unit not in TIME_UNITS:
        raise EventError(f"unknown time unit {ts_unit!r} (expected one of {', '.join(TIME_UNITS)})")
    names = [str(c) for c in df.columns]
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise EventError(f"duplicate column '{name}'", column=name)
        seen.add(name)
    df = df.set_axis(names, axis=1).reset_index(drop=True)
    n = len(df)

    if type_col is not None and type_col in df.columns:
        type_codes, type_names = _read_types(df[type_col], type_col)
    elif default_type is not None:
        if not isinstance(default_type, str) or not default_type.strip():
            raise EventError(f"the default event type must be a non-empty name, not {default_type!r}")
        type_codes, type_names = np.zeros(n, dtype=np.int32), ((default_type,) if n else ())
    else:
        raise EventError(f"missing event type column '{type_col}' (or pass default_type / --default-type)",
                         column=type_col)

    if ts_col not in df.columns:
        raise EventError(f"missing timestamp column '{ts_col}'", column=ts_col)
    ts, is_datetime = _read_ts(df[ts_col], ts_col)
    if is_datetime:
        ts_unit = "ns"

    if id_col is not None and id_col in df.columns:
        ids = _read_ids(df[id_col], id_col)
    else:
        ids = np.arange(n, dtype=np.int64)

    skip = {type_col, ts_col, id_col}
    columns = {name: attribute_column(df[name]) for name in df.columns if name not in skip}
    return assemble(columns, type_codes, type_names, ts, ids, ts_unit, sort, ts_col,
                    positional_ids=id_col is None or id_col not in df.columns)


def _first(mask: np.ndarray) -> int:
    """1-based row of the first True in `mask`."""
    return int(np.flatnonzero(mask)[0]) + 1


def _read_types(s: pd.Series, col: str) -> tuple[np.ndarray, tuple[str, ...]]:
    raw_codes, uniques = pd.factorize(s.astype(object), use_na_sentinel=True)
    texts = [str(u).strip() for u in uniques]
    bad = raw_codes < 0
    empty = [k for k, t in enumerate(texts) if not t]
    if empty:
        bad |= np.isin(raw_codes, empty)
    if bad.any():
        raise EventError("missing event type", row=_first(bad), column=col)
    names = tuple(sorted(set(texts)))
    position = {name: k for k, name in enumerate(names)}
    remap = np.array([position[t] for t in texts], dtype=np.int32)
    return remap[raw_codes] if len(raw_codes) else np.zeros(0, dtype=np.int32), names


def _read_ts(s: pd.Series, col: str) -> tuple[np.ndarray, bool]:
    """Timestamps as int64, and whether they were datetimes (then in nanoseconds)."""
    null = s.isna().to_numpy()
    if null.any():
        raise EventError("missing timestamp", row=_first(null), column=col)
    dtype = s.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        s = s.astype(object)
        dtype = s.dtype
    if isinstance(dtype, pd.DatetimeTZDtype) or dtype.kind == "M":
        try:
            return pd.DatetimeIndex(s).as_unit("ns").asi8.copy(), True
        except (OverflowError, ValueError) as e:
            raise EventError(f"timestamps out of the nanosecond range: {e}", column=col) from None
    if dtype.kind == "m":
        try:
            return pd.TimedeltaIndex(s).as_unit("ns").asi8.copy(), True
        except (OverflowError, ValueError) as e:
            raise EventError(f"timestamps out of the nanosecond range: {e}", column=col) from None
    if dtype.kind in "iu":
        values = s.to_numpy()
        if dtype.kind == "u" and len(values) and values.max() > _INT64_MAX:
            raise EventError(f"timestamp {int(values.max())} is too large",
                             row=_first(values > _INT64_MAX), column=col)
        return values.astype(np.int64), False
    if dtype.kind == "f":
        values = s.to_numpy(dtype=np.float64)
        bad = ~np.isfinite(values) | (values != np.round(values)) \
            | (values >= 2.0**63) | (values < -(2.0**63))
        if bad.any():
            i = _first(bad)
            raise EventError(f"timestamp {values[i - 1]!r} is not a whole number of ticks",
                             row=i, column=col)
        return values.astype(np.int64), False
    if dtype.kind == "b":
        raise EventError(f"cannot read timestamp {bool(s.iloc[0])!r} (expected an integer or an ISO-8601 "
                         "datetime)", row=1, column=col)

    obj = s.astype(object)
    is_bool = obj.map(lambda v: isinstance(v, (bool, np.bool_))).to_numpy(dtype=bool) if len(obj) else \
        np.zeros(0, dtype=bool)
    text = obj.astype(str)
    integral = text.str.fullmatch(_INT_TEXT).to_numpy(dtype=bool) & ~is_bool
    if integral.all():
        try:
            return text.str.strip().astype(np.int64).to_numpy(), False
        except (OverflowError, ValueError):
            too_big = text.map(lambda t: not _INT64_MIN <= int(t) <= _INT64_MAX).to_numpy(dtype=bool)
            i = _first(too_big)
            raise EventError(f"timestamp {text.iloc[i - 1].strip()} is too large", row=i,
                             column=col) from None
    parsed = pd.to_datetime(obj.where(~is_bool, None), format="ISO8601", utc=True, errors="coerce")
    bad = parsed.isna().to_numpy() | is_bool
    if bad.any():
        i = _first(bad)
        value = obj.iloc[i - 1]
        shown = value if isinstance(value, str) else str(value)
        raise EventError(f"cannot read timestamp {shown!r} (expected an integer or an ISO-8601 datetime)",
                         row=i, column=col)
    return pd.DatetimeIndex(parsed).as_unit("ns").asi8.copy(), True


def _read_ids(s: pd.Series, col: str) -> np.ndarray:
    null = s.isna().to_numpy()
    if null.any():
        raise EventError("missing event id", row=_first(null), column=col)
    try:
        dup = s.duplicated(keep="first").to_numpy()
    except TypeError:
        raise EventError("event ids must be numbers or strings", column=col) from None
    if dup.any():
        i = _first(dup)
        raise EventError(f"duplicate event id {exact(s.iloc[i - 1])!r}", row=i, column=col)
    dtype = s.dtype
    if dtype.kind in "iu" and not (dtype.kind == "u" and len(s) and s.max() > _INT64_MAX):
        return s.to_numpy(dtype=np.int64)
    if dtype.kind == "f":
        values = s.to_numpy(dtype=np.float64)
        if np.all(values == np.round(values)) and np.all(np.abs(values) < 2.0**63):
            return values.astype(np.int64)
        return values
    if isinstance(dtype, pd.DatetimeTZDtype) or dtype.kind == "M":
        return pd.DatetimeIndex(s).as_unit("ns").asi8.copy()
    return s.astype(object).to_numpy(dtype=object)


def to_pandas(batch: EventBatch) -> pd.DataFrame:
    """The batch as a DataFrame with columns type, ts, id and the attributes (inverse of from_pandas)."""
    names = np.asarray(batch.type_names, dtype=object)
    data: dict[str, Any] = {
        "type": names[batch.type_codes] if len(batch) else np.zeros(0, dtype=object),
        "ts": batch.ts,
        "id": batch.ids,
    }
    for name, values in batch.columns.items():
        if name not in data:
            data[name] = values
    return pd.DataFrame(data)


# ---------------------------------------------------------------------------------------------
# Readers.

def from_arrow(table: Any, **kw: Any) -> EventBatch:
    """Events from a pyarrow Table or RecordBatch (keywords as for from_pandas)."""
    import pyarrow as pa

    if isinstance(table, pa.RecordBatch):
        table = pa.Table.from_batches([table])
    if not isinstance(table, pa.Table):
        raise TypeError(f"from_arrow expects a pyarrow Table or RecordBatch, not {type(table).__name__}")
    from reference.arrow_events import columnar_batch

    batch = columnar_batch(table, **kw)  # plain columns straight from Arrow; None: the pandas path decides
    if batch is not None:
        return batch
    try:
        df = table.to_pandas()
    except (pa.ArrowException, ValueError, OverflowError) as e:
        raise EventError(f"cannot convert the Arrow data: {e}") from None
    return from_pandas(df, **kw)


def check_file(path: Any) -> str:
    path = os.fspath(path)
    if not os.path.exists(path):
        raise EventError(f"no such file: '{path}'")
    if os.path.isdir(path):
        raise EventError(f"'{path}' is a directory, not an events file")
    return path


# pandas options shared by the whole-file and the chunked CSV readers (reference/event_chunks.py)
CSV_OPTIONS = dict(keep_default_na=False, na_values=_CSV_NULLS, skipinitialspace=True)


def csv_error(path: str, e: Exception) -> EventError:
    """The EventError for a pandas CSV failure (a parse error names its row)."""
    if isinstance(e, pd.errors.EmptyDataError):
        return EventError(f"'{path}' is empty (a CSV file needs a header row)")
    if isinstance(e, pd.errors.ParserError):
        message = str(e)
        line = re.search(r"line (\d+)", message)
        row = int(line.group(1)) - 1 if line else None
        return EventError(f"cannot parse '{path}' as CSV: {message}", row=row if row and row > 0 else None)
    return EventError(f"cannot read '{path}': {e}")


CSV_FAILURES = (pd.errors.EmptyDataError, pd.errors.ParserError, OSError, UnicodeDecodeError, ValueError)


def read_csv(path: Any, **kw: Any) -> EventBatch:
    """Events from a CSV file with a header row (keywords as for from_pandas)."""
    path = check_file(path)
    try:
        df = pd.read_csv(path, low_memory=False, **CSV_OPTIONS)
    except CSV_FAILURES as e:
        raise csv_error(path, e) from None
    return from_pandas(df, **kw)


def read_parquet(path: Any, **kw: Any) -> EventBatch:
    """Events from a Parquet file (keywords as for from_pandas)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = check_file(path)
    try:
        table = pq.read_table(path)
    except (OSError, pa.ArrowException, ValueError) as e:
        raise EventError(f"cannot read '{path}' as Parquet: {e}") from None
    return from_arrow(table, **kw)


# pandas options shared by the whole-file and the chunked JSON readers
JSON_OPTIONS = dict(dtype=False, convert_dates=False, keep_default_dates=False, precise_float=True)


def read_jsonl(path: Any, **kw: Any) -> EventBatch:
    """Events from a JSON Lines file, one object per line (a JSON array of objects is accepted too)."""
    path = check_file(path)
    options = JSON_OPTIONS
    is_array = False
    try:
        with open(path, "rb") as f:
            head = f.read(4096).lstrip()
        if not head:
            return _empty_batch(kw)
        is_array = head.startswith(b"[") and not path.lower().endswith((".gz", ".bz2", ".xz", ".zst"))
        df = pd.read_json(path, lines=not is_array, orient="records" if is_array else None, **options)
    except (OSError, UnicodeDecodeError) as e:
        raise EventError(f"cannot read '{path}': {e}") from None
    except ValueError as e:
        row = None if is_array else first_bad_json_line(path)
        raise EventError(f"cannot parse '{path}' as JSON{'' if is_array else ' Lines'}: {e}", row=row) \
            from None
    if len(df.columns) == 0 and len(df) == 0:
        return _empty_batch(kw)
    return from_pandas(df, **kw)


def _empty_batch(kw: dict[str, Any]) -> EventBatch:
    """A batch with no events (an empty file), after checking the keywords as from_pandas would."""
    ts_unit = kw.get("ts_unit")
    if ts_unit is not None and ts_unit not in TIME_UNITS:
        raise EventError(f"unknown time unit {ts_unit!r} (expected one of {', '.join(TIME_UNITS)})")
    empty = np.zeros(0, dtype=np.int64)
    return EventBatch(columns={}, type_codes=np.zeros(0, dtype=np.int32), type_names=(), ts=empty,
                      ids=empty.copy(), ts_unit=ts_unit, source_rows=empty.copy())


def first_bad_json_line(path: str) -> int | None:
    """1-based number of the first non-blank line that is not a JSON object, counting non-blank lines."""
    try:
        with open(path, encoding="utf-8") as f:
            row = 0
            for line in f:
                if not line.strip():
                    continue
                row += 1
                try:
                    if not isinstance(json.loads(line), dict):
                        return row
                except ValueError:
                    return row
    except (OSError, UnicodeDecodeError):
        return None
    return None


_FORMATS = {
    "csv": "csv", "parquet": "parquet", "pq": "parquet",
    "jsonl": "jsonl", "ndjson": "jsonl", "json": "jsonl",
}
_READERS = {"csv": read_csv, "parquet": read_parquet, "jsonl": read_jsonl}
_COMPRESSED = (".gz", ".bz2", ".xz", ".zst", ".zip")


def event_format(path: Any, format: str | None = None) -> str:
    """csv, parquet or jsonl: the format named, or the one the file's extension gives."""
    path = os.fspath(path)
    if format is None:
        stem = path.lower()
        for ext in _COMPRESSED:
            if stem.endswith(ext):
                stem = stem[: -len(ext)]
                break
        ext = os.path.splitext(stem)[1].lstrip(".")
        if ext not in _FORMATS:
            shown = f"extension '.{ext}'" if ext else "no extension"
            raise EventError(f"cannot tell the format of '{path}' from its {shown} "
                             "(use .csv, .parquet/.pq or .jsonl/.ndjson/.json, or name the format)")
        return _FORMATS[ext]
    kind = _FORMATS.get(str(format).lower().lstrip("."))
    if kind is None:
        raise EventError(f"unknown events format '{format}' (expected csv, parquet or jsonl)")
    return kind


def read_events(path: Any, format: str | None = None, **kw: Any) -> EventBatch:
    """Events from a file; the format (csv, parquet, jsonl) comes from the extension unless given."""
    path = os.fspath(path)
    kind = event_format(path, format)
    check_file(path)
    return _READERS[kind](path, **kw)
