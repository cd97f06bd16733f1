"""Reading an events file in chunks of rows, so that a stream longer than memory can be fed to a program.

Parquet comes in record batches (pyarrow `iter_batches`), CSV in pyarrow's streaming reader and JSON Lines
line by line, each with the whole-file readers' rules (reference.readers). Each chunk is an `EventBatch` whose `source_rows`, and
the row of any `EventError`, count from the start of the file. Column types are inferred per chunk;
ordering across chunks is checked by the program that is fed (reference.binding.bind_batch), event
ids for uniqueness within a chunk only.
"""
from __future__ import annotations

import os
from typing import Any, Callable, Iterator

from reference.errors import EventError
from reference.events import EventBatch
from reference.readers import (check_file, csv_batches, csv_columns, event_format, from_arrow, from_columns,
                               json_columns, json_records, read_events)


def iter_events(path: Any, chunk_size: int, format: str | None = None, **kw: Any) -> Iterator[EventBatch]:
    """Batches of at most chunk_size events, in file order (keywords as for read_events, without sort)."""
    if chunk_size < 1:
        raise EventError(f"the chunk size must be a positive number of events, not {chunk_size}")
    if kw.pop("sort", False):
        raise EventError("sorting needs the whole file: --sort cannot be combined with --chunk-size")
    path = os.fspath(path)
    kind = event_format(path, format)
    check_file(path)
    pieces = {"parquet": _parquet, "csv": _csv, "jsonl": _jsonl}[kind](path, chunk_size)
    offset = 0
    for piece, convert in pieces:
        try:
            batch = convert(piece, **kw)
        except EventError as e:
            raise EventError(e.message, None if e.row is None else e.row + offset, e.column) from None
        if not len(batch) and offset:
            continue
        batch.source_rows = batch.source_rows + offset
        offset += len(batch)
        yield batch
    if offset == 0:  # an empty file: the whole-file reader says what it says about one
        yield read_events(path, kind, **kw)


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
