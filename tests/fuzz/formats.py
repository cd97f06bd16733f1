"""Event tables written as CSV, JSON lines (plain or gzip) and Parquet bytes, odd cells included."""
from __future__ import annotations

import csv
import gzip
import io
import json
from typing import Any

from tests.fuzz.seeds import Table

FORMATS = ("csv", "jsonl", "jsonl.gz", "parquet")


class Raw(str):
    """A cell written verbatim: JSON text in JSON lines (`1e309`, `[1]`, `true`), the bare text in CSV."""


class Line(str):
    """A whole JSON-lines line written verbatim (an array, a number, a cut object): the row's first cell."""


class Missing:
    """A cell left out: a short CSV row, a JSON object without the key."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING = Missing()


def _csv_text(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def to_csv(t: Table) -> bytes:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(t.header)
    for row in t.rows:
        if row and isinstance(row[0], Line):
            buf.write(row[0] + "\n")
            continue
        w.writerow([_csv_text(v) for v in row if v is not MISSING])
    return buf.getvalue().encode("utf-8", "surrogateescape")


def _json_value(v: Any) -> str:
    if isinstance(v, Raw):
        return str(v)
    return json.dumps(v, ensure_ascii=False)


def to_jsonl(t: Table) -> bytes:
    lines = []
    for row in t.rows:
        if row and isinstance(row[0], Line):
            lines.append(str(row[0]))
            continue
        items = [f"{json.dumps(k)}: {_json_value(v)}" for k, v in zip(t.header, row) if v is not MISSING]
        lines.append("{" + ", ".join(items) + "}")
    return "".join(line + "\n" for line in lines).encode("utf-8", "surrogateescape")


def to_parquet(t: Table) -> bytes:
    """Each column with the Arrow type pyarrow infers from its cells (Raw cells as text)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns = {}
    t = Table(t.header, tuple(r for r in t.rows if not (r and isinstance(r[0], Line))))
    for i, name in enumerate(t.header):
        values = [None if r[i] is MISSING else (str(r[i]) if isinstance(r[i], Raw) else r[i])
                  for r in t.rows if i < len(r)]
        values += [None] * (len(t.rows) - len(values))
        try:
            columns[name] = pa.array(values)
        except (pa.ArrowException, OverflowError, TypeError, ValueError):
            text = [None if v is None else str(v) for v in values]
            try:
                columns[name] = pa.array(text, pa.string())
            except UnicodeEncodeError:   # a non-UTF-8 byte (a lone surrogate): the column as bytes
                columns[name] = pa.array([None if v is None else v.encode("utf-8", "surrogateescape")
                                          for v in text], pa.binary())
    buf = io.BytesIO()
    pq.write_table(pa.table(columns), buf)
    return buf.getvalue()


def serialize(t: Table, fmt: str) -> bytes:
    if fmt == "csv":
        return to_csv(t)
    if fmt == "jsonl":
        return to_jsonl(t)
    if fmt == "jsonl.gz":
        return gzip.compress(to_jsonl(t), mtime=0)
    if fmt == "parquet":
        return to_parquet(t)
    raise ValueError(f"unknown format {fmt}")
