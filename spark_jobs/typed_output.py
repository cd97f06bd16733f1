"""Typed output of the Spark jobs (docs/spark.md "Output", semantics SP-T1): each RETURN / MEASURES column gets
the Arrow type and the values that `cepkit run --format parquet` gives the same column over the whole answer
(int64, double, bool, text, decimal(38, 0), exact rationals as struct<numerator, denominator>, ...).

A column's type may depend on the data (an average is an integer column where every average is whole, a
double where one is not; a column mixing text and numbers is JSON text ...), and a Spark schema is fixed
before its tasks run. So the batch jobs type their output in two steps after matching:

1. the matching tasks write each value column as `VALUE` structs (`value_struct`), lossless: an int64 in `i`,
   a rational within int64 as `i`/`d` (d 1: a whole Fraction a mixed column keeps), a float (NaN and the
   infinities too) in `f`, a truth value in `b`, a text in `s`, and any other value (an integer or a rational
   past int64, a list ...) as exact JSON in `x` (`exact_json`'s form); a null sets no field;
2. the matching tasks also collect per column the few values that decide the type, its witnesses (a null,
   each kind present, the extremes of the integers and rationals, NaN and the infinities: `value_witnesses`,
   Arrow's aggregates over the fields, Python only for `x`), into an accumulator that merges them
   (`witnesses`; cepkit.spark_jobs.task_witnesses), and every task types its rows as the single process types a column
   holding those witnesses followed by its rows. The type is thus the whole answer's, and every value is
   converted as the single process converts it: column-wise where the witnesses allow (`column_plan`: int64;
   double from floats, from integers and floats, or from integers and rationals within 2^53; bool; text;
   nulls only; Arrow's kernels in `typed_values`, Spark's expressions in spark_io), value by value
   (`parquet_values`) for the rest (decimal(38, 0), rationals past 2^53, mixed kinds ...).

A stream cannot take step 2: it appends rows before the rest of its answer exists, so no witness of a later
row can type an earlier one (and the single process's type of a column depends on its whole answer: an
average is int64 while every average is whole, double from the first that is not; an integer past decimal(38,
0) turns its column to text). The streams (`cepkit spark stream`) therefore write exact JSON text
(`exact_json`, `STREAM_VALUES`: the match table's own JSON, in which a rational is `{"fraction": [n, d]}` and
a non-finite float `{"float": "inf"}`), lossless, and `typed_table` types a stream's output read back (or any
such rows) as the batch job types it: `cepkit run --format parquet`'s types and values over the rows given.

Plain Python and pyarrow (no Spark), so it is testable on its own."""
from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Any, Iterable, Iterator, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from cepkit.core.match import plain
from cepkit.core.match_json import value_json
from cepkit.core.match_table import FRACTION, INT64_MAX, INT64_MIN, decode, encode, jsonable, kind_of, unjson

STREAM_VALUES = "exact-json"  # how a stream writes its value columns (recorded in its checkpoint)
BATCH_VALUES = "typed"        # how the batch jobs' tasks write them: VALUE structs, typed after matching
_STR = pa.string()
_F64 = pa.float64()
VALUE = pa.struct([("i", pa.int64()), ("d", pa.int64()), ("f", _F64), ("b", pa.bool_()), ("s", _STR),
                   ("x", _STR)])
_FIELDS = tuple(f.name for f in VALUE)
_EXACT = 2**53  # the integers a double holds exactly


def value_type(values: str) -> pa.DataType:
    """The Arrow type of a value column the tasks write as `values` (BATCH_VALUES or STREAM_VALUES)."""
    return {BATCH_VALUES: VALUE, STREAM_VALUES: _STR}[_known(values)]


def value_writer(values: str):
    """The function writing a match table's value column (its Arrow column and kind) as `values` writes it:
    VALUE structs (BATCH_VALUES) or exact JSON text (STREAM_VALUES)."""
    return {BATCH_VALUES: value_struct, STREAM_VALUES: exact_json}[_known(values)]


def _known(values: str) -> str:
    if values not in (BATCH_VALUES, STREAM_VALUES):
        raise ValueError(f"values are written as {BATCH_VALUES!r} or {STREAM_VALUES!r}, not {values!r}")
    return values


# ---------------------------------------------------------------------- step 1: the tasks' values
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


def _struct(n: int, **fields: pa.Array) -> pa.StructArray:
    return pa.StructArray.from_arrays([fields.get(f.name, pa.nulls(n, f.type)) for f in VALUE], fields=list(VALUE))


def value_struct(column: pa.ChunkedArray | pa.Array, kind: bytes | None) -> pa.StructArray:
    """An encoded match-table column as VALUE structs (module docstring), its integers, floats, truth values,
    text and rationals within int64 column-wise."""
    col = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    n, t = len(col), col.type
    if kind is None and pa.types.is_null(t):
        return _struct(n)
    if kind is None and pa.types.is_integer(t):
        try:
            return _struct(n, i=pc.cast(col, pa.int64()))
        except pa.ArrowInvalid:  # uint64 past int64
            pass
    elif kind is None and pa.types.is_floating(t):
        return _struct(n, f=pc.cast(col, _F64))
    elif kind is None and pa.types.is_boolean(t):
        return _struct(n, b=col)
    elif kind is None and (pa.types.is_string(t) or pa.types.is_large_string(t)):
        return _struct(n, s=pc.cast(col, _STR))
    elif kind == b"fraction" and t == FRACTION:
        valid = pc.is_valid(col).to_numpy(zero_copy_only=False)
        num = np.where(valid, pc.fill_null(pc.struct_field(col, "numerator"), 0).to_numpy(zero_copy_only=False), 0)
        den = np.where(valid, pc.fill_null(pc.struct_field(col, "denominator"), 1).to_numpy(zero_copy_only=False), 1)
        if (den > 0).all() and not (num == INT64_MIN).any():  # lowest terms column-wise, as Fraction has them
            g = np.gcd(num, den)
            num, den = num // g, den // g
            return _struct(n, i=pa.array(num, mask=~valid), d=pa.array(den, mask=~valid | (den == 1)))
    return struct_of(decode(col, kind))


def struct_of(values: Sequence[Any]) -> pa.StructArray:
    """Python values (a match's exact values) as VALUE structs, one by one."""
    fields: dict[str, list[Any]] = {k: [None] * len(values) for k in _FIELDS}
    for j, v in enumerate(values):
        k = None if v is None else "fraction" if isinstance(v, Fraction) else kind_of(v)
        if k == "int" and INT64_MIN <= v <= INT64_MAX:
            fields["i"][j] = v
        elif k == "fraction" and INT64_MIN <= v.numerator <= INT64_MAX and v.denominator <= INT64_MAX:
            fields["i"][j], fields["d"][j] = v.numerator, v.denominator  # a whole one (JSON's) stays a Fraction
        elif k in ("float", "bool", "str"):
            fields[{"float": "f", "bool": "b", "str": "s"}[k]][j] = v
        elif k is not None:
            fields["x"][j] = json.dumps(jsonable(v))
    return _struct(len(values), **{k: pa.array(fields[k], VALUE.field(k).type) for k in _FIELDS})


def struct_values(values: pa.StructArray | pa.ChunkedArray) -> list[Any]:
    """The Python values of a VALUE column."""
    out: list[Any] = []
    for r in values.to_pylist():
        r = r or {}
        if r.get("x") is not None:
            out.append(unjson(json.loads(r["x"])))
        elif r.get("d") is not None:
            out.append(Fraction(r["i"], r["d"]))
        else:
            out.append(next((r[k] for k in ("i", "f", "b", "s") if r.get(k) is not None), None))
    return out


def _fields(values: pa.StructArray | pa.ChunkedArray) -> dict[str, pa.Array]:
    col = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    return {k: pc.struct_field(col, k) for k in _FIELDS}


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


def value_witnesses(values: pa.StructArray | pa.ChunkedArray) -> list[Any]:
    """`witnesses` of a VALUE column: Arrow's aggregates over its fields, Python over its `x` values only."""
    fs = _fields(values)
    n = len(fs["i"])
    found: list[Any] = []
    if sum(n - fs[k].null_count for k in ("i", "f", "b", "s", "x")) < n:  # a row sets at most one of these
        found.append(None)
    if fs["s"].null_count < n:
        found.append(pc.drop_null(fs["s"])[0].as_py())
    if fs["b"].null_count < n:
        found += pc.unique(pc.drop_null(fs["b"])).to_pylist()
    if fs["f"].null_count < n:
        f = pc.drop_null(fs["f"]).to_numpy()
        finite = f[np.isfinite(f)]
        found += [float(finite.min()), float(finite.max())] if len(finite) else []
        found += [x for x, there in ((math.nan, np.isnan(f).any()), (math.inf, (f == math.inf).any()),
                                     (-math.inf, (f == -math.inf).any())) if there]
    i, d = fs["i"], fs["d"]
    if i.null_count < n:
        whole = pc.and_(pc.is_valid(i), pc.is_null(d))
        ints = pc.filter(i, whole).to_numpy() if d.null_count < n else pc.drop_null(i).to_numpy()
        found += [int(ints.min()), int(ints.max())] if len(ints) else []
        if d.null_count < n:
            part = pc.is_valid(d)
            nums, dens = pc.filter(i, part).to_numpy(), pc.filter(d, part).to_numpy()
            found += [Fraction(int(nums[k]), int(dens[k])) for k in {nums.argmin(), nums.argmax(), dens.argmax()}]
    if fs["x"].null_count < n:
        found += read_exact(pc.drop_null(fs["x"]))
    return witnesses(found)


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
    if pa.types.is_decimal(t):   # integers past int64 (Cells.arrow: their exact encoding)
        return col
    if kind is None and pa.types.is_floating(t):
        return pa.array(pc.cast(col, _F64).to_numpy(zero_copy_only=False), from_pandas=True)
    if kind is None and (pa.types.is_boolean(t) and not col.null_count or pa.types.is_string(t)):
        return col
    if kind == "fraction" and t == FRACTION:
        valid = pc.is_valid(col).to_numpy(zero_copy_only=False)
        num = np.where(valid, pc.fill_null(col.field("numerator"), 0).to_numpy(zero_copy_only=False), 0)
        den = np.where(valid, pc.fill_null(col.field("denominator"), 1).to_numpy(zero_copy_only=False), 1)
        if np.abs(num).max(initial=0) <= _EXACT and den.max(initial=1) <= _EXACT:
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


def _doubles(col: pa.Array) -> pa.Array:
    """A double column as the single process writes it: NaN is null."""
    return pa.array(col.to_numpy(zero_copy_only=False), _F64, from_pandas=True)


def column_plan(witnessed: list[Any], target: pa.DataType) -> str | None:
    """How a VALUE column with these witnesses takes its type `target` column-wise: "nulls" (text nulls),
    "b", "s" or "i" (that field as it is), "f" (the floats, NaN null), "i+f" (the integers as doubles, else the
    float), "i/d" (each rational as one division of two exact doubles); None: value by value."""
    kinds = {"float" if k in ("nan", "inf", "-inf") else k for k in map(_kind, witnessed)} - {"none"}
    ints = [int(w) for w in witnessed if _kind(w) == "int"]
    fractions = [w for w in witnessed if _kind(w) == "fraction"]
    if not kinds:
        return "nulls"
    if kinds == {"bool"} and target == pa.bool_():
        return "b"
    if kinds == {"str"} and target == _STR:
        return "s"
    if kinds == {"int"} and target == pa.int64():
        return "i"
    if target != _F64 or any(abs(v) > _EXACT for v in ints):
        return None
    if kinds == {"float"}:
        return "f"
    if kinds == {"int", "float"}:
        return "i+f"
    if kinds <= {"int", "fraction"} and all(abs(f.numerator) <= _EXACT and f.denominator <= _EXACT
                                             for f in fractions):
        return "i/d"
    return None


def _column_wise(fs: dict[str, pa.Array], plan: str) -> pa.Array:
    """The typed column by Arrow's kernels, as `column_plan` says."""
    if plan == "nulls":
        return pa.nulls(len(fs["i"]), _STR)
    if plan in ("b", "s", "i"):
        return fs[plan]
    if plan == "f":
        return _doubles(fs["f"])
    if plan == "i+f":
        return _doubles(pc.coalesce(pc.cast(fs["i"], _F64), fs["f"]))
    return _doubles(pc.divide(pc.cast(fs["i"], _F64), pc.cast(pc.fill_null(fs["d"], 1), _F64)))


def typed_values(values: pa.StructArray | pa.ChunkedArray, witnessed: list[Any]) -> pa.Array:
    """A VALUE column of one task in the whole answer's type: typed after the answer's witnesses, as
    `parquet_values` types them followed by its values (column-wise where they allow)."""
    target = column_type(witnessed)
    plan = column_plan(witnessed, target)
    if plan is not None:
        return _column_wise(_fields(values), plan)
    col = parquet_values(list(witnessed) + struct_values(values)).slice(len(witnessed))
    return col if col.type == target else col.cast(target)


def typed_rows(cols: Sequence[str], found: dict[str, list[Any]], schema: pa.Schema,
               batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """mapInArrow body: the match rows with each value column in its typed form (`schema`)."""
    for rb in batches:
        arrays = [typed_values(rb.column(f.name), found[f.name]) if f.name in cols else rb.column(f.name)
                  for f in schema]
        yield pa.RecordBatch.from_arrays(arrays, schema=schema)


def typed_schema(schema: pa.Schema, cols: Sequence[str], found: dict[str, list[Any]]) -> pa.Schema:
    """`schema` with each value column in `cols` given its type over the whole answer."""
    return pa.schema([pa.field(f.name, column_type(found[f.name])) if f.name in cols else f for f in schema])


def typed_table(table: pa.Table, cols: Sequence[str]) -> pa.Table:
    """`table` (rows with the value columns `cols` as exact JSON text: a stream's output read back) with each of
    those columns in the type and the values `cepkit run --format parquet` gives it over these rows."""
    values = {c: struct_of(read_exact(table.column(c))) for c in cols}
    found = {c: value_witnesses(v) for c, v in values.items()}
    schema = typed_schema(table.schema, cols, found)
    arrays = [typed_values(values[f.name], found[f.name]) if f.name in cols else table.column(f.name)
              for f in schema]
    return pa.Table.from_arrays(arrays, schema=schema)
