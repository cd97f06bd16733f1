"""The Spark job's output rows from a match table, column by column: one list of ids per variable, `ts`,
and each RETURN value as the JSON text of `json_safe(value)` (what `json.dumps` gives row by row), built
from the table's Arrow columns without a Python object per match where the column's type allows
(int64, bool, float64, exact fractions); other columns (text, big integers, mixed JSON) go row by row."""
from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from reference.match import json_safe
from reference.match_table import FRACTION, KIND, MatchTable, decode

_FLOAT_LOW, _FLOAT_HIGH = 1e-4, 1e16  # where repr(float) writes positional digits, as Arrow may


def ids_column(col: pa.ChunkedArray | pa.Array, id_is_int: bool) -> pa.Array:
    """A binding column as list<int64> (or list<string>); an unbound variable is an empty list."""
    col = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    if col.null_count:
        col = pc.if_else(pc.is_null(col), pa.scalar([], col.type), col)
    target = pa.list_(pa.int64() if id_is_int else pa.string())
    if not id_is_int and not pa.types.is_string(col.type.value_type):
        values = pc.cast(col.values, pa.string())
        col = type(col).from_arrays(col.offsets, values)
    return col.cast(target)


def float_json(values: np.ndarray) -> pa.Array:
    """json.dumps(json_safe(x)) for each float64 x: Arrow's shortest digits where they are repr's (a
    positional number; '.0' added to an integral one), repr / the quoted non-finite name elsewhere."""
    values = np.asarray(values, np.float64)
    text = pc.cast(pa.array(values), pa.string())
    size = np.abs(values)
    plain = np.isfinite(values) & ((values == 0) | ((size >= _FLOAT_LOW) & (size < _FLOAT_HIGH)))
    plain &= ~pc.match_substring(text, "e").to_numpy(zero_copy_only=False)
    integral = plain & (values == np.floor(np.where(plain, values, 0.0)))
    text = pc.if_else(pa.array(integral), pc.binary_join_element_wise(text, ".0", ""), text)
    if plain.all():
        return text
    out = text.to_pylist()
    for i in np.flatnonzero(~plain):
        out[i] = json.dumps(json_safe(float(values[i])), allow_nan=False)
    return pa.array(out, pa.string())


def value_json(col: pa.ChunkedArray | pa.Array, kind: bytes | None) -> pa.Array:
    """json.dumps(json_safe(value)) for each value of an encoded match-table column ("null" for null)."""
    col = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    t = col.type
    if kind is None and (pa.types.is_integer(t) or pa.types.is_boolean(t)):
        text = pc.cast(col, pa.string())
        if pa.types.is_boolean(t):
            text = pc.if_else(col, "true", "false")
    elif kind is None and pa.types.is_floating(t) and not col.null_count:
        text = float_json(col.to_numpy(zero_copy_only=False))
    elif kind == b"fraction" and t == FRACTION and not col.null_count:
        num = col.field("numerator").to_numpy(zero_copy_only=False)
        den = col.field("denominator").to_numpy(zero_copy_only=False)
        if np.abs(num).max(initial=0) > 2**53 or den.max(initial=1) > 2**53:
            return _row_json(col, kind)   # float(Fraction) is not one division of two exact doubles
        whole = den == 1
        text = pc.if_else(pa.array(whole), pc.cast(pa.array(num), pa.string()), float_json(num / den))
    else:
        return _row_json(col, kind)
    return pc.fill_null(text, "null") if text.null_count else text


def _row_json(col: pa.Array, kind: bytes | None) -> pa.Array:
    return pa.array([json.dumps(json_safe(v), default=str, allow_nan=False) for v in decode(col, kind)], pa.string())


def output_batch(table: MatchTable, variables, returns, id_is_int: bool, schema: pa.Schema) -> pa.RecordBatch:
    """The job's rows (tasks.output_schema) for every match of `table`."""
    arrow = table.to_arrow()
    names = dict(zip(table.layout.payload, table.layout.payload_columns()))
    cols = [ids_column(arrow.column(v), id_is_int) for v in variables]
    cols.append(pc.cast(arrow.column("ts").combine_chunks(), pa.int64()))
    for r in returns:
        field = arrow.schema.field(names[r])
        cols.append(value_json(arrow.column(names[r]), (field.metadata or {}).get(KIND)))
    return pa.RecordBatch.from_arrays(cols, schema=schema)
