"""Reading an events file in chunks of rows, so that a stream longer than memory can be fed to a program.

Parquet comes in record batches (pyarrow `iter_batches`), CSV in pyarrow's streaming reader and JSON Lines
line by line, each with the whole-file readers' rules (cepkit.core.readers). Each chunk is an `EventBatch` whose `source_rows`, and
the row of any `EventError`, count from the start of the file. A CSV or JSON Lines column has the type the
whole-file reader gives it: a file of more than one chunk is read twice, first for each column's type over
the whole file (`csv_forms`, `json_forms`), then for the chunks, each column in that type;
ordering across chunks is checked by the program that is fed (cepkit.front.binding.bind_batch). Event ids
are checked for uniqueness across the whole file (`SeenIds`), as the whole-file readers check them.
"""
from __future__ import annotations

import os
from typing import Any, Callable, Iterator

import numpy as np

from cepkit.core.errors import EventError, option_name
from cepkit.core.events import EventBatch, exact
from cepkit.core.readers import (check_file, csv_batches, csv_columns, event_format, from_arrow, from_columns,
                                      json_columns, json_forms, json_records, read_events)
from cepkit.core.events import number_value
from cepkit.core.numbers_text import NotANumber
from cepkit.core.typed_columns import combine_forms, conform, form_of, text_cells, text_column, values_in_form


def iter_events(path: Any, chunk_size: int, format: str | None = None, **kw: Any) -> Iterator[EventBatch]:
    """Batches of at most chunk_size events, in file order (keywords as for read_events, without sort)."""
    if chunk_size < 1:
        raise EventError(f"the chunk size must be a positive number of events, not {chunk_size}")
    if kw.pop("sort", False):
        raise EventError(f"sorting needs the whole file: {option_name('sort')} cannot be combined with "
                         f"{option_name('chunk_size')}")
    path = os.fspath(path)
    kind = event_format(path, format)
    check_file(path)
    pieces = {"parquet": _parquet, "csv": _csv, "jsonl": _jsonl}[kind](path, chunk_size, kw)
    offset = 0
    seen = SeenIds()
    for piece, convert in pieces:
        try:
            batch = convert(piece, **kw)
        except EventError as e:
            raise EventError(e.message, None if e.row is None else e.row + offset, e.column) from None
        if not len(batch) and offset:
            continue
        if not batch.positional_ids:
            seen.add(batch.ids, offset, kw.get("id_col", "id"))
        batch.source_rows = batch.source_rows + offset
        offset += len(batch)
        yield batch
    if offset == 0:  # an empty file: the whole-file reader says what it says about one
        yield read_events(path, kind, **kw)


class SeenIds:
    """The event ids of the chunks read so far, to refuse an id seen in an earlier chunk (the whole-file
    readers' "duplicate event id", naming the later row from the file start). Integer ids are kept as
    runs of consecutive values (ids 0, 1, 2, ... take one run whatever the file's length) and a sorted
    array of the rest; other ids (strings, fractional numbers) in a set."""

    def __init__(self) -> None:
        self.starts = np.zeros(0, np.int64)   # runs [start, stop] of consecutive integer ids, sorted
        self.stops = np.zeros(0, np.int64)
        self.loose = np.zeros(0, np.int64)    # integer ids outside the runs, sorted
        self.other: set = set()

    def add(self, ids: np.ndarray, offset: int, column: str) -> None:
        """Ids of the next chunk (unique among themselves); EventError for the first one seen before."""
        if ids.dtype.kind in "iu":
            ids = ids.astype(np.int64, copy=False)
            dup = self._seen(ids)
        else:
            dup = np.fromiter((exact(v) in self.other for v in ids), bool, len(ids))
        if dup.any():
            i = int(np.argmax(dup))
            raise EventError(f"duplicate event id {exact(ids[i])!r}", row=offset + i + 1, column=column)
        if ids.dtype.kind in "iu":
            self._keep(ids)
        else:
            self.other.update(exact(v) for v in ids)

    def _seen(self, ids: np.ndarray) -> np.ndarray:
        k = np.searchsorted(self.starts, ids, side="right") - 1
        dup = (k >= 0) & (ids <= self.stops[np.maximum(k, 0)]) if len(self.starts) else np.zeros(len(ids), bool)
        if len(self.loose):
            j = np.minimum(np.searchsorted(self.loose, ids), len(self.loose) - 1)
            dup |= self.loose[j] == ids
        return dup

    def _keep(self, ids: np.ndarray) -> None:
        if not len(ids):
            return
        lo, hi = int(ids.min()), int(ids.max())
        if hi - lo + 1 != len(ids):  # not one run: kept one by one
            self.loose = np.union1d(self.loose, ids)
            return
        starts, stops = self.starts.tolist(), self.stops.tolist()
        k = int(np.searchsorted(self.starts, lo))
        if k and stops[k - 1] + 1 == lo:   # joins the run before it
            k -= 1
            starts.pop(k)
            lo = self.starts[k]
            stops.pop(k)
        if k < len(starts) and starts[k] == hi + 1:  # and the run after it
            hi = stops[k]
            starts.pop(k)
            stops.pop(k)
        starts.insert(k, int(lo))
        stops.insert(k, int(hi))
        self.starts, self.stops = np.array(starts, np.int64), np.array(stops, np.int64)


Pieces = Iterator[tuple[Any, Callable[..., EventBatch]]]


def _parquet(path: str, chunk_size: int, kw: dict[str, Any]) -> Pieces:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        reader = pq.ParquetFile(path)
        for record_batch in reader.iter_batches(batch_size=chunk_size):
            yield record_batch, from_arrow
    except (OSError, pa.ArrowException, ValueError) as e:
        raise EventError(f"cannot read '{path}' as Parquet: {e}") from None


def _csv(path: str, chunk_size: int, kw: dict[str, Any]) -> Pieces:
    forms, elsewhere = csv_forms(path, chunk_size, kw.get("type_col", "type"), kw.get("default_type"))
    for table in csv_batches(path, chunk_size):
        yield csv_columns(table, forms), _from_columns(elsewhere)


def csv_forms(path: str, chunk_size: int, type_col: str | None = "type", default_type: str | None = None) \
        -> tuple[dict[str, str] | None, dict | None]:
    """(each column's form over the whole CSV file (cepkit.core.typed_columns.combine_forms), read in chunks of
    `chunk_size` rows; the first cell that is not a number of each event type, for each column that is
    text over the whole file: EventBatch.text_elsewhere), or (None, None) where the file is one chunk."""
    import pyarrow as pa

    rows: dict[str, list] = {}
    texts: dict[str, dict[Any, tuple[int, Any]]] = {}
    chunks = offset = 0
    for table in csv_batches(path, chunk_size):
        chunks += 1
        columns = csv_columns(table)[0]
        kinds = None
        if type_col is not None and type_col in table.column_names:
            kinds = pc_strip(table.column(type_col))
        for k, (name, values) in enumerate(columns.items()):
            form = form_of(values)
            rows.setdefault(name, []).append(form)
            if form[0] in ("text", "bool"):
                cells = table.column(k)
                cells = cells.combine_chunks() if isinstance(cells, pa.ChunkedArray) else cells
                _first_texts(texts.setdefault(name, {}), text_cells(cells), kinds, default_type, offset)
        offset += table.num_rows
    if chunks <= 1:
        return None, None
    forms = {name: combine_forms(r) for name, r in rows.items()}

    def type_name(cell: Any) -> str:
        if cell is None or type_col not in forms:
            return default_type
        one = pa.array([cell], pa.string())
        return str(conform(text_column(one), one, forms[type_col])[0]).strip()

    return forms, _elsewhere(forms, texts, "text", type_name)


def pc_strip(cells: Any) -> list:
    """The cells of a type column as Python text, without surrounding white space."""
    import pyarrow.compute as pc

    return pc.utf8_trim_whitespace(cells).to_pylist()


def _first_texts(firsts: dict, values: Any, kinds: list | None, default_type: str | None, offset: int) -> None:
    """Into `firsts` {type cell: (row, value)}: the first value of each type (`kinds`: each row's type cell;
    None: `default_type`) that is not a number, rows counted from 1 at the file's start (`offset` rows
    before this chunk)."""
    for i, v in enumerate(values):
        if v is None:
            continue
        kind = kinds[i] if kinds is not None else None
        if kind in firsts:
            continue
        try:
            number_value(v)
        except NotANumber:
            firsts[kind] = (offset + i + 1, v)


def _elsewhere(forms: dict[str, str], texts: dict, text_form: str, type_name: Callable[[Any], str]) -> dict:
    """EventBatch.text_elsewhere: for each column of `text_form` over the whole file, its first non-number
    of each event type (by name)."""
    out: dict[str, dict[str, tuple[int, Any]]] = {}
    for name, firsts in texts.items():
        if forms.get(name) != text_form or not firsts:
            continue
        named: dict[str, tuple[int, Any]] = {}
        for cell, first in firsts.items():
            t = type_name(cell)
            if t not in named or first[0] < named[t][0]:
                named[t] = first
        out[name] = named
    return out


def _records(path: str, chunk_size: int) -> Iterator[list]:
    records: list = []
    for _, rec in json_records(path):
        records.append(rec)
        if len(records) == chunk_size:
            yield records
            records = []
    if records:
        yield records


def _jsonl(path: str, chunk_size: int, kw: dict[str, Any]) -> Pieces:
    first = next(_records(path, chunk_size + 1), [])
    forms = elsewhere = None
    if len(first) > chunk_size:
        forms, elsewhere = _json_forms(path, chunk_size, kw.get("type_col", "type"), kw.get("default_type"))
    del first
    for records in _records(path, chunk_size):
        yield json_columns(records, forms), _from_columns(elsewhere)


def _json_forms(path: str, chunk_size: int, type_col: str | None, default_type: str | None) -> tuple[Any, dict]:
    """(cepkit.core.readers.json_forms of the file, EventBatch.text_elsewhere for its text columns)."""
    texts: dict[str, dict[Any, tuple[int, Any]]] = {}
    state = {"offset": 0}

    def chunks() -> Iterator[list]:
        for records in _records(path, chunk_size):
            names: dict[str, None] = {}
            for rec in records:
                names.update(dict.fromkeys(rec))
            kinds = None
            if type_col is not None and type_col in names:
                kinds = [rec.get(type_col) for rec in records]
                kinds = [k.strip() if isinstance(k, str) else k for k in kinds]
            for name in names:
                values = [rec.get(name) for rec in records]
                if any(isinstance(v, str) for v in values):
                    strings = [v if isinstance(v, str) else None for v in values]
                    _first_texts(texts.setdefault(name, {}), strings, kinds, default_type, state["offset"])
            state["offset"] += len(records)
            yield records

    forms = json_forms(chunks())
    forms_by_name = {name: forms.form(name) for name in forms.columns}
    text_columns = {name: "text" for name in forms.columns
                    if any(k == "text" for k in forms.columns[name]["kinds"])}

    def type_name(cell: Any) -> str:
        if type_col not in forms_by_name or cell is None:
            return default_type
        return str(values_in_form([cell], forms_by_name[type_col])[0]).strip()

    return forms, _elsewhere(text_columns, texts, "text", type_name)


def _from_columns(elsewhere: dict | None) -> Callable[..., EventBatch]:
    """The conversion of a chunk's (columns, length) to a batch, its text_elsewhere set."""
    def convert(piece: tuple[dict, int], **kw: Any) -> EventBatch:
        batch = from_columns(*piece, **kw)
        if elsewhere:
            batch.text_elsewhere = elsewhere
        return batch

    return convert
