"""An AFA input batch as typed arrays: element kinds, (LE, RE, payload hash) and the attributes the AFA reads.

Files (CSV, JSON Lines, Parquet; `read_file`, through the engine's registry reader), DataFrames and Arrow
tables are read column-wise by the reference's readers (cepkit.core.readers,
cepkit.front.afa.eventfile.check_attributes: the same column errors) and converted with NumPy. A row
the vectorized checks flag is handed to the reference's `element_of`, which raises its exact error. Python
lists of rows and (row, element) pairs are read row by row through the reference (`to_elements`), as the
reference does. Arc rows (dynamic patterns) get the kind ARC: the program
applies them between kernel calls. What the kernel cannot hold exactly is refused by name: timestamps that
are not integers, truth values in attributes the AFA reads.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from cepkit.optimized.afa.exprgen import EHEAD, ENGINE, Texts
from cepkit.optimized.afa.kernel import INF, INSERT, PUNCTUATE, RETRACT
from cepkit.optimized.bytecode import NULL, NUM, STR, numeric_text
from cepkit.front.afa.eventfile import AfaInput, check_attributes, element_of, to_elements
from cepkit.front.afa.stream import ArcDelete, ArcInsert, ArcPunctuate, Insert, Punctuate, Retract
from cepkit.core.errors import EventError, Unsupported
from cepkit.core.events import attribute_column, exact
from cepkit.core.readers import (check_file, csv_columns, csv_strings, event_format, json_columns, json_records,
                                 read_arrow_file)

KIND_CODES = {"insert": INSERT, "+": INSERT, "retract": RETRACT, "-": RETRACT, "punctuate": PUNCTUATE,
              "cti": PUNCTUATE, "punctuation": PUNCTUATE}
ARC_KINDS = ("arc_insert", "arc_delete", "arc_retract", "arc_punctuate")
ARC = 3   # an arc row (dynamic patterns): the program applies it between kernel calls
CONTROL = ("kind", "le", "re", "seq", "arc")
INT64_MAX = (1 << 63) - 1


@dataclass
class Batch:
    """Typed arrays of one batch; `rows` gives each element's input row, `record(i)` its exact values."""

    kind: np.ndarray   # int8[n]
    rows_x: np.ndarray  # int64[n, 5 + 3 * slots]: LE, RE (INF: never ends), payload hash, seq, whether seq is
                        # given, the slots' values
    rows: list
    element: Any       # i -> the reference's stream element of element i (for error messages)

    def __len__(self) -> int:
        return len(self.kind)

    def slice(self, a: int, b: int) -> "Batch":
        parent = self.element
        return Batch(self.kind[a:b], self.rows_x[a:b], self.rows[a:b], lambda i: parent(a + i))


def refuse(construct: str, row: Any = None) -> Unsupported:
    exc = Unsupported(ENGINE, construct)
    if row is not None:
        exc.message = f"{exc.message}, at input row {row}"
        exc.args = (str(exc),)
    return exc


def _name_key(name: str) -> np.uint64:
    h = 1469598103934665603
    for ch in name.encode():
        h = ((h ^ ch) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return np.uint64(h)


def _splitmix(x: np.ndarray) -> np.ndarray:
    """A 64-bit mix of each value (splitmix64's finalizer), vectorized."""
    x = x.astype(np.uint64)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _cell_hash(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row: a 64-bit hash of the exact value and whether it is null (nulls are not part of a payload).
    An integer hashes alike in every column type; other values by their type and text."""
    if values.dtype.kind in "iu":
        return _splitmix(values.astype(np.int64).view(np.uint64)), np.zeros(len(values), np.bool_)
    if values.dtype.kind == "f":
        null = np.isnan(values)
        clean = np.where(null, 0, values)
        if (clean == np.floor(clean)).all() and (np.abs(clean) < 2 ** 62).all():
            return _splitmix(clean.astype(np.int64).view(np.uint64)), null
    obj = np.array([_exact_key(v) for v in values], dtype=object)
    null = np.array([v is None for v in obj], np.bool_)
    ints = np.array([isinstance(v, int) and not isinstance(v, bool) for v in obj], np.bool_)
    h = pd.util.hash_array(np.array([f"{type(v).__name__}:{v}" for v in obj], dtype=object))
    if ints.any():   # an integer hashes as in an int64 column
        h[ints] = _splitmix(np.array([int(v) for v in obj[ints]], np.int64).view(np.uint64))
    return h, null


def _exact_key(v: Any) -> Any:
    v = exact(v)
    if isinstance(v, Fraction) and v.denominator == 1:
        return int(v.numerator)
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) > INT64_MAX:
        return str(v)
    return v


def payload_hash(columns: dict[str, np.ndarray], n: int) -> np.ndarray:
    """A hash of each row's payload (every column but kind, le, re, arc; nulls left out) and seq: retractions
    must name an event stored with the same payload (the reference compares the whole event)."""
    total = np.zeros(n, np.uint64)
    with np.errstate(over="ignore"):
        for name, values in columns.items():
            if name in ("kind", "le", "re", "arc"):
                continue
            h, null = _cell_hash(values)
            h = _splitmix(h ^ _name_key(name))
            if null.any():
                h[null] = 0
            total += h
    return total.view(np.int64)


def encode_values(values: np.ndarray, texts: Texts, name: str, rows: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One attribute column as tagged exact rationals (tag, numerator, denominator)."""
    n = len(values)
    t = np.full(n, NUM, np.int8)
    d = np.ones(n, np.int64)
    if values.dtype.kind in "iu":
        return t, values.astype(np.int64), d
    if values.dtype.kind == "b":
        raise refuse(f"truth values in attribute '{name}' (read by the AFA)", rows[0] if rows else None)
    if values.dtype.kind == "f":
        null = np.isnan(values)
        clean = np.where(null, 0, values)
        if (clean == np.floor(clean)).all() and (np.abs(clean) < 2 ** 53).all():
            t[null] = NULL
            return t, clean.astype(np.int64), d
        values = values.astype(object)
    num = np.zeros(n, np.int64)
    for i, v in enumerate(values):
        v = exact(v)
        if isinstance(v, str):
            x = numeric_text(v)
            if x is None:
                t[i], num[i] = STR, texts.code(v)
                continue
            v = x
        if v is None:
            t[i] = NULL
        elif isinstance(v, bool):
            raise refuse(f"truth values in attribute '{name}' (read by the AFA)", rows[i])
        elif isinstance(v, (int, Fraction)):
            v = Fraction(v)
            if abs(v.numerator) > INT64_MAX or v.denominator > INT64_MAX:
                raise refuse(f"the value {v} in attribute '{name}' (beyond 64-bit integers)", rows[i])
            num[i], d[i] = v.numerator, v.denominator
        else:
            raise refuse(f"the value {v!r} in attribute '{name}'", rows[i])
    return t, num, d


def _records(columns: dict[str, np.ndarray], rows: list):
    def record(i: int) -> dict:
        return {name: exact(values[i]) for name, values in columns.items()}
    return record


def _times(values: np.ndarray | None, n: int, what: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """int64 times, a mask of the nulls and a mask of the values that are not (small enough) integers."""
    none = np.zeros(n, np.bool_)
    if values is None:
        return np.zeros(n, np.int64), np.ones(n, np.bool_), none
    if values.dtype.kind in "iu":
        return values.astype(np.int64), none, none
    if values.dtype.kind == "f":
        null = np.isnan(values)
        inf = np.isposinf(values) if what == "re" else none
        clean = np.where(null | inf, 0, values)
        bad = ~(null | inf) & ((clean != np.floor(clean)) | ~np.isfinite(clean) | (np.abs(clean) >= 2 ** 62))
        out = np.where(bad, 0, clean).astype(np.int64)
        out[inf] = INF
        return out, null, bad
    out = np.zeros(n, np.int64)
    null = np.zeros(n, np.bool_)
    bad = np.zeros(n, np.bool_)
    for i, v in enumerate(values):
        v = exact(v)
        if isinstance(v, str) and numeric_text(v) is not None:
            v = numeric_text(v)
        if isinstance(v, Fraction) and v.denominator == 1:
            v = int(v)
        if v is None:
            null[i] = True
        elif what == "re" and v == math.inf:
            out[i] = INF
        elif isinstance(v, int) and not isinstance(v, bool) and abs(v) < 2 ** 62:
            out[i] = v
        else:
            bad[i] = True
    return out, null, bad


def _first(mask: np.ndarray) -> list[int]:
    return [int(np.argmax(mask))] if mask.any() else []


def from_columns(columns: dict[str, np.ndarray], rows: list, afa: Any, slots: dict[str, int],
                 texts: Texts) -> Batch:
    """The batch of a table's columns (attribute form, cepkit.core.events.attribute_column)."""
    n = len(rows)
    check_attributes(columns, rows, afa)
    record = _records(columns, rows)

    def element(i: int):
        return element_of(record(i), rows[i], afa)

    kind = np.full(n, INSERT, np.int8)
    arc = np.zeros(n, np.bool_)
    suspects: list[int] = []
    if "kind" in columns:
        # per distinct cell, not per row: factorize, then read each distinct kind once
        raw = columns["kind"]
        if isinstance(raw, pd.Categorical):
            labels, uniques = raw.codes.astype(np.int64), list(raw.categories)
        else:
            labels, uniques = pd.factorize(pd.Series(raw, dtype=object), use_na_sentinel=True)
        kinds = [str(v).strip().lower() for v in uniques]
        code_of = np.array([KIND_CODES.get(k, -1) for k in kinds] + [INSERT], np.int64)   # last: null cells
        arc_of = np.array([k in ARC_KINDS for k in kinds] + [False], np.bool_)
        codes = code_of[labels]
        arc = arc_of[labels]
        suspects += _first((codes < 0) & ~arc)
        kind = np.where(codes < 0, PUNCTUATE, codes).astype(np.int8)
    events = (kind != PUNCTUATE) & ~arc
    le, le_null, le_bad = _times(columns.get("le"), n, "le")
    re_, re_null, re_bad = _times(columns.get("re"), n, "re")
    suspects += _first(le_null & ~arc) + _first(le_bad & ~arc) + _first(re_bad & events)
    seq = np.zeros(n, np.int64)
    has_seq = np.zeros(n, np.int64)
    if "seq" in columns:
        values = columns["seq"]
        if values.dtype.kind in "iu":
            seq, has_seq = values.astype(np.int64), np.ones(n, np.int64)
        else:
            for i, v in enumerate(values):
                v = exact(v)
                if isinstance(v, str) and numeric_text(v) is not None:
                    v = numeric_text(v)
                if isinstance(v, Fraction) and v.denominator == 1:
                    v = int(v)
                if v is None:
                    continue
                if isinstance(v, int) and not isinstance(v, bool) and abs(v) < 2 ** 62:
                    seq[i], has_seq[i] = v, 1
                elif events[i]:
                    suspects.append(i)
                    break
    for i in sorted(set(suspects)):
        element(i)   # the reference's error for the first row that has one
    if (le_bad & ~arc).any() or (re_bad & events).any():
        raise refuse("non-integer timestamps", rows[int(np.argmax((le_bad & ~arc) | (re_bad & events)))])
    for j in np.flatnonzero(arc):
        element(int(j))   # the reference's error for a bad arc row
    kind[arc] = ARC
    if re_null.any():
        w = afa.window
        if w is None:
            re_[re_null] = INF
        elif isinstance(w, int) or (isinstance(w, Fraction) and w.denominator == 1):
            if int(w) >= INF - int(le[re_null].max(initial=0)):   # LE + window past int64
                raise refuse(f"a window of {int(w):,} (event lifetimes beyond 64-bit timestamps)")
            re_[re_null] = le[re_null] + int(w)
        else:
            raise refuse(f"a window that is not an integer ({w})")
    x = np.empty((n, EHEAD + 3 * len(slots)), np.int64)
    x[:, 0] = le
    x[:, 1] = re_
    x[:, 2] = payload_hash(columns, n)
    x[:, 3] = seq
    x[:, 4] = has_seq
    attribute_arrays(x, columns, rows, slots, texts, le, re_, kind)
    return Batch(kind, x, rows, element)


def attribute_arrays(x, columns, rows, slots, texts, le, re_, kind) -> None:
    """Fill the slots of the event rows x: (tag, numerator, denominator) of each attribute the AFA reads."""
    events = (kind == INSERT) | (kind == RETRACT)
    for name, k in slots.items():
        c = EHEAD + 3 * k
        x[:, c + 2] = 1
        if name == "le":
            x[:, c], x[:, c + 1] = NUM, le
        elif name == "re":
            if (re_[events] == INF).any():
                raise refuse("e.re of an event that never ends (RE infinite)")
            x[:, c], x[:, c + 1] = NUM, re_
        elif name in columns:
            x[:, c], x[:, c + 1], x[:, c + 2] = encode_values(columns[name], texts, name, rows)
        else:
            x[:, c], x[:, c + 1] = NULL, 0


def from_elements(pairs: list, afa: Any, slots: dict[str, int], texts: Texts) -> Batch:
    """The batch of (row, element) pairs (the reference's parse of Python rows)."""
    n = len(pairs)
    rows = [r for r, _ in pairs]
    columns: dict[str, list] = {}
    kind = np.zeros(n, np.int8)
    le = np.zeros(n, np.int64)
    re_ = np.zeros(n, np.int64)
    for i, (row, x) in enumerate(pairs):
        if isinstance(x, (ArcInsert, ArcDelete, ArcPunctuate)):
            kind[i] = ARC
            continue
        if isinstance(x, Punctuate):
            kind[i] = PUNCTUATE
            le[i] = _int_time(x.t, row, "le")
            continue
        kind[i] = INSERT if isinstance(x, Insert) else RETRACT
        e = x.event
        le[i] = _int_time(e.le, row, "le")
        re_[i] = INF if e.re == math.inf else _int_time(e.re, row, "re")
        for k, v in e.payload + ((("seq", e.seq),) if e.seq is not None else ()):
            columns.setdefault(k, [None] * n)[i] = v
    arrays = {k: np.array(v, dtype=object) for k, v in columns.items()}
    x = np.empty((n, EHEAD + 3 * len(slots)), np.int64)
    x[:, 0] = le
    x[:, 1] = re_
    x[:, 2] = payload_hash(arrays, n)
    seqs = [x_.event.seq if isinstance(x_, (Insert, Retract)) else None for _, x_ in pairs]
    x[:, 3] = [0 if q is None else _int_time(q, r, "seq") for (r, _), q in zip(pairs, seqs)]
    x[:, 4] = [q is not None for q in seqs]
    attribute_arrays(x, arrays, rows, slots, texts, le, re_, kind)
    return Batch(kind, x, rows, lambda i: pairs[i][1])


def _int_time(v: Any, row: Any, col: str) -> int:
    if isinstance(v, Fraction) and v.denominator == 1:
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int) or abs(v) >= 2 ** 62:
        raise refuse(f"non-integer timestamps ('{col}')", row)
    return v


@dataclass
class FileColumns:
    """An events file read column-wise (cepkit.core.readers), waiting for the program that converts it to a
    typed batch with its own texts and slots: what the optimized AFA program feeds on from a path."""

    path: str
    columns: dict | None    # CSV, JSON Lines: the columns in attribute form
    rows: list              # each row's number in the file
    frame: Any = None       # Parquet, Arrow files: the table as a pandas DataFrame

    def __len__(self) -> int:
        return len(self.rows)


def read_file(path: Any) -> FileColumns:
    """The events file at `path`, read column-wise (the reference's errors for a missing file, a directory
    and a file that cannot be read)."""

    path = check_file(path)
    kind = event_format(path)
    try:
        if kind == "csv":
            columns, n = csv_columns(csv_strings(path))
            return FileColumns(path, columns, list(range(1, n + 1)))
        if kind == "jsonl":
            records = list(json_records(path))
            return FileColumns(path, json_columns([r for _, r in records])[0], [r for r, _ in records])
        frame = read_arrow_file(path).to_pandas(integer_object_nulls=True)
    except (OSError, UnicodeDecodeError) as exc:
        raise EventError(f"cannot read '{path}': {exc}") from None
    return FileColumns(path, None, list(range(1, len(frame) + 1)), frame)


def read_input(events: Any) -> Any:
    """The optimized AFA engine's reader (core/registry.py): an events file path read column-wise
    (`FileColumns`); any other input as the language's reader gives it (an `AfaInput` the program resolves)."""
    if isinstance(events, FileColumns):
        return events
    if isinstance(events, (str, os.PathLike)):
        return read_file(events)
    return to_elements(events)


def read_batch(source: Any, afa: Any, slots: dict[str, int], texts: Texts) -> Batch:
    """The typed batch of any AFA input the reference reads (and of a file read column-wise)."""
    if isinstance(source, AfaInput):
        source = source.source
    if isinstance(source, (str, os.PathLike)):
        source = read_file(source)
    if isinstance(source, FileColumns):
        if source.frame is not None:
            return from_frame(source.frame, afa, slots, texts)
        return from_columns(source.columns, source.rows, afa, slots, texts)
    if isinstance(source, pd.DataFrame):
        return from_frame(source, afa, slots, texts)
    try:
        import pyarrow as pa

        if isinstance(source, pa.RecordBatch):
            source = pa.Table.from_batches([source])
        if isinstance(source, pa.Table):
            return from_frame(source.to_pandas(integer_object_nulls=True), afa, slots, texts)
    except ImportError:  # pragma: no cover
        pass
    return from_elements(to_elements(source, afa), afa, slots, texts)


def from_frame(frame: pd.DataFrame, afa, slots, texts) -> Batch:
    names = [str(c) for c in frame.columns]
    for k, name in enumerate(names):
        if name in names[:k]:
            raise EventError(f"duplicate column '{name}'", column=name)
    columns = {}
    for k, name in enumerate(names):
        col = frame.iloc[:, k]
        if name == "kind" and isinstance(col.dtype, pd.CategoricalDtype):
            columns[name] = col.array   # read by its codes
        elif name == "re" and col.dtype.kind == "f":
            columns[name] = col.to_numpy(dtype=np.float64, na_value=np.nan)
        elif col.dtype.kind == "i":
            columns[name] = col.to_numpy(dtype=np.int64)
        else:
            columns[name] = attribute_column(col.reset_index(drop=True), name)
    return from_columns(columns, list(range(1, len(frame) + 1)), afa, slots, texts)
