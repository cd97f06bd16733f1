"""Reading an events file in chunks of rows, so that a stream longer than memory can be fed to a program.

Parquet comes in record batches (pyarrow `iter_batches`), CSV in pyarrow's streaming reader and JSON Lines
line by line, each with the whole-file readers' rules (cepkit.core.readers). Each chunk is an `EventBatch` whose `source_rows`, and
the row of any `EventError`, count from the start of the file. Column types are inferred per chunk;
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
                                      json_columns, json_records, read_events)


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
    pieces = {"parquet": _parquet, "csv": _csv, "jsonl": _jsonl}[kind](path, chunk_size)
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


def _parquet(path: str, chunk_size: int) -> Pieces:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        reader = pq.ParquetFile(path)
        for record_batch in reader.iter_batches(batch_size=chunk_size):
            yield record_batch, from_arrow
    except (OSError, pa.ArrowException, ValueError) as e:
        raise EventError(f"cannot read '{path}' as Parquet: {e}") from None


def _csv(path: str, chunk_size: int) -> Pieces:
    for table in csv_batches(path, chunk_size):
        yield csv_columns(table), _from_columns


def _jsonl(path: str, chunk_size: int) -> Pieces:
    records: list = []
    for _, rec in json_records(path):
        records.append(rec)
        if len(records) == chunk_size:
            yield json_columns(records), _from_columns
            records = []
    if records:
        yield json_columns(records), _from_columns


def _from_columns(piece: tuple[dict, int], **kw: Any) -> EventBatch:
    return from_columns(*piece, **kw)
