"""How many events an events file holds, found cheaply for the total of `cepkit run`'s progress bar while the
run reads it in chunks: Parquet's footer, or the line ends of a CSV or JSON lines file, counted in a thread
(the run does not wait for it). None where that is not cheap: a compressed file, one JSON array.

(Not the bytes the reader has read: pyarrow's CSV reader reads the file far ahead of the rows it hands out.)"""
from __future__ import annotations

import threading

BLOCK = 1 << 24   # bytes read at a time when counting line ends


def line_ends(path: str) -> tuple[int, bool, bytes]:
    """(the file's line ends, whether its last line has none, its first non-blank byte)."""
    ends, last, first = 0, b"\n", b""
    with open(path, "rb") as f:
        while block := f.read(BLOCK):
            ends += block.count(b"\n")
            last = block[-1:]
            first = first or block.lstrip()[:1]
    return ends, last not in (b"\n", b""), first


def events_in(path: str, kind: str) -> int | None:
    """The events of the file `path` of format `kind` (csv, jsonl, parquet): exact for Parquet, the lines
    but the header for CSV (a cell with a line end in quotes counts twice), the lines for JSON lines."""
    lower = path.lower()
    if lower.endswith((".gz", ".bz2", ".xz", ".zip", ".zst")):
        return None
    if kind == "parquet":
        import pyarrow.parquet as pq

        return pq.ParquetFile(path).metadata.num_rows
    ends, unended, first = line_ends(path)
    lines = ends + unended
    if kind == "csv":
        return max(lines - 1, 0)
    return None if first == b"[" else lines


class EventCount:
    """The events of a file, counted in a daemon thread started at once; calling it gives the count, or None
    until it is known (or where it cannot be)."""

    def __init__(self, path: str, kind: str):
        self.found: int | None = None
        self.thread = threading.Thread(target=self._count, args=(path, kind), name="cepkit-event-count",
                                       daemon=True)
        self.thread.start()

    def _count(self, path: str, kind: str) -> None:
        try:
            self.found = events_in(path, kind)
        except Exception:   # an unreadable file is the reader's to report, not the bar's
            self.found = None

    def __call__(self) -> int | None:
        return self.found
