"""The Spark job's output rows from a match table, column by column: one list of ids per variable, `ts`,
and each RETURN value as the JSON text of `json_safe(value)` (what `json.dumps` gives row by row), built
from the table's Arrow columns by cepkit.core.match_json (shared with `cepkit run`'s JSON lines), or as
cepkit.spark_jobs.typed_output writes it (exact JSON text, or VALUE structs typed after matching)."""
from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from cepkit.core.match_json import float_json, value_json  # noqa: F401  (float_json: the Spark tests use it here)
from cepkit.core.match_table import KIND, MatchTable
from cepkit.spark_jobs.typed_output import BATCH_VALUES, STREAM_VALUES, exact_json, value_struct


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
                 values: str = "json") -> pa.RecordBatch:
    """The job's rows (tasks.output_schema) for every match of `table`, the RETURN values as `values` writes
    them: json_safe JSON text, exact JSON text (typed_output.STREAM_VALUES) or VALUE structs
    (typed_output.BATCH_VALUES, typed after the matching stage)."""
    arrow = table.to_arrow()
    names = dict(zip(table.layout.payload, table.layout.payload_columns()))
    cols = [ids_column(arrow.column(v), id_is_int) for v in variables]
    cols.append(pc.cast(arrow.column("ts").combine_chunks(), pa.int64()))
    write = {BATCH_VALUES: value_struct, STREAM_VALUES: exact_json}.get(values, value_json)
    for r in returns:
        field = arrow.schema.field(names[r])
        cols.append(write(arrow.column(names[r]), (field.metadata or {}).get(KIND)))
    return pa.RecordBatch.from_arrays(cols, schema=schema)
