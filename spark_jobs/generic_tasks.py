"""The task body of the generic Spark path (cepkit.spark_jobs.languages): feed each group's sorted rows to a program of
any language (`registry.get_engine(lang, engine).compile(query)`) and turn its MatchTable into Arrow rows of a
schema fixed on the driver (`output_schema`). Plain Python and pyarrow, so it is testable without Spark.

Output rows (docs/spark.md "Every language on Spark"): the key column `key` (AFA only: the group's key, as
text); one list column of event ids per pattern variable (null where the match leaves it unbound); `ts`
(int64); `detected` (int64, TPStream); `sign` (int8), `lifetime_start`, `lifetime_end` (JSON text, AFA); one
column per RETURN / MEASURES item (JSON text of the value, as the flat SASE+ path writes them, or as
`GenericSpec.values` says: typed_output.value_type)."""
from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from cepkit.core.errors import CepkitError, EventError
from cepkit.core.match import json_safe
from cepkit.core.match_table import KIND, Layout, MatchTable
from cepkit.core.readers import from_arrow, from_columns
from cepkit.core.typed_columns import text_column
from cepkit.spark_jobs.tasks import INTERNAL, column_values, conform, split_groups, wrap_error
from cepkit.spark_jobs.typed_output import BATCH_VALUES, value_type, value_writer
from cepkit.core import registry
from cepkit.core.match_table import decode
from cepkit.front.sql.starts import Starts, Walk
from cepkit.spark_jobs import sql_walk as SW

ROW_COL = "__cepkit_row"    # the row's number in the file (0-based), the order of arrival
POS_COL = "__cepkit_pos"    # the event's position in (ts, id) order (count windows)
TICK_COL = "__cepkit_t"     # the slice plans' tick: the timestamp as a whole number, or the position
SLICE_COL = "__cepkit_slice"
GROUP_COL = "__cepkit_group"  # the coarsened partition key (partition plan)
KEY_OUT = "key"


@dataclass(frozen=True)
class GenericSpec:
    """Everything a task needs, shipped with the function."""

    lang: str
    engine: str
    query: str
    options: tuple[tuple[str, Any], ...]   # compile options (selection, flavor ...)
    ts_col: str | None
    id_col: str | None                     # None: ids are the file row numbers (ROW_COL)
    type_col: str | None
    default_type: str | None
    ts_unit: str | None
    type_names: tuple[str, ...] | None     # SASE: the whole stream's type dictionary
    group_cols: tuple[str, ...]            # () : one program per Spark partition
    schema: pa.Schema
    layout: Layout
    text_cols: tuple[str, ...] = ()
    text_forms: tuple[tuple[str, str], ...] = ()
    slice_length: int | None = None        # slices: slice j owns ticks [t_min + j*len, t_min + (j+1)*len)
    slice_t_min: int | None = None
    key_col: str | None = None             # AFA: the key column (its value is written as `key`)
    values: str = BATCH_VALUES             # how payload values are written (typed_output.value_type)
    walk_context: int | None = None        # "walk-slice" plans (sql_walk): the ticks of context after a slice
    walk_entries: tuple | None = None      # ... phase 2: sql_walk.Entry per slice; None: phase 1 (TRANSFER rows)


def output_schema(layout: Layout, id_type: pa.DataType, key: bool = False, values: str = BATCH_VALUES) -> pa.Schema:
    """The rows' schema, fixed before any task runs (module docstring); the payload columns as `values` writes
    them."""
    fields = [pa.field(KEY_OUT, pa.string())] if key else []
    fields += [pa.field(v, pa.list_(id_type)) for v in layout.variables]
    fields.append(pa.field("ts", pa.int64()))
    if layout.detection:
        fields.append(pa.field("detected", pa.int64()))
    if layout.speculative:
        fields += [pa.field("sign", pa.int8()), pa.field("lifetime_start", pa.string()),
                   pa.field("lifetime_end", pa.string())]
    taken = {f.name for f in fields}
    fields += [pa.field(c if c not in taken else f"payload.{c}", value_type(values)) for c in layout.payload_columns()]
    return pa.schema(fields)


def value_columns(schema: pa.Schema, layout: Layout) -> tuple[str, ...]:
    """The RETURN / MEASURES columns of `schema` (those typed after matching, cepkit.spark_jobs.typed_output):
    the last ones, one per payload column, as output_schema places them (a name the fixed columns do not use
    here, `sign` without retractions say, is a value column too)."""
    n = len(layout.payload_columns())
    return tuple(schema.names[len(schema.names) - n:]) if n else ()


def json_text(column: pa.ChunkedArray | pa.Array, kind: bytes | None) -> pa.Array:
    """A value column as JSON text per row (json_safe, as the flat SASE+ path writes RETURN values)."""
    col = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if kind is None and pa.types.is_integer(col.type):
        return pc.fill_null(pc.cast(col, pa.string()), "null")
    if kind is None and pa.types.is_boolean(col.type):
        return pc.fill_null(pc.if_else(col, "true", "false"), "null")
    if kind is None and pa.types.is_string(col.type) and len(col):
        # text that json.dumps writes as it is between quotes (printable ASCII, no quote or backslash)
        plain = pc.fill_null(pc.match_substring_regex(col, r'^[\x20-\x7e]*$'), False)
        plain = pc.and_(plain, pc.invert(pc.fill_null(pc.match_substring_regex(col, r'["\\]'), True)))
        if pc.all(plain).as_py():
            return pc.binary_join_element_wise('"', col, '"', "")
    if kind is not None:
        values = decode(col, kind)
    else:
        values = col.to_pylist()
    return pa.array([json.dumps(json_safe(v), default=str, allow_nan=False) for v in values], pa.string())


def to_output(spec: GenericSpec, table: MatchTable, key: Any = None) -> pa.RecordBatch:
    """The program's matches as rows of `spec.schema`."""
    arrow = table.to_arrow()
    n = arrow.num_rows
    payload = spec.layout.payload_columns()
    fixed = list(spec.schema)[:len(spec.schema) - len(payload)]
    cols: list[pa.Array] = []
    for field in fixed:
        name = field.name
        if name == KEY_OUT and spec.key_col is not None:
            cols.append(pa.array([None if key is None else str(key)] * n, pa.string()))
        elif name in ("lifetime_start", "lifetime_end"):
            cols.append(json_text(arrow.column(name), (arrow.schema.field(name).metadata or {}).get(KIND))
                        if n else pa.array([], field.type))
        else:
            cols.append(arrow.column(name).combine_chunks().cast(field.type) if n else pa.array([], field.type))
    write = value_writer(spec.values)
    for field, source in zip(list(spec.schema)[len(fixed):], payload):  # value_columns: the last ones
        meta = arrow.schema.field(source).metadata or {}
        cols.append(write(arrow.column(source), meta.get(KIND)) if n else pa.array([], field.type))
    return pa.RecordBatch.from_arrays(cols, schema=spec.schema)


# ---------------------------------------------------------------------------------------------
# A group's rows as the program's input.

def _typed(spec: GenericSpec, rows: pa.Table) -> dict[str, np.ndarray] | None:
    """CSV text columns typed by the readers' rule in the whole file's form; None for typed input."""
    if not spec.text_cols:
        return None
    forms = dict(spec.text_forms)
    out = {}
    for name in rows.column_names:
        col = rows.column(name)
        if name in spec.text_cols:
            cells = pc.fill_null(col.cast(pa.string()), "").combine_chunks()
            out[name] = conform(text_column(cells), cells, forms.get(name))
        else:
            out[name] = column_values(col)
    return out


def program_input(spec: GenericSpec, rows: pa.Table, program) -> Any:
    """What the language's program feeds on, from the rows (internal columns dropped; ROW_COL kept as the
    event id when the input has none)."""
    keep = [c for c in rows.column_names if not c.startswith(INTERNAL) or (c == ROW_COL and spec.id_col is None)]
    rows = rows.select(keep)
    typed = _typed(spec, rows)
    if spec.lang == "afa":
        return pd.DataFrame(typed) if typed is not None else rows
    kw = dict(type_col=spec.type_col, ts_col=spec.ts_col, id_col=spec.id_col or ROW_COL, ts_unit=spec.ts_unit,
              default_type=spec.default_type)
    batch = from_columns(typed, rows.num_rows, **kw) if typed is not None else from_arrow(rows, **kw)
    if spec.type_names is not None:  # SASE: the whole stream's type dictionary (type names bind alike)
        remap = np.array([spec.type_names.index(t) for t in batch.type_names], dtype=np.int32)
        codes = remap[batch.type_codes] if len(batch) else batch.type_codes
        batch = dataclasses.replace(batch, type_codes=codes, type_names=spec.type_names)
    return registry.read_input(spec.lang, spec.engine, batch, getattr(program, "query", None))


class Group:
    """One program fed one group's rows, chunk by chunk."""

    def __init__(self, spec: GenericSpec, key: tuple):
        self.spec, self.key = spec, key
        self.program = registry.get_engine(spec.lang, spec.engine).compile(spec.query, **dict(spec.options))
        self.tables: list[MatchTable] = []
        self.ticks: list[np.ndarray] = []
        self.ids: list[np.ndarray] = []

    def feed(self, rows: pa.Table) -> None:
        spec = self.spec
        if spec.slice_length is not None:
            self.ticks.append(rows.column(TICK_COL).to_numpy())
            self.ids.append(rows.column(spec.id_col or ROW_COL).to_numpy(zero_copy_only=False))
        data = program_input(spec, rows, self.program)
        try:
            self.tables.append(self.program.feed(data))
        except EventError as exc:
            raise _name_row(exc, rows) from None

    def finish(self) -> pa.RecordBatch:
        if self.spec.walk_context is not None:
            return self._walk()
        try:
            self.tables.append(self.program.close())
        except EventError as exc:
            raise _name_row(exc, None) from None
        table = MatchTable.concat(self.program.layout, self.tables)
        if self.spec.slice_length is not None and len(table):
            table = self._own(table)
        key = self.key[0] if self.spec.key_col is not None and self.key else None
        return to_output(self.spec, table, key)

    def _walk(self) -> pa.RecordBatch:
        """A "walk-slice" slice (cepkit.spark_jobs.sql_walk): phase 1's TRANSFER rows, or phase 2's matches."""
        spec, j = self.spec, int(self.key[0])
        lo = spec.slice_t_min + j * spec.slice_length
        hi = lo + spec.slice_length
        at = pd.Index(np.concatenate(self.ids))
        ticks = np.concatenate(self.ticks)
        q = self.program.query
        out: list[pa.RecordBatch] = []

        def choose(starts: Starts) -> Walk:
            where = at.get_indexer(starts.ids)
            if (where < 0).any():
                raise AssertionError("a matched row's id is not the slice's")
            rows = SW.Rows(ticks[where])
            if spec.walk_entries is None:
                out.append(SW.transfers(starts, rows, j, lo, hi, spec.walk_context))
                return Walk.none()
            return SW.slice_walk(q, starts, rows, spec.walk_entries[j], lo, hi,
                                 q.rows == "all" and q.empty == "unmatched")

        try:
            table = self.program.close_starts(choose)
        except EventError as exc:
            raise _name_row(exc, None) from None
        if spec.walk_entries is None:
            return out[0] if out else pa.RecordBatch.from_pylist([], schema=SW.TRANSFER)
        return to_output(spec, table)

    def _own(self, table: MatchTable) -> MatchTable:
        """The matches whose first event lies in this slice's own interval."""
        j = int(self.key[0])
        lo = self.spec.slice_t_min + j * self.spec.slice_length
        hi = lo + self.spec.slice_length
        ids = pd.Index(np.concatenate(self.ids))
        ticks = np.concatenate(self.ticks)
        arrow = table.to_arrow()
        first = np.full(arrow.num_rows, np.iinfo(np.int64).max, dtype=np.int64)
        for var in self.program.layout.variables:
            lists = arrow.column(var).combine_chunks()
            flat = pc.list_flatten(lists).to_numpy(zero_copy_only=False)
            if not len(flat):
                continue
            where = ids.get_indexer(flat)
            t = ticks[where]
            rows = pc.list_parent_indices(lists).to_numpy()
            np.minimum.at(first, rows, t)
        keep = (first >= lo) & (first < hi)
        return MatchTable(table.layout, arrow=arrow.filter(pa.array(keep)))


def _name_row(exc: EventError, rows: pa.Table | None) -> EventError:
    """The error with its chunk-relative row replaced by the file's row (1-based, header excluded)."""
    if rows is not None and exc.row is not None and ROW_COL in rows.column_names and 1 <= exc.row <= rows.num_rows:
        file_row = rows.column(ROW_COL)[exc.row - 1].as_py() + 1
        return EventError(exc.message, row=file_row, column=exc.column)
    return exc


def match_groups(spec: GenericSpec, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """mapInArrow body: rows arrive sorted by (group, order); one program per group (per partition when
    `spec.group_cols` is empty)."""
    try:
        group: Group | None = None
        for rb in batches:
            pieces = split_groups(rb, spec.group_cols) if spec.group_cols else [((), 0, rb.num_rows)]
            for key, start, stop in pieces:
                if group is not None and key != group.key:
                    yield group.finish()
                    group = None
                if group is None:
                    group = Group(spec, key)
                group.feed(pa.Table.from_batches([rb.slice(start, stop - start)]))
        if group is not None:
            yield group.finish()
    except CepkitError as exc:
        raise wrap_error(exc) from None
