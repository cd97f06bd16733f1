"""Typed output of the Spark jobs (docs/spark.md "Output", semantics SP-T1): each RETURN / MEASURES column gets
the Arrow type and the values that `cepkit run --format parquet` gives the same column over the whole answer
(int64, double, bool, text, decimal(38, 0), exact rationals as struct<numerator, denominator>, ...).

A column's type may depend on the data (an average is an integer column where every average is whole, a
double where one is not; a column mixing text and numbers is JSON text ...), and a Spark schema is fixed
before its tasks run. So the job types its output in two steps after matching:

1. the matching tasks write each value as *exact JSON* (`exact_json`: the match table's own JSON, in which a
   rational is `{"fraction": [n, d]}` and a non-finite float `{"float": "inf"}`), lossless;
2. a pass over the matches (`witnesses`) keeps, per column and task, the few values that decide the type
   (a null, each kind present, the extremes of the integers and rationals, NaN and the infinities); the driver
   combines them (`combine`), and every task types its rows as the single process types a column holding
   those witnesses followed by its rows (`typed_column`), then drops the witnesses. The type is thus the
   whole answer's, and every value is converted as the single process converts it.

A stream cannot take step 2: it appends rows before the rest of its answer exists, so no witness of a later
row can type an earlier one (and the single process's type of a column depends on its whole answer: an
average is int64 while every average is whole, double from the first that is not; an integer past decimal(38,
0) turns its column to text). The streams (`cepkit spark stream`) therefore write step 1's exact JSON text
(`STREAM_VALUES`), lossless, and `typed_table` types a stream's output read back (or any such rows) as the
batch job types it: `cepkit run --format parquet`'s types and values over the rows given.

Plain Python and pyarrow (no Spark), so it is testable on its own."""
from __future__ import annotations

import json
import math
from typing import Any, Iterable, Iterator, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from cepkit.core.match import plain
from cepkit.core.match_json import value_json
from cepkit.core.match_table import FRACTION, decode, encode, jsonable, kind_of, unjson

WITNESS_SCHEMA = "col string, witnesses string"
STREAM_VALUES = "exact-json"  # how a stream writes its value columns (recorded in its checkpoint)
_STR = pa.string()


# ---------------------------------------------------------------------- step 1: exact JSON in the tasks
def exact_json(column: pa.ChunkedArray | pa.Array, kind: bytes | None) -> pa.Array:
    """Each value of an encoded match-table column as JSON that reads back to the same Python value (and
    type): "null" for null. Integers, finite floats (their repr), truth values and text take Arrow's kernels."""
    col = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    t = col.type
    fast = kind is None and (pa.types.is_integer(t) or pa.types.is_boolean(t) or pa.types.is_string(t)
                             or pa.types.is_null(t))
    if kind is None and pa.types.is_floating(t):
        values = pc.fill_null(col, 0.0).to_numpy(zero_copy_only=False)
        fast = bool(np.isfinite(values).all())
    if fast:
        return value_json(col, None)
    return pa.array([json.dumps(jsonable(v)) for v in decode(col, kind)], _STR)


def read_exact(texts: pa.Array | pa.ChunkedArray) -> list[Any]:
    """The Python values of an `exact_json` column."""
    return [None if s is None else unjson(json.loads(s)) for s in texts.to_pylist()]


# ---------------------------------------------------------------------- step 2: the type over all tasks
def _kind(v: Any) -> str:
    """match_table.kind_of, with a null and the non-finite floats told apart."""
    if v is None:
        return "none"
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if v != v else "inf" if v > 0 else "-inf"
    return kind_of(v)


def witnesses(values: Iterable[Any]) -> list[Any]:
    """The values of a column that decide its single-process type: one null, one text, one non-number, each
    truth value, NaN and each infinity, the least and greatest integer, finite float and numerator, and the
    greatest denominator present. A column holding these and any of `values` types as `values` do."""
    by_kind: dict[str, list[Any]] = {}
    for v in values:
        by_kind.setdefault(_kind(v), []).append(v)
    out: list[Any] = []
    for k in ("none", "str", "other", "nan", "inf", "-inf"):
        if k in by_kind:
            out.append(by_kind[k][0])
    if "bool" in by_kind:
        out += sorted(set(by_kind["bool"]))
    for k in ("int", "float"):
        if k in by_kind:
            vs = by_kind[k]
            out += [min(vs), max(vs)] if len(vs) > 1 else vs[:1]
    if "fraction" in by_kind:
        vs = by_kind["fraction"]
        picked = {id(min(vs, key=lambda f: f.numerator)): min(vs, key=lambda f: f.numerator),
                  id(max(vs, key=lambda f: f.numerator)): max(vs, key=lambda f: f.numerator),
                  id(max(vs, key=lambda f: f.denominator)): max(vs, key=lambda f: f.denominator)}
        out += list(picked.values())
    return out


def witness_rows(cols: Sequence[str], batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """mapInArrow body over the exact-JSON match rows: one row (column, JSON list of its witnesses) per
    column and batch."""
    for rb in batches:
        rows = [{"col": c, "witnesses": json.dumps([jsonable(v) for v in witnesses(read_exact(rb.column(c)))])}
                for c in cols]
        yield pa.RecordBatch.from_pylist(rows, schema=pa.schema([("col", _STR), ("witnesses", _STR)]))


def combine(cols: Sequence[str], rows: Iterable[tuple[str, str]]) -> dict[str, list[Any]]:
    """The whole answer's witnesses per column, from the (column, witnesses) rows of every task."""
    found: dict[str, list[Any]] = {c: [] for c in cols}
    for col, text in rows:
        found[col] += [unjson(v) for v in json.loads(text)]
    return {c: witnesses(vs) for c, vs in found.items()}


# ---------------------------------------------------------------------- the single process's Parquet column
def parquet_values(values: list[Any]) -> pa.Array:
    """A column of Python values as `cepkit run --format parquet` writes it (cepkit.match_output: the values
    encoded as a match-table column, typed as pandas types them, `Cells.arrow`)."""
    col, kind = encode(values)
    n = len(col)
    t = col.type
    if pa.types.is_null(t) or (n and col.null_count == n):
        return pa.array([None] * n)
    if kind is None and pa.types.is_integer(t):
        return pc.cast(col, pa.int64())
    if kind is None and pa.types.is_floating(t):
        return pa.array(pc.cast(col, pa.float64()).to_numpy(zero_copy_only=False), from_pandas=True)
    if kind is None and (pa.types.is_boolean(t) and not col.null_count or pa.types.is_string(t)):
        return col
    if kind == "fraction" and t == FRACTION:
        valid = pc.is_valid(col).to_numpy(zero_copy_only=False)
        num = np.where(valid, pc.fill_null(col.field("numerator"), 0).to_numpy(zero_copy_only=False), 0)
        den = np.where(valid, pc.fill_null(col.field("denominator"), 1).to_numpy(zero_copy_only=False), 1)
        if np.abs(num).max(initial=0) <= 2**53 and den.max(initial=1) <= 2**53:
            if (den == 1).all():
                return pa.array(num, pa.int64(), mask=~valid)
            return pa.array(np.where(valid, num / den, np.nan), from_pandas=True)
    objects = [plain(v) for v in decode(col, kind.encode() if kind else None)]
    try:
        series = pd.Series(objects)
    except OverflowError:  # pandas cannot hold these integers: the exact encoding
        return col
    k = series.dtype.kind
    if k in "iu":
        return pa.array(series.to_numpy(np.int64))
    if k == "f" and all(v is None or (type(v) is int and -2**63 <= v < 2**63) for v in objects):
        return pa.array(objects, pa.int64())
    if k == "f":
        return pa.array(series.to_numpy(np.float64), from_pandas=True)
    if k == "b":
        return pa.array(series.to_numpy(bool))
    try:
        return pa.array(objects, from_pandas=True)
    except (pa.ArrowException, OverflowError):
        return col


def column_type(witnessed: list[Any]) -> pa.DataType:
    """The Arrow type of a column with these witnesses; text for a column of nulls only (Spark cannot write
    Parquet's null type, `cepkit run` writes it)."""
    t = parquet_values(witnessed).type
    return _STR if pa.types.is_null(t) else t


def typed_column(texts: pa.Array | pa.ChunkedArray, witnessed: list[Any]) -> pa.Array:
    """An exact-JSON column of one task in the whole answer's type: typed after the answer's witnesses."""
    values = read_exact(texts)
    col = parquet_values(list(witnessed) + values).slice(len(witnessed))
    target = column_type(witnessed)
    return col if col.type == target else col.cast(target)


def typed_rows(cols: Sequence[str], found: dict[str, list[Any]], schema: pa.Schema,
               batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """mapInArrow body: the match rows with each value column in its typed form (`schema`)."""
    for rb in batches:
        arrays = [typed_column(rb.column(f.name), found[f.name]) if f.name in cols else rb.column(f.name)
                  for f in schema]
        yield pa.RecordBatch.from_arrays(arrays, schema=schema)


def typed_schema(schema: pa.Schema, cols: Sequence[str], found: dict[str, list[Any]]) -> pa.Schema:
    """`schema` with each value column in `cols` given its type over the whole answer."""
    return pa.schema([pa.field(f.name, column_type(found[f.name])) if f.name in cols else f for f in schema])


def typed_table(table: pa.Table, cols: Sequence[str]) -> pa.Table:
    """`table` (rows with the value columns `cols` as exact JSON text: a stream's output read back) with each of
    those columns in the type and the values `cepkit run --format parquet` gives it over these rows."""
    found = combine(cols, [(c, json.dumps([jsonable(v) for v in witnesses(read_exact(table.column(c)))]))
                           for c in cols])
    schema = typed_schema(table.schema, cols, found)
    arrays = [typed_column(table.column(f.name), found[f.name]) if f.name in cols else table.column(f.name)
              for f in schema]
    return pa.Table.from_arrays(arrays, schema=schema)
