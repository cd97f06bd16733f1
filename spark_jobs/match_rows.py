"""The Spark job's output rows from a match table, column by column: one list of ids per variable, `ts`,
and each RETURN value as cepkit.spark_jobs.typed_output writes it (VALUE structs typed after matching, or exact
JSON text for a stream)."""
from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from cepkit.core.match_table import KIND, MatchTable
from cepkit.spark_jobs.typed_output import BATCH_VALUES, value_writer


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
                 values: str = BATCH_VALUES) -> pa.RecordBatch:
    """The job's rows (tasks.output_schema) for every match of `table`, the RETURN values as `values` writes
    them: VALUE structs (typed_output.BATCH_VALUES, typed after the matching stage) or exact JSON text
    (typed_output.STREAM_VALUES)."""
    arrow = table.to_arrow()
    names = dict(zip(table.layout.payload, table.layout.payload_columns()))
    cols = [ids_column(arrow.column(v), id_is_int) for v in variables]
    cols.append(pc.cast(arrow.column("ts").combine_chunks(), pa.int64()))
    write = value_writer(values)
    for r in returns:
        field = arrow.schema.field(names[r])
        cols.append(write(arrow.column(names[r]), (field.metadata or {}).get(KIND)))
    return pa.RecordBatch.from_arrays(cols, schema=schema)
