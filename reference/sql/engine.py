"""MATCH_RECOGNIZE on the engine contract (core/contract.py): the reference's row-pattern program.

A SQL query partitions and orders the whole table before it matches, so a program buffers the rows of
every fed batch and computes the table at `close()` (`feed` returns an empty table): feeding the events in
pieces gives exactly what one `run` gives.

The match table (docs/semantics.md, "SQL rows in the match table"):
- variables: the pattern variables, in order of first occurrence;
- payload: the query's output columns, exactly cepkit.reference.sql.run.Table.columns (SELECT or MEASURES with the
  partition columns; ALL ROWS PER MATCH adds the row's columns), one table row per SQL output row, in the
  order the SQL query outputs them;
- ONE ROW PER MATCH / ALL MATCHES: bindings and ts are the match's canonical form (Table.matches: the ids
  of each variable's rows, the largest first-ORDER-BY-key value of its rows); an empty match binds nothing
  and has ts null;
- ALL ROWS PER MATCH: Table.matches is None there; every row leaves the variables unbound, and its ts is
  the row's first ORDER BY key (null where SELECT drops that column); the row's columns are the payload.
"""
from __future__ import annotations

from typing import Any, Callable

from cepkit.core.contract import Engine, Program
from cepkit.core.errors import QueryError
from cepkit.core.events import EventBatch
from cepkit.core.match import Match
from cepkit.core.match_table import Layout, MatchTable
from cepkit.front.sql import ast as S
from cepkit.front.sql.constructs import variables
from cepkit.front.sql.table import TICK, TableQuery, check_table, output_columns, shown  # noqa: F401  (output_columns: the engine's name before)
from cepkit.core import readers as R
from cepkit.core.errors import EventError
from cepkit.core.inputs import tabular, to_batch
from cepkit.reference.sql import run as sql_run
from cepkit.reference.sql.run import batch_rows
from cepkit.front.sql.source import base, carries_rows, values_frame
from cepkit.front.sql.source import input_column


def table_matches(table, layout: Layout, q: S.MatchRecognize | None = None) -> list[Match]:
    """The Match rows of a cepkit.reference.sql.run.Table: one per output row, payload = the row's values by column.
    ALL ROWS PER MATCH (no Table.matches): unbound, ts = the row's first ORDER BY key where it is output."""
    out = []
    if table.matches is not None:
        pairs = table.matches
    else:
        key = q.order_by[0].col.col if q is not None and q.order_by else None
        at = table.columns.index(key) if key in table.columns else None
        pairs = [({}, None if at is None else row[at]) for row in table.rows]
    for row, (bindings, ts) in zip(table.rows, pairs):
        out.append(Match(tuple((v, tuple(bindings[v])) for v in layout.variables if v in bindings), ts,
                         tuple(zip(table.columns, row))))
    return out


class SqlProgram(TableQuery, Program):
    """Buffers the fed rows; `close()` runs the query over all of them with `run_table`, then starts over
    (a closed program reads a new stream)."""

    engine_name = "reference"
    language = "sql"

    def __init__(self, q: S.MatchRecognize, run_table: Callable[..., Any]):
        self.q = q
        self.run_table = run_table  # (query, columns, rows, ts_unit, state, limit) -> cepkit.reference.sql.run.Table
        self.columns: list[str] = []
        self.rows: list[dict] = []
        self.ts_unit: str | None = None
        self.ts_col: str | None = None   # the timestamp column of the table fed last
        self.n = 0
        self._layout = self._make_layout(output_columns(q))

    def _make_layout(self, payload) -> Layout | None:
        return None if payload is None else Layout(variables(self.q.pattern), tuple(payload))

    @property
    def layout(self) -> Layout:
        if self._layout is None:  # ALL ROWS PER MATCH, SELECT *, before any batch: the pattern's part
            return Layout(variables(self.q.pattern), output_columns(self.q, self.columns or ["ts", "id"]))
        return self._layout

    def _feed(self, batch, progress=None):
        check_table(batch, self.q)
        columns, rows = batch_rows(batch, ts_col=batch.ts_col)
        if batch.positional_ids and self.n:
            for r in rows:
                r["id"] += self.n
        self.n += len(rows)
        if self.ts_unit is None:
            self.ts_unit = batch.ts_unit
        self.ts_col = batch.ts_col
        self.columns += [c for c in shown(columns) if c not in self.columns]
        self.rows += rows
        if self._layout is None:
            self._layout = self._make_layout(output_columns(self.q, self.columns))
        if progress is not None:
            progress(len(batch), len(batch))
        return ()

    def close_starts(self, choose) -> MatchTable:
        """close(), outputting the matches `choose` picks from the match at every start row
        (cepkit.front.sql.starts)."""
        with self.budget.guarded():
            table = sql_run.run_starts(self.q, self.columns or ["ts", "id"], self.rows, choose, self.ts_unit)
            self.columns, self.rows, self.n, self.ts_unit = [], [], 0, None
            self._layout = Layout(variables(self.q.pattern), tuple(table.columns))
            return self.table(table_matches(table, self._layout, self.q))

    def _close(self):
        table = self.run_table(self.q, self.columns or ["ts", "id"], self.rows, self.ts_unit, self.budget.check_state,
                               None if self.budget.limit is None else self.budget.limit - self.budget.matches)
        self.columns, self.rows, self.n, self.ts_unit = [], [], 0, None   # the program may read a new stream
        self._layout = Layout(variables(self.q.pattern), tuple(table.columns))
        return table_matches(table, self._layout, self.q)


class SqlEngine(Engine):
    """The reference: SQL:2016 row pattern matching (ONE ROW / ALL ROWS PER MATCH) and the thesis' ALL MATCHES."""

    name = "reference"
    language = "sql"
    counts_state = True  # the VM's live threads at each row; ALL MATCHES: live runs plus the matches held

    def build(self, q: S.MatchRecognize) -> SqlProgram:
        return SqlProgram(q, lambda q, columns, rows, ts_unit, state, limit: sql_run.run_rows(
            q, columns, rows, ts_unit, state=state, limit=limit))


def to_table(events: Any = None, query: S.MatchRecognize | None = None, **read_options: Any) -> EventBatch:
    """A MATCH_RECOGNIZE input table as an EventBatch: no event type column (every column is the table's),
    ids from an `id` column where there is one (else row numbers; a VALUES `id` with repeats is data, as in
    Trino, and the ids are row numbers). A query that carries its rows (VALUES)
    reads them, and no events (QueryError when events are given too, or when neither is).

    The timestamp column: `ts_col` when given, else `ts` (EventError where it holds no times), else the
    query's first ORDER BY column when it
    holds integers or datetimes (a text column never is one, except text of ISO-8601 datetimes in a CSV or
    JSON lines file, which have no types); rows are sorted by it. A table without one gets the hidden row
    tick (cepkit.front.sql.table.TICK, the input row position): the row order is ORDER BY's alone, and WITHIN
    reads the first ORDER BY key, as always (docs/semantics.md SQ-F)."""

    events = None if events is None else tabular(events)   # a PyCapsule stream, a list of row dicts: a table
    if query is not None and carries_rows(query):
        if events is not None and not isinstance(events, EventBatch):
            raise QueryError("the query carries its own rows (VALUES): give no events", query.pos.line or None,
                             query.pos.column or None)
        if events is None:
            events = values_frame(base(query))
            if "id" in events and not events["id"].is_unique:   # data, as in Trino (SQ-L3): row numbers are
                return _repeated_ids(events, read_options)
    if events is None:
        raise QueryError("no events: give an events file, or write the rows into the query "
                         "(FROM (VALUES (...), ...) AS t(a, b))")
    if isinstance(events, EventBatch):
        batch = events
    else:
        batch = _read_table(events, query, read_options)
    if query is not None and query.source is None:
        check_table(batch, query)
    return batch


def _repeated_ids(frame: Any, read_options: dict[str, Any]) -> EventBatch:
    """A VALUES table whose `id` repeats (Trino's partitioned tests): `id` is data there, so the batch is read
    with row numbers as ids and then takes the column as its ids, repeats and all, unless the caller reads
    `id` as a column (id_col None, the CLI's table reader) (docs/semantics.md SQ-L3);
    the row order is ORDER BY's alone (the hidden row tick)."""
    import dataclasses

    options = {"type_col": None, "default_type": "row", **read_options, "id_col": None}
    batch = _with_tick(frame, {k: v for k, v in options.items() if k != "ts_col"})
    if read_options.get("id_col", "id") != "id":   # the caller reads `id` as an ordinary column
        return batch
    columns = dict(batch.columns)
    ids = columns.pop("id")
    return dataclasses.replace(batch, columns=columns, ids=ids, positional_ids=False)


_NOT_TIME = ("missing timestamp", "cannot read timestamp", "is not a whole number")


def _read_table(events: Any, query: S.MatchRecognize | None, read_options: dict[str, Any]) -> EventBatch:
    options = dict(type_col=None, default_type="row", sort=True)
    options.update(read_options)
    if "ts_col" in options:
        return to_batch(events, **options)
    candidates = ["ts"]
    if query is not None and query.order_by:

        candidates.append(input_column(query, query.order_by[0].col.col))
    for col in dict.fromkeys(candidates):
        if _typed_text(events, col):
            continue
        try:
            return to_batch(events, ts_col=col, **options)
        except EventError as exc:
            not_time = exc.column == col and any(m in exc.message for m in _NOT_TIME)
            if not (not_time and (col != "ts" or "missing timestamp column" in exc.message)):
                raise   # a `ts` column is the time: one that cannot be read is an error
    return _with_tick(events, options)


def _typed_text(events: Any, col: str) -> bool:
    """Whether `col` of a typed input (a DataFrame, an Arrow table) holds text: never a timestamp."""
    import pandas as pd

    if isinstance(events, pd.DataFrame):
        if col not in events.columns:
            return False
        s = events[col]
        return s.dtype == object and pd.api.types.infer_dtype(s, skipna=True) == "string" \
            or isinstance(s.dtype, pd.StringDtype)
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover
        return False
    if isinstance(events, pa.Table) and col in events.column_names:
        return pa.types.is_string(events.schema.field(col).type) or pa.types.is_large_string(
            events.schema.field(col).type)
    return False


def _with_tick(events: Any, options: dict[str, Any]) -> EventBatch:
    """The table with the hidden row tick as its timestamp column."""
    import os
    from pathlib import Path

    import numpy as np
    import pandas as pd
    import pyarrow as pa

    options = {k: v for k, v in options.items() if k != "sort"}
    if isinstance(events, pd.DataFrame):
        return R.from_pandas(events.assign(**{TICK: np.arange(len(events), dtype=np.int64)}), ts_col=TICK, **options)
    if isinstance(events, (str, Path)):
        path = R.check_file(os.fspath(events))
        kind = R.event_format(path)
        if kind == "parquet":
            events = R.read_arrow_file(path)
        else:
            if kind == "csv":
                columns, n = R.csv_columns(R.csv_strings(path))
            else:
                records = [rec for _, rec in R.json_records(path)]
                if not records:
                    return to_batch(pd.DataFrame({TICK: np.zeros(0, np.int64)}), ts_col=TICK, **options)
                columns, n = R.json_columns(records)
            columns = dict(columns)
            columns[TICK] = np.arange(n, dtype=np.int64)
            return R.from_columns(columns, n, ts_col=TICK, **options)
    if isinstance(events, pa.RecordBatch):
        events = pa.Table.from_batches([events])
    if isinstance(events, pa.Table):
        events = events.append_column(TICK, pa.array(np.arange(events.num_rows, dtype=np.int64)))
    return to_batch(events, ts_col=TICK, **options)
