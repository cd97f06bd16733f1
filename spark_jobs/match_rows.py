"""The Spark job's output rows from a match table, column by column: one list of ids per variable, `ts`,
and each RETURN value as the JSON text of `json_safe(value)` (what `json.dumps` gives row by row), built
from the table's Arrow columns by cepkit.core.match_json (shared with `cepkit run`'s JSON lines)."""
from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from cepkit.core.match_json import float_json, value_json  # noqa: F401  (float_json: the Spark tests use it here)
from cepkit.core.match_table import KIND, MatchTable
from cepkit.spark_jobs.typed_output import exact_json


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


def output_batch(table: MatchTable, variables, returns, id_is_int: bool, schema: pa.Schema,
                 exact: bool = False) -> pa.RecordBatch:
    """The job's rows (tasks.output_schema) for every match of `table`; with `exact`, the RETURN values as
    exact JSON (typed_output.exact_json), typed after the matching stage."""
    arrow = table.to_arrow()
    names = dict(zip(table.layout.payload, table.layout.payload_columns()))
    cols = [ids_column(arrow.column(v), id_is_int) for v in variables]
    cols.append(pc.cast(arrow.column("ts").combine_chunks(), pa.int64()))
    for r in returns:
        field = arrow.schema.field(names[r])
        text = exact_json if exact else value_json
        cols.append(text(arrow.column(names[r]), (field.metadata or {}).get(KIND)))
    return pa.RecordBatch.from_arrays(cols, schema=schema)
