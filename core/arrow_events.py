"""Events straight from Arrow columns, without a pandas round trip, for the common shapes: a string or
dictionary type column, integer timestamps, unique integer ids, and attributes that are integers, floats
or bools (any other attribute goes through pandas one column at a time).

`columnar_batch` gives exactly what `from_arrow`'s pandas path gives, or None for anything else (null or
blank types, datetime or text timestamps, repeated or text ids, a stored pandas index...), so the pandas
path reads it and reports any error, with the same message.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.types as pt

from cepkit.core.events import TIME_UNITS, EventBatch, assemble, attribute_column
from cepkit.core.typed_columns import values_column


def columnar_batch(table: pa.Table, *, type_col: str | None = "type", ts_col: str = "ts", id_col: str | None = "id",
                   ts_unit: str | None = None, sort: bool = False, default_type: Any = None) -> EventBatch | None:
    """The batch, or None when the table needs the pandas path."""
    names = table.column_names
    meta = table.schema.pandas_metadata or {}
    if (ts_unit is not None and ts_unit not in TIME_UNITS) or len(set(names)) != len(names) \
            or any(isinstance(c, str) for c in meta.get("index_columns", ())):
        return None
    if type_col is None or type_col not in names or ts_col not in names:
        return None
    types = _types(table.column(type_col))
    ts = _integers(table.column(ts_col))
    if types is None or ts is None:
        return None
    positional = id_col is None or id_col not in names
    if positional:
        ids = np.arange(table.num_rows, dtype=np.int64)
    else:
        ids = _integers(table.column(id_col))
        if ids is None or not _unique(ids):
            return None
    skip = {type_col, ts_col, id_col}
    columns = {name: _attribute_column(table.column(name), name) for name in names if name not in skip}
    return assemble(columns, types[0], types[1], ts, ids, ts_unit, sort, ts_col, positional)


def columns_batch(columns: dict[str, np.ndarray], n: int, *, type_col: str | None = "type", ts_col: str = "ts",
                  id_col: str | None = "id", ts_unit: str | None = None, sort: bool = False,
                  default_type: Any = None) -> EventBatch | None:
    """`cepkit.core.readers.from_columns`' batch (columns already in attribute form: the CSV reader's) without
    pandas, for a text type column and integer timestamps and ids; None for anything else."""
    if (ts_unit is not None and ts_unit not in TIME_UNITS) or type_col is None or type_col not in columns \
            or ts_col not in columns or columns[type_col].dtype != object or columns[ts_col].dtype != np.int64:
        return None
    try:
        types = _types(pa.chunked_array([pa.array(columns[type_col], pa.string())]))
    except (pa.ArrowException, TypeError):
        return None
    positional = id_col is None or id_col not in columns
    ids = np.arange(n, dtype=np.int64) if positional else columns[id_col]
    if types is None or ids.dtype != np.int64 or not _unique(ids):
        return None
    attributes = {name: v for name, v in columns.items() if name not in {type_col, ts_col, id_col}}
    return assemble(attributes, types[0], types[1], columns[ts_col], ids, ts_unit, sort, ts_col, positional)


def _types(col: pa.ChunkedArray) -> tuple[np.ndarray, tuple[str, ...]] | None:
    """(codes, sorted stripped names) as `cepkit.core.events._read_types` gives them."""
    if col.null_count or not (pt.is_string(col.type) or pt.is_large_string(col.type)
                              or (pt.is_dictionary(col.type) and pt.is_string(col.type.value_type))):
        return None
    if pt.is_dictionary(col.type):
        col = col.cast(col.type.value_type)
    encoded = col.combine_chunks().dictionary_encode() if col.num_chunks != 1 else col.chunk(0).dictionary_encode()
    texts = [str(u).strip() for u in encoded.dictionary.to_pylist()]
    if not all(texts):
        return None
    names = tuple(sorted(set(texts)))
    position = {name: k for k, name in enumerate(names)}
    remap = np.array([position[t] for t in texts] or [0], dtype=np.int32)
    return remap[encoded.indices.to_numpy(zero_copy_only=False)], names


def _integers(col: pa.ChunkedArray) -> np.ndarray | None:
    if col.null_count or not (pt.is_signed_integer(col.type) or col.type in (pa.uint8(), pa.uint16(), pa.uint32())):
        return None
    return col.to_numpy().astype(np.int64, copy=False)


def _unique(ids: np.ndarray) -> bool:
    return len(ids) < 2 or bool((ids[1:] > ids[:-1]).all()) or len(np.unique(ids)) == len(ids)


def _attribute_column(col: pa.ChunkedArray, name: str) -> np.ndarray:
    """As `cepkit.core.events.attribute_column` reads the column's pandas form."""
    if col.null_count == 0 and (pt.is_signed_integer(col.type) or col.type in (pa.uint8(), pa.uint16(), pa.uint32())):
        return col.to_numpy().astype(np.int64, copy=False)
    if pt.is_float64(col.type) and not pc.any(pc.is_inf(col)).as_py():
        return col.to_numpy()  # nulls are NaN
    if pt.is_boolean(col.type) and col.null_count == 0:
        return col.to_numpy()
    if pt.is_integer(col.type):  # with nulls: exact (float64 only where it holds every value)
        return values_column(col.to_pylist())
    return attribute_column(col.to_pandas(), name)
