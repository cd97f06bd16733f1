"""Reading an AFA input stream from an event file (CSV, JSON Lines, Parquet), in arrival order.

Columns: `kind` (insert, retract, punctuate, arc_insert, arc_delete, arc_retract, arc_punctuate;
default insert), `le`, `re` (default LE + the AFA's window, else infinity), `seq` (AFA+O only),
`arc` (the arc of an arc row). Every other column is payload; an empty cell is null and left out.
For arc_insert, `le`/`re` give an explicit lifetime [le, re); without `le` the arc gets the default
lifetime (LE > t_curr). arc_delete is the default-mode deletion; arc_retract retracts an explicit arc.
Every mistake is an EventError naming the row (1-based, header excluded) and the column.
"""
from __future__ import annotations

import csv
import json
import math
import os
import re
from fractions import Fraction
from typing import Any, Iterator

from reference.afa.model import INF, Afa, Lifetime
from reference.afa.stream import ArcDelete, ArcInsert, ArcPunctuate, Element, Event, Insert, Punctuate, Retract
from reference.errors import EventError

KINDS = ("insert", "retract", "punctuate", "arc_insert", "arc_delete", "arc_retract", "arc_punctuate")
_ALIASES = {"+": "insert", "-": "retract", "cti": "punctuate", "punctuation": "punctuate"}
_CONTROL = {"kind", "le", "re", "seq", "arc"}
_INT = re.compile(r"^[+-]?\d+$")
_DEC = re.compile(r"^[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?$")


def _cell(text: str) -> Any:
    """A CSV cell: an exact number when it reads as one, null when empty, else the text."""
    s = text.strip()
    if s == "" or s in ("null", "NULL", "NaN", "nan"):
        return None
    if _INT.match(s):
        return int(s)
    if _DEC.match(s):
        v = Fraction(s)
        return v.numerator if v.denominator == 1 else v
    if s.lower() in ("true", "false"):
        return s.lower() == "true"
    return text


def _exact(value: Any, row: int, column: str) -> Any:
    if isinstance(value, float):
        if math.isnan(value):
            return None
        if math.isinf(value):
            return value
        v = Fraction(repr(value))
        return v.numerator if v.denominator == 1 else v
    if isinstance(value, Fraction):
        return value.numerator if value.denominator == 1 else value
    if value is None or isinstance(value, (bool, int, str)):
        return value
    raise EventError(f"unsupported value {value!r}", row=row, column=column)


def _rows(path: str) -> Iterator[tuple[int, dict[str, Any]]]:
    lower = path.lower()
    if lower.endswith(".csv"):
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.reader(f, skipinitialspace=True)
            header = next(reader, None)
            if header is None:
                return
            names = [h.strip() for h in header]
            if len(set(names)) != len(names):
                dup = next(n for n in names if names.count(n) > 1)
                raise EventError(f"duplicate column '{dup}'", column=dup)
            for i, cells in enumerate(reader, start=1):
                if not cells or all(not c.strip() for c in cells):
                    continue
                if len(cells) != len(names):
                    raise EventError(f"expected {len(names)} cells, found {len(cells)}", row=i)
                yield i, {n: _cell(c) for n, c in zip(names, cells)}
    elif lower.endswith((".jsonl", ".ndjson", ".json")):
        with open(path, encoding="utf-8") as f:
            row = 0
            for line in f:
                if not line.strip():
                    continue
                row += 1
                try:
                    obj = json.loads(line, parse_float=Fraction)
                except ValueError as exc:
                    raise EventError(f"not a JSON object: {exc}", row=row) from None
                if not isinstance(obj, dict):
                    raise EventError("not a JSON object", row=row)
                yield row, {str(k): _exact(v, row, str(k)) for k, v in obj.items()}
    elif lower.endswith((".parquet", ".pq")):
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            table = pq.read_table(path)
        except (OSError, pa.ArrowException, ValueError) as exc:
            raise EventError(f"cannot read '{path}' as Parquet: {exc}") from None
        for i, rec in enumerate(table.to_pylist(), start=1):
            yield i, {k: _exact(v, i, k) for k, v in rec.items()}
    else:
        raise EventError(f"cannot tell the format of '{path}' (use .csv, .jsonl/.ndjson/.json or .parquet)")


def _time(rec: dict[str, Any], col: str, row: int, required: bool) -> Any:
    v = rec.get(col)
    if v is None:
        if required:
            raise EventError(f"missing timestamp '{col}'", row=row, column=col)
        return None
    if isinstance(v, bool) or not isinstance(v, (int, Fraction, float)):
        raise EventError(f"timestamp {v!r} is not a number", row=row, column=col)
    if isinstance(v, float) and not (col == "re" and v == INF):
        raise EventError(f"timestamp {v!r} is not finite", row=row, column=col)
    return v


def element_of(rec: dict[str, Any], row: int, afa: Afa) -> Element:
    """One stream element from one row."""
    kind = rec.get("kind")
    kind = "insert" if kind is None else _ALIASES.get(str(kind).strip().lower(), str(kind).strip().lower())
    if kind not in KINDS:
        raise EventError(f"unknown kind '{rec.get('kind')}' (expected one of {', '.join(KINDS)})",
                         row=row, column="kind")
    if kind in ("insert", "retract"):
        le = _time(rec, "le", row, True)
        re_ = _time(rec, "re", row, False)
        if re_ is None:
            re_ = le + afa.window if afa.window is not None else INF
        seq = rec.get("seq")
        if seq is not None and (isinstance(seq, bool) or not isinstance(seq, int)):
            raise EventError(f"sequence number {seq} is not an integer", row=row, column="seq")
        payload = {k: v for k, v in rec.items() if k not in _CONTROL and v is not None}
        e = Event.make(le, re_, payload, seq)
        return Insert(e) if kind == "insert" else Retract(e)
    if kind in ("punctuate", "arc_punctuate"):
        t = _time(rec, "le", row, True)
        return Punctuate(t) if kind == "punctuate" else ArcPunctuate(t)
    name = rec.get("arc")
    if not isinstance(name, str) or not name.strip():
        raise EventError(f"a {kind} row needs the arc's name", row=row, column="arc")
    name = name.strip()
    if kind == "arc_insert":
        arcs = {a.name: a for a in afa.standby + afa.arcs}
        if name not in arcs:
            raise EventError(f"unknown arc '{name}' (arcs: {', '.join(sorted(arcs))})", row=row, column="arc")
        le = _time(rec, "le", row, False)
        if le is None:
            return ArcInsert(arcs[name])
        re_ = _time(rec, "re", row, False)
        return ArcInsert(arcs[name], Lifetime(le, INF if re_ is None else re_))
    return ArcDelete(name, explicit=kind == "arc_retract")


def read_stream(path: str | os.PathLike, afa: Afa) -> list[tuple[int, Element]]:
    """(row, element) for every row of the file, in arrival (file) order."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise EventError(f"no such file: '{path}'")
    if os.path.isdir(path):
        raise EventError(f"'{path}' is a directory, not an events file")
    try:
        return [(row, element_of(rec, row, afa)) for row, rec in _rows(path)]
    except (OSError, UnicodeDecodeError) as exc:
        raise EventError(f"cannot read '{path}': {exc}") from None


# ---------------------------------------------------------------------- the engine contract's input
class AfaInput:
    """Rows waiting for an AFA: what `to_elements` returns when it is not given the AFA. The elements
    depend on the pattern (an arc row names one of its arcs, an event without `re` gets its window), so
    the program resolves them with its own AFA (`elements(afa)`)."""

    def __init__(self, source: Any):
        self.source = source

    def elements(self, afa: Afa) -> list[tuple[int, Element]]:
        return to_elements(self.source, afa)

    def __repr__(self) -> str:
        return f"AfaInput({self.source!r})"


def _frame_rows(records: list[dict[str, Any]]) -> Iterator[tuple[int, dict[str, Any]]]:
    for i, rec in enumerate(records, start=1):
        yield i, {str(k): _exact(v.item() if hasattr(v, "item") else v, i, str(k)) for k, v in rec.items()}


def to_elements(events: Any, afa: Afa | None = None, **read_options: Any):
    """The AFA's input: (row, element) pairs, in arrival order, from an events file path (CSV, JSON Lines,
    Parquet), a pandas DataFrame or an Arrow table with the same columns, or a list of row mappings (rows
    numbered from 1). Without the AFA, an `AfaInput` the program resolves with its own (the registry's
    `read_input` does not know the pattern). (row, element) pairs pass through."""
    if read_options:
        raise EventError(f"AFA input takes no read options (got {', '.join(sorted(read_options))})")
    if isinstance(events, AfaInput):
        events = events.source
    if afa is None:
        return AfaInput(events)
    if isinstance(events, (str, os.PathLike)):
        return read_stream(events, afa)
    if isinstance(events, list) and all(isinstance(x, tuple) and len(x) == 2 for x in events):
        return list(events)
    records = _records(events)
    return [(row, element_of(rec, row, afa)) for row, rec in _frame_rows(records)]


def _records(events: Any) -> list[dict[str, Any]]:
    import pandas as pd

    if isinstance(events, pd.DataFrame):
        return [{k: (None if v is pd.NA or v is pd.NaT else v) for k, v in rec.items()}
                for rec in events.to_dict("records")]
    if isinstance(events, list) and all(isinstance(x, dict) for x in events):
        return [dict(x) for x in events]
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover
        pa = None
    if pa is not None and isinstance(events, pa.RecordBatch):
        events = pa.Table.from_batches([events])
    if pa is not None and isinstance(events, pa.Table):
        return events.to_pylist()
    raise EventError(f"AFA input must be an events file path, a pandas DataFrame, an Arrow table or a list of "
                     f"rows, not {type(events).__name__}")
