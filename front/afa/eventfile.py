"""Reading an AFA input stream from an event file (CSV, JSON Lines, Parquet), in arrival order.

Columns: `kind` (insert, retract, punctuate, arc_insert, arc_delete, arc_retract, arc_punctuate;
default insert), `le`, `re` (default LE + the AFA's window, else infinity), `seq` (AFA+O only),
`arc` (the arc of an arc row). Every other column is payload; an empty cell is null and left out.
Files are read by the readers every language uses (cepkit.core.readers: one CSV, JSON Lines and Parquet
reader, one number rule): a payload column is typed as a whole, `le`/`re`/`seq` cells are read as numbers
one by one. Every attribute `e.<attr>` the AFA file's fences and transfers read must be a column, and
one they compare or compute with must hold numbers (text that reads as a number is one).
For arc_insert, `le`/`re` give an explicit lifetime [le, re); without `le` the arc gets the default
lifetime (LE > t_curr). arc_delete is the default-mode deletion; arc_retract retracts an explicit arc.
Every mistake is an EventError naming the row (1-based, header excluded) and the column.
"""
from __future__ import annotations

import os
from fractions import Fraction
from typing import Any, Iterator

import numpy as np

from cepkit.front.afa.model import INF, Afa, Lifetime
from cepkit.front.afa.stream import ArcDelete, ArcInsert, ArcPunctuate, Element, Event, Insert, Punctuate, Retract
from cepkit.core.errors import EventError
from cepkit.core.events import attribute_column, exact, number_value
from cepkit.core.inputs import arrow_stream
from cepkit.front.language import ast as A
from cepkit.core.numbers_text import NotANumber
from cepkit.core.readers import (check_file, csv_columns, csv_strings, event_format, json_columns, json_records,
                                 read_arrow_file)
from cepkit.front.afa.expr import parse_expression

KINDS = ("insert", "retract", "punctuate", "arc_insert", "arc_delete", "arc_retract", "arc_punctuate")
_ALIASES = {"+": "insert", "-": "retract", "cti": "punctuate", "punctuation": "punctuate"}
_CONTROL = {"kind", "le", "re", "seq", "arc"}
_ORDERING = {"<", "<=", ">", ">="}


def _exact(value: Any, row: int, column: str) -> Any:
    """A value of a row given in Python (a list of mappings): exact; infinity only as `re` (never ends)."""
    if isinstance(value, (bool, str)) or value is None or (column == "re" and value == INF):
        return value
    try:
        return number_value(value)
    except NotANumber:
        raise EventError(f"unsupported value {value!r}", row=row, column=column) from None


def _file_columns(path: str) -> tuple[dict[str, np.ndarray], list[int]]:
    """The file's columns in attribute form (cepkit.core.events.attribute_column) and each row's number."""

    kind = event_format(path)
    if kind == "csv":
        columns, n = csv_columns(csv_strings(path))
        return columns, list(range(1, n + 1))
    if kind == "jsonl":
        records = list(json_records(path))
        return json_columns([rec for _, rec in records])[0], [r for r, _ in records]
    frame = read_arrow_file(path).to_pandas(integer_object_nulls=True)
    return _frame_columns(frame), list(range(1, len(frame) + 1))


def _frame_columns(frame: Any) -> dict[str, np.ndarray]:
    """Attribute columns; a float `re` column keeps infinity (an event that never ends)."""
    names = [str(c) for c in frame.columns]
    for k, name in enumerate(names):
        if name in names[:k]:
            raise EventError(f"duplicate column '{name}'", column=name)
    return {name: frame.iloc[:, k].to_numpy(dtype=np.float64, na_value=np.nan)
            if name == "re" and frame.iloc[:, k].dtype.kind == "f" else attribute_column(frame.iloc[:, k], name)
            for k, name in enumerate(names)}


def _columns_rows(columns: dict[str, np.ndarray], rows: list[int]) -> Iterator[tuple[int, dict[str, Any]]]:
    names = list(columns)
    for i, row in enumerate(rows):
        yield row, {name: exact(columns[name][i]) for name in names}


def event_attributes(afa: Afa) -> dict[str, tuple[bool, str]]:
    """The payload attributes `e.<attr>` the AFA file's fences and transfers read: name -> (whether one
    compares or computes with it as a number, where: the arc and its fence or transfer). Arcs built in
    Python (no text) name none."""

    out: dict[str, tuple[bool, str]] = {}
    for arc in afa.arcs + afa.standby:
        texts = []
        if arc.text.get("fence") not in (None, "true"):
            texts.append((arc.text["fence"], f"the fence of arc '{arc.name}'"))
        texts += [(t, f"the transfer of '{f}' on arc '{arc.name}'") for f, t in (arc.text.get("transfer") or {}).items()]
        for text, where in texts:
            try:
                expr = parse_expression(text)
            except Exception:  # noqa: BLE001 - the AFA file was checked when loaded; a text here always parses
                continue
            for node in expr.walk():
                numeric = isinstance(node, (A.BinOp, A.Neg)) or (isinstance(node, A.Compare) and node.op in _ORDERING)
                operands = [getattr(node, n, None) for n in ("left", "right", "operand")] if numeric else [node]
                for x in operands:
                    if isinstance(x, A.AttrRef) and x.var == "e" and x.attr not in ("le", "re", "seq"):
                        was = out.get(x.attr, (False, where))
                        out[x.attr] = (was[0] or numeric, where if numeric and not was[0] else was[1])
    return out


def check_attributes(columns: dict[str, np.ndarray], rows: list[int], afa: Afa) -> None:
    """EventError for an attribute the AFA reads that is not a column, or a value that is not a number
    in one it compares or computes with (numeric text becomes the number, in place). An input without
    event rows (only punctuations and arc rows) carries no payload, and needs no attribute column."""
    if not _has_events(columns):
        return
    for attr, (numeric, where) in event_attributes(afa).items():
        if attr not in columns:
            raise EventError(f"missing attribute column '{attr}' (read by {where})", column=attr)
        values = columns[attr]
        if not numeric or values.dtype.kind in "iuf":
            continue
        converted = values.astype(object)
        for i, v in enumerate(values):
            try:
                converted[i] = number_value(v)
            except NotANumber:
                raise EventError(f"non-numeric value {v!r} in a compared attribute (compared as a number by {where})",
                                 row=rows[i], column=attr) from None
        columns[attr] = converted


def _has_events(columns: dict[str, np.ndarray]) -> bool:
    if not columns or not len(next(iter(columns.values()))):
        return False
    if "kind" not in columns:
        return True
    for v in columns["kind"]:
        kind = "insert" if v is None or (isinstance(v, float) and v != v) else str(v).strip().lower()
        if _ALIASES.get(kind, kind) in ("insert", "retract"):
            return True
    return False


def _number(v: Any, col: str, row: int, what: str) -> Any:
    """A le / re / seq cell: a number (text that reads as one), else EventError."""
    if isinstance(v, str):
        try:
            return number_value(v)
        except NotANumber:
            raise EventError(f"{what} {v!r} is not a number", row=row, column=col) from None
    return v


def _time(rec: dict[str, Any], col: str, row: int, required: bool) -> Any:
    v = _number(rec.get(col), col, row, "timestamp")
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
        seq = _number(rec.get("seq"), "seq", row, "sequence number")
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
    path = check_file(path)
    try:
        columns, rows = _file_columns(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise EventError(f"cannot read '{path}': {exc}") from None
    check_attributes(columns, rows, afa)
    return [(row, element_of(rec, row, afa)) for row, rec in _columns_rows(columns, rows)]


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
    events = arrow_stream(events)   # a polars DataFrame, a DuckDB relation: an Arrow table
    if afa is None:
        return AfaInput(events)
    if isinstance(events, (str, os.PathLike)):
        return read_stream(events, afa)
    if isinstance(events, list) and all(isinstance(x, tuple) and len(x) == 2 for x in events):
        return list(events)
    columns = _table_columns(events)
    if columns is None:  # rows given as Python mappings: their own values, exact
        records = [dict(x) for x in events]
        return [(row, element_of(rec, row, afa)) for row, rec in _frame_rows(records)]
    rows = list(range(1, len(next(iter(columns.values()), ())) + 1))
    check_attributes(columns, rows, afa)
    return [(row, element_of(rec, row, afa)) for row, rec in _columns_rows(columns, rows)]


def read_input(events: Any, query: Afa | None = None, **read_options: Any):
    """The AFA language's reader (core/registry.py): with the program's AFA (`query`, the registry passes it)
    the (row, element) pairs `to_elements` reads, else an `AfaInput` the program resolves with its own."""
    return to_elements(events, query, **read_options)


def _table_columns(events: Any) -> dict[str, np.ndarray] | None:
    """The columns of a DataFrame or an Arrow table in attribute form; None for a list of mappings."""
    import pandas as pd

    if isinstance(events, pd.DataFrame):
        return _frame_columns(events.reset_index(drop=True))
    if isinstance(events, list) and all(isinstance(x, dict) for x in events):
        return None
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover
        pa = None
    if pa is not None and isinstance(events, pa.RecordBatch):
        events = pa.Table.from_batches([events])
    if pa is not None and isinstance(events, pa.Table):
        return _frame_columns(events.to_pandas(integer_object_nulls=True))
    raise EventError(f"AFA input must be an events file path, a pandas DataFrame, an Arrow table (or an object "
                     f"with __arrow_c_stream__) or a list of rows, not {type(events).__name__}")
