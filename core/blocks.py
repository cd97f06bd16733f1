"""A block of a stored event stream: one Parquet row group, with its place in the stream and its timestamp
range (the replay store, reference/replay/store.py, and the Spark index's side table read them alike)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Block:
    """One row group: its file, its index in the file, its first position in the stream, its rows and its
    timestamp range (None where the file has no statistics for it)."""

    file: str
    row_group: int
    first_seq: int
    rows: int
    t_min: int | None
    t_max: int | None
