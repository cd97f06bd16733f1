"""Readers: an event stream from a file (CSV, Parquet, JSON Lines), a pandas DataFrame or an Arrow table,
as one `cepkit.core.events.EventBatch`, and back to pandas.

Every mistake in the input is reported as an `EventError` naming the source row (1-based, header
excluded) and the column.
"""
from __future__ import annotations

import itertools
import json
from fractions import Fraction
import os
import re
from typing import Any, Iterable, Iterator

import numpy as np

from cepkit.core.errors import EventError
from cepkit.core.events import TIME_UNITS, EventBatch, assemble, attribute_column, exact
from cepkit.core.numbers_text import NotANumber, parse_number
from cepkit.core.typed_columns import JsonForms, conform, json_float, text_column, values_column, values_in_form
from cepkit.core.lazy_import import lazy_module
from cepkit.core.arrow_events import columnar_batch, columns_batch

pd = lazy_module("pandas")  # imported where a column needs it (the common CSV / Parquet shapes do not)

__all__ = [
    "from_pandas", "from_columns", "from_arrow", "to_pandas", "read_csv", "read_parquet", "read_jsonl", "read_events",
    "event_format", "check_file",
]

_INT64_MIN, _INT64_MAX = np.iinfo(np.int64).min, np.iinfo(np.int64).max


# ---------------------------------------------------------------------------------------------
# Building a batch from a DataFrame.

def from_pandas(df: pd.DataFrame, *, type_col: str | None = "type", ts_col: str = "ts",
                id_col: str | None = "id", ts_unit: str | None = None, sort: bool = False,
                default_type: str | None = None) -> EventBatch:
    """Events from a DataFrame, one row per event."""
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"from_pandas expects a pandas DataFrame, not {type(df).__name__}")
    names = [str(c) for c in df.columns]
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise EventError(f"duplicate column '{name}'", column=name)
        seen.add(name)
    df = df.set_axis(names, axis=1).reset_index(drop=True)
    series = {name: df[name] for name in names}
    return _from_series(series, len(df), {name: (lambda s=s, name=name: attribute_column(s, name))
                                          for name, s in series.items()},
                        type_col, ts_col, id_col, ts_unit, sort, default_type)


def from_columns(columns: dict[str, np.ndarray], n: int, *, type_col: str | None = "type", ts_col: str = "ts",
                 id_col: str | None = "id", ts_unit: str | None = None, sort: bool = False,
                 default_type: str | None = None) -> EventBatch:
    """Events from columns already in attribute form (`cepkit.core.typed_columns`: what the CSV and JSON
    readers make), keywords as for from_pandas."""

    batch = columns_batch(columns, n, type_col=type_col, ts_col=ts_col, id_col=id_col, ts_unit=ts_unit, sort=sort,
                          default_type=default_type)  # the common shapes without pandas; None: pandas decides
    if batch is not None:
        return batch
    series = {name: pd.Series(values, dtype=values.dtype, copy=False) for name, values in columns.items()}
    return _from_series(series, n, {name: (lambda v=v: v) for name, v in columns.items()},
                        type_col, ts_col, id_col, ts_unit, sort, default_type)


def _from_series(df: dict[str, pd.Series], n: int, attributes: dict[str, Any], type_col: str | None, ts_col: str,
                 id_col: str | None, ts_unit: str | None, sort: bool, default_type: str | None) -> EventBatch:
    """The batch from named columns; `attributes` gives each column's attribute form when asked."""
    if ts_unit is not None and ts_unit not in TIME_UNITS:
        raise EventError(f"unknown time unit {ts_unit!r} (expected one of {', '.join(TIME_UNITS)})")
    if type_col is not None and type_col in df:
        type_codes, type_names = _read_types(df[type_col], type_col)
    elif default_type is not None:
        if not isinstance(default_type, str) or not default_type.strip():
            raise EventError(f"the default event type must be a non-empty name, not {default_type!r}")
        type_codes, type_names = np.zeros(n, dtype=np.int32), ((default_type,) if n else ())
    else:
        raise EventError(f"missing event type column '{type_col}' (or pass default_type / --default-type)",
                         column=type_col)

    if ts_col not in df:
        raise EventError(f"missing timestamp column '{ts_col}'", column=ts_col)
    ts, is_datetime = _read_ts(df[ts_col], ts_col)
    ts_datetime, ts_tz = _datetime_form(df[ts_col]) if is_datetime else (False, None)
    if is_datetime:
        ts_unit = "ns"

    if id_col is not None and id_col in df:
        ids = _read_ids(df[id_col], id_col)
    else:
        ids = np.arange(n, dtype=np.int64)

    skip = {type_col, ts_col, id_col}
    columns = {name: attributes[name]() for name in df if name not in skip}
    batch = assemble(columns, type_codes, type_names, ts, ids, ts_unit, sort, ts_col,
                     positional_ids=id_col is None or id_col not in df)
    batch.ts_datetime, batch.ts_tz = ts_datetime, ts_tz
    return batch


_OFFSET = re.compile(r"\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?\s*(Z|z|UTC|[+-]\d\d(?::?\d\d)?)$")


def tz_name(tz: Any) -> str | None:
    """A time zone as text pandas reads back: its name ("UTC", "Europe/Berlin") or a fixed offset "+02:00"."""
    if tz is None:
        return None
    name = getattr(tz, "key", None) or getattr(tz, "zone", None)
    if name:
        return str(name)
    offset = tz.utcoffset(None)
    if offset is None:
        return str(tz)
    minutes = int(offset.total_seconds()) // 60
    if minutes == 0:
        return "UTC"
    sign = "+" if minutes > 0 else "-"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def _offset_text(text: str) -> str | None:
    """The UTC offset an ISO-8601 text ends with ("UTC", "+02:00"), or None for a naive one."""
    m = _OFFSET.search(text.strip())
    if m is None:
        return None
    off = m.group(1)
    if off in ("Z", "z", "UTC"):
        return "UTC"
    digits = off[1:].replace(":", "")
    off = f"{off[0]}{digits[:2]}:{digits[2:] or '00'}"
    return "UTC" if off[1:] == "00:00" else off


def _datetime_form(s: pd.Series) -> tuple[bool, str | None]:
    """(whether a timestamp column that read as times held datetimes, not durations; the time zone they
    carried). Texts with one UTC offset keep it; texts mixing offsets (or naive and aware ones) are shown
    in UTC (every instant stays exact); naive texts stay naive (docs/semantics.md TS-1)."""
    dtype = s.dtype
    if isinstance(dtype, pd.DatetimeTZDtype):
        return True, tz_name(dtype.tz)
    if dtype.kind == "M":
        return True, None
    if dtype.kind == "m":
        return False, None
    zones = set()
    for v in s.astype(object):
        if isinstance(v, str):
            zones.add(_offset_text(v))
        elif hasattr(v, "tzinfo"):
            zones.add(tz_name(v.tzinfo))
        else:
            return False, None  # durations (timedelta objects)
    if len(zones) == 1:
        return True, zones.pop()
    return True, ("UTC" if zones else None)


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
    whole = [_whole(v) for v in obj]
    if all(w is not None for w in whole):
        out_of_range = [k for k, w in enumerate(whole) if not _INT64_MIN <= w <= _INT64_MAX]
        if out_of_range:
            i = out_of_range[0] + 1
            raise EventError(f"timestamp {whole[i - 1]} is too large", row=i, column=col)
        return np.array(whole, dtype=np.int64), False
    parsed = pd.to_datetime(obj.where(~is_bool, None), format="ISO8601", utc=True, errors="coerce")
    bad = parsed.isna().to_numpy() | is_bool
    if bad.any():
        i = _first(bad)
        value = obj.iloc[i - 1]
        shown = value if isinstance(value, str) else str(value)
        raise EventError(f"cannot read timestamp {shown!r} (expected an integer or an ISO-8601 datetime)",
                         row=i, column=col)
    return pd.DatetimeIndex(parsed).as_unit("ns").asi8.copy(), True


def _whole(value: Any) -> int | None:
    """The integer a timestamp cell stands for (an int, or text that reads as a whole number), else None."""
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, str):
        try:
            number = parse_number(value)
        except NotANumber:
            return None
        return number if isinstance(number, int) else None
    return None


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

    batch = columnar_batch(table, **kw)  # plain columns straight from Arrow; None: the pandas path decides
    if batch is not None:
        return batch
    try:
        df = table.to_pandas(integer_object_nulls=True)
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


def csv_error(path: str, e: Exception) -> EventError:
    """The EventError for a pyarrow CSV failure that is not a ragged row."""
    message = str(e)
    if "Empty CSV file" in message:
        return EventError(_not_empty(path) or f"'{path}' is empty (a CSV file needs a header row)")
    if "invalid UTF8" in message:
        return EventError(f"'{path}' is not UTF-8 text: {message}")
    return EventError(f"cannot read '{path}' as CSV: {message}")


CSV_BLOCK = 1 << 20  # pyarrow's default block: a header row must end within it


def _not_empty(path: str) -> str | None:
    """What is wrong with a CSV file pyarrow found 'empty' that holds more than white space: its first line
    (the header row) does not end within one block, or does not end at all; None where it is empty."""
    try:
        with open(path, "rb") as f:
            head = f.read(CSV_BLOCK + 1)
    except OSError:
        return None
    if not head.strip():
        return None
    if b"\n" not in head[:CSV_BLOCK] and b"\r" not in head[:CSV_BLOCK] and len(head) > CSV_BLOCK:
        return (f"the first line of '{path}' is longer than {CSV_BLOCK >> 20} MiB: a CSV file starts with a header "
                "row naming its columns (is it CSV? name the format with --input-format)")
    if b"\n" not in head and b"\r" not in head:
        return f"'{path}' holds one line with no line end after it: end the header row with a newline"
    return None


class _RowCheck:
    """pyarrow's invalid-row handler: remembers the first row whose cell count differs from the header's."""

    def __init__(self) -> None:
        self.row: Any = None

    def __call__(self, row: Any) -> str:
        if self.row is None:
            self.row = row
        return "error"

    def error(self, path: str) -> EventError:
        r = self.row
        shown = r.text if len(r.text) <= 80 else r.text[:77] + "..."
        return EventError(f"expected {r.expected_columns} cells, found {r.actual_columns}: {shown!r} in '{path}' "
                          "(a short, long or cut-off row)", row=None if r.number is None else r.number - 1)


def _csv_options(path: str, names: list[str] | None, check: _RowCheck, threads: bool) -> dict[str, Any]:
    import pyarrow as pa
    import pyarrow.csv as pcsv

    convert = pcsv.ConvertOptions(
        column_types={n: pa.string() for n in names} if names is not None else None,
        strings_can_be_null=False, quoted_strings_can_be_null=False, null_values=[])
    return dict(read_options=pcsv.ReadOptions(use_threads=threads),
                parse_options=pcsv.ParseOptions(invalid_row_handler=check, newlines_in_values=True),
                convert_options=convert)


def csv_names(path: str) -> list[str]:
    """The header's column names (EventError for a duplicate one)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    check = _RowCheck()
    try:
        with pcsv.open_csv(path, **_csv_options(path, None, check, False)) as reader:
            names = reader.schema.names
    except (OSError, pa.ArrowException, ValueError) as e:
        raise check.error(path) if check.row is not None else csv_error(path, e) from None
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise EventError(f"duplicate column '{name}'", column=name)
        seen.add(name)
    return names


def csv_strings(path: str) -> Any:
    """The whole CSV file as a pyarrow Table of strings (every cell as written)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    names = csv_names(path)
    check = _RowCheck()
    try:
        return pcsv.read_csv(path, **_csv_options(path, names, check, True))
    except (OSError, pa.ArrowException, ValueError) as e:
        if check.row is None:
            raise csv_error(path, e) from None
        if check.row.number is None:  # the threaded reader does not number rows: find it again, in one thread
            check = _RowCheck()
            try:
                pcsv.read_csv(path, **_csv_options(path, names, check, False))
            except (OSError, pa.ArrowException, ValueError):
                pass
        raise check.error(path) from None


def csv_batches(path: str, rows: int) -> Iterator[Any]:
    """The CSV file as pyarrow Tables of strings of `rows` rows each (the last may be shorter)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    names = csv_names(path)
    check = _RowCheck()
    pending: list[Any] = []
    count = 0
    try:
        with pcsv.open_csv(path, **_csv_options(path, names, check, False)) as reader:
            for batch in reader:
                pending.append(batch)
                count += batch.num_rows
                while count >= rows:
                    table = pa.Table.from_batches(pending, schema=reader.schema)
                    yield table.slice(0, rows)
                    rest = table.slice(rows)
                    pending, count = rest.to_batches(), rest.num_rows
            if count or not pending:
                yield pa.Table.from_batches(pending, schema=reader.schema)
    except (OSError, pa.ArrowException, ValueError) as e:
        raise check.error(path) if check.row is not None else csv_error(path, e) from None


def csv_columns(table: Any, forms: dict[str, str] | None = None) -> tuple[dict[str, np.ndarray], int]:
    """A table of CSV strings as attribute columns (cepkit.core.typed_columns.text_column), and its length;
    with `forms` (a chunk of a file: each column's form over the whole file) each column in that form."""
    columns = {}
    for k, name in enumerate(table.column_names):
        cells = table.column(k)
        values = text_column(cells)
        if forms is not None:
            cells = cells.combine_chunks() if hasattr(cells, "combine_chunks") else cells
            values = conform(values, cells, forms.get(name))
        columns[name] = values
    return columns, table.num_rows


def read_csv(path: Any, **kw: Any) -> EventBatch:
    """Events from a CSV file with a header row (keywords as for from_pandas). Every row has the header's
    number of cells; a column's cells are numbers only when all of them are (cepkit.core.numbers_text)."""
    path = check_file(path)
    return from_columns(*csv_columns(csv_strings(path)), **kw)


def read_arrow_file(path: str) -> Any:
    """A Parquet file as a pyarrow Table."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return pq.read_table(path)
    except (OSError, pa.ArrowException, ValueError) as e:
        raise EventError(f"cannot read '{path}' as Parquet: {e}") from None


def read_parquet(path: Any, **kw: Any) -> EventBatch:
    """Events from a Parquet file (keywords as for from_pandas)."""
    return from_arrow(read_arrow_file(check_file(path)), **kw)


def read_jsonl(path: Any, **kw: Any) -> EventBatch:
    """Events from a JSON Lines file, one object per line (a JSON array of objects is accepted too);
    gzip, bz2, xz and zip files by their extension."""
    path = check_file(path)
    records = [rec for _, rec in json_records(path)]
    if not records:
        return _empty_batch(kw)
    return from_columns(*json_columns(records), **kw)


def _open_text(path: str) -> Any:
    lower = path.lower()
    if lower.endswith(".gz"):
        import gzip
        return gzip.open(path, "rt", encoding="utf-8")
    if lower.endswith(".bz2"):
        import bz2
        return bz2.open(path, "rt", encoding="utf-8")
    if lower.endswith(".xz"):
        import lzma
        return lzma.open(path, "rt", encoding="utf-8")
    if lower.endswith(".zip"):
        import io
        import zipfile
        archive = zipfile.ZipFile(path)
        members = [m for m in archive.namelist() if not m.endswith("/")]
        if len(members) != 1:
            raise EventError(f"'{path}' must hold exactly one file, not {len(members)}")
        return io.TextIOWrapper(archive.open(members[0]), encoding="utf-8")
    if lower.endswith(".zst"):
        raise EventError(f"cannot read '{path}': zstandard files are not supported (decompress it first)")
    return open(path, encoding="utf-8")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


_DECODER = json.JSONDecoder(parse_float=json_float, parse_constant=_no_constant)


def _json_value(text: str) -> Any:
    return _DECODER.decode(text)


def _json_line(line: str) -> Any:
    """One line's JSON value: the decoder's scanner directly (the common case), its full decode for the
    error message of a line that is not one JSON value."""
    start = len(line) - len(line.lstrip())
    try:
        value, end = _DECODER.scan_once(line, start)
    except (StopIteration, ValueError):
        return _json_value(line)
    if line[end:].strip():
        return _json_value(line)
    return value


JSON_LINE_MAX = 256 << 20  # the most characters one JSON line (one event) may have


def _bounded_lines(f: Any, row: Any) -> Iterator[str]:
    """The lines of text file `f`, none read past JSON_LINE_MAX characters: a longer one (a file of one
    endless line, binary data) is an EventError naming its row (`row()`: the rows read so far), not a line
    held whole in memory."""
    while True:
        line = f.readline(JSON_LINE_MAX + 1)
        if not line:
            return
        if len(line) > JSON_LINE_MAX:
            raise EventError(f"a line longer than {JSON_LINE_MAX:,} characters: JSON lines hold one event (one JSON "
                             "object) per line; is the file JSON lines?", row=row() + 1)
        yield line


def json_records(path: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(row, object) for every non-blank line (rows count those lines from 1), or for every element of a
    file that is one JSON array. EventError for a line that is not a JSON object, or a file that cannot be
    read or decompressed (naming the row it stopped at)."""
    import zlib
    import lzma
    import zipfile

    row = 0
    failures = (OSError, EOFError, zlib.error, lzma.LZMAError, zipfile.BadZipFile, UnicodeDecodeError)
    try:
        with _open_text(path) as opened:
            f = _bounded_lines(opened, lambda: row)
            first = ""
            for line in f:
                if line.strip():
                    first = line
                    break
            if not first:
                return
            if first.lstrip().startswith("["):
                try:
                    items = _json_value(first + opened.read())
                except ValueError as e:
                    raise EventError(f"cannot parse '{path}' as a JSON array: {e}") from None
                if not isinstance(items, list):
                    raise EventError(f"cannot parse '{path}' as a JSON array")
                for row, item in enumerate(items, start=1):
                    if not isinstance(item, dict):
                        raise EventError(f"element {row} of the array is {_json_kind(item)}, not a JSON object",
                                         row=row)
                    yield row, item
                return
            for line in itertools.chain([first], f):
                if not line.strip():
                    continue
                row += 1
                try:
                    value = _json_line(line)
                except ValueError as e:
                    raise EventError(f"not a JSON object (invalid JSON: {e})", row=row) from None
                if not isinstance(value, dict):
                    raise EventError(f"the line is {_json_kind(value)}, not a JSON object", row=row)
                yield row, value
    except failures as e:
        raise EventError(f"cannot read '{path}': {type(e).__name__}: {e}", row=row + 1 if row else None) from None


def _json_kind(value: Any) -> str:
    return {list: "an array", dict: "an object", str: "a string", bool: "a boolean",
            type(None): "null"}.get(type(value), "a number")


def json_columns(records: list[dict[str, Any]], forms: JsonForms | None = None) -> tuple[dict[str, np.ndarray], int]:
    """JSON objects as attribute columns (cepkit.core.typed_columns.values_column), and their number; a key
    an object lacks is null there. With `forms` (a chunk of a file: what its columns hold over the whole
    file) the file's every column, each in its form over the whole file."""
    names: dict[str, None] = {}
    for rec in records:
        names.update(dict.fromkeys(rec))
    if forms is not None:
        names = dict.fromkeys(forms.columns)
    columns = {}
    for name in names:
        values = [rec.get(name) for rec in records]
        _json_attribute(values, name)
        if forms is not None:
            columns[name] = values_in_form(values, forms.form(name))
            continue
        _one_kind(values, name)
        columns[name] = values_column(values)
    return columns, len(records)


def _json_attribute(values: list[Any], name: str) -> None:
    """EventError at the first value that is an array or an object."""
    nested = next((i for i, v in enumerate(values) if isinstance(v, (list, dict))), None)
    if nested is not None:
        raise EventError(f"{_json_kind(values[nested])} is not an event attribute value (attributes are "
                         "numbers, text, booleans or null; flatten nested fields)", row=nested + 1, column=name)


def json_forms(chunks: Iterable[list[dict[str, Any]]]) -> JsonForms:
    """What each column of the file whose records come in `chunks` holds over the whole file, for
    json_columns; EventError, as the whole-file reader gives it, for an array or object value (naming the
    row from the file start) or a column that mixes JSON kinds."""
    forms = JsonForms()
    for records in chunks:
        names: dict[str, None] = {}
        for rec in records:
            names.update(dict.fromkeys(rec))
        for name in names:
            values = [rec.get(name) for rec in records]
            try:
                _json_attribute(values, name)
            except EventError as e:
                raise EventError(e.message, row=e.row + forms.rows, column=name) from None
            forms.add(name, values)
        forms.end_chunk(len(records))
    for name in forms.columns:
        mixed = forms.mixed(name)
        if mixed is not None:
            kind, want, row, value = mixed
            raise EventError(f"{kind} value {value!r:.40} in a column of {want.split()[-1]}s (the values of a JSON attribute "
                             "are all numbers, all text or all booleans)", row=row, column=name)
    return forms


_KINDS = {bool: "a boolean", int: "a number", float: "a number", Fraction: "a number", str: "text"}


def _one_kind(values: list[Any], name: str) -> None:
    """EventError at the first value whose JSON kind (number, text, boolean) differs from the kind most of the
    column's values have: JSON says what each value is, so a column mixing kinds holds a value of the wrong kind."""
    kinds = {type(v) for v in values}
    kinds.discard(type(None))
    if len({_KINDS.get(k) for k in kinds}) <= 1:
        return
    counts: dict[str, int] = {}
    for v in values:
        if v is not None:
            counts[_KINDS[type(v)]] = counts.get(_KINDS[type(v)], 0) + 1
    want = max(counts, key=counts.get)  # the column's kind is what most of its values are
    i = next(i for i, v in enumerate(values) if v is not None and _KINDS[type(v)] != want)
    raise EventError(f"{_KINDS[type(values[i])]} value {values[i]!r:.40} in a column of {want.split()[-1]}s "
                     "(the values of a JSON attribute are all numbers, all text or all booleans)",
                     row=i + 1, column=name)


def _empty_batch(kw: dict[str, Any]) -> EventBatch:
    """A batch with no events (an empty file), after checking the keywords as from_pandas would."""
    ts_unit = kw.get("ts_unit")
    if ts_unit is not None and ts_unit not in TIME_UNITS:
        raise EventError(f"unknown time unit {ts_unit!r} (expected one of {', '.join(TIME_UNITS)})")
    empty = np.zeros(0, dtype=np.int64)
    return EventBatch(columns={}, type_codes=np.zeros(0, dtype=np.int32), type_names=(), ts=empty,
                      ids=empty.copy(), ts_unit=ts_unit, source_rows=empty.copy())


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
