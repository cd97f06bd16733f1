"""MATCH_RECOGNIZE on the engine contract (reference/contract.py): the reference's row-pattern program.

A SQL query partitions and orders the whole table before it matches, so a program buffers the rows of
every fed batch and computes the table at `close()` (`feed` returns an empty table): feeding the events in
pieces gives exactly what one `run` gives.

The match table (docs/semantics.md, "SQL rows in the match table"):
- variables: the pattern variables, in order of first occurrence;
- payload: the query's output columns, exactly reference.sql.run.Table.columns (SELECT or MEASURES with the
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

from reference.contract import Engine, Program
from reference.events import EventBatch
from reference.match import Match
from reference.match_table import Layout
from reference.sql import ast as S
from reference.sql.constructs import variables
from reference.sql.table import check_table, output_columns  # noqa: F401  (the engine's names before)


def table_matches(table, layout: Layout, q: S.MatchRecognize | None = None) -> list[Match]:
    """The Match rows of a reference.sql.run.Table: one per output row, payload = the row's values by column.
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


class SqlProgram(Program):
    """Buffers the fed rows; `close()` runs the query over all of them with `run_table`, then starts over
    (a closed program reads a new stream)."""

    engine_name = "reference"
    language = "sql"

    def __init__(self, q: S.MatchRecognize, run_table: Callable[..., Any]):
        self.q = q
        self.run_table = run_table  # (query, columns, rows, ts_unit, state) -> reference.sql.run.Table
        self.columns: list[str] = []
        self.rows: list[dict] = []
        self.ts_unit: str | None = None
        self.n = 0
        self._layout = self._make_layout(output_columns(q))

    @property
    def query(self) -> S.MatchRecognize:
        return self.q

    def _make_layout(self, payload) -> Layout | None:
        return None if payload is None else Layout(variables(self.q.pattern), tuple(payload))

    @property
    def layout(self) -> Layout:
        if self._layout is None:  # ALL ROWS PER MATCH, SELECT *, before any batch: the pattern's part
            return Layout(variables(self.q.pattern), output_columns(self.q, self.columns or ["ts", "id"]))
        return self._layout

    def _feed(self, batch, progress=None):
        from reference.sql.run import batch_rows

        check_table(batch, self.q)
        columns, rows = batch_rows(batch, ts_col=batch.ts_col)
        if batch.positional_ids and self.n:
            for r in rows:
                r["id"] += self.n
        self.n += len(rows)
        if self.ts_unit is None:
            self.ts_unit = batch.ts_unit
        self.columns += [c for c in columns if c not in self.columns]
        self.rows += rows
        if self._layout is None:
            self._layout = self._make_layout(output_columns(self.q, self.columns))
        if progress is not None:
            progress(len(batch), len(batch))
        return ()

    def _close(self):
        table = self.run_table(self.q, self.columns or ["ts", "id"], self.rows, self.ts_unit, self.budget.check_state)
        self.columns, self.rows, self.n, self.ts_unit = [], [], 0, None   # the program may read a new stream
        self._layout = Layout(variables(self.q.pattern), tuple(table.columns))
        return table_matches(table, self._layout, self.q)


class SqlEngine(Engine):
    """The reference: SQL:2016 row pattern matching (ONE ROW / ALL ROWS PER MATCH) and the thesis' ALL MATCHES."""

    name = "reference"
    language = "sql"
    counts_state = True  # the VM's live threads at each row; ALL MATCHES: live runs plus the matches held

    def build(self, q: S.MatchRecognize) -> SqlProgram:
        from reference.sql.run import run_rows

        return SqlProgram(q, lambda q, columns, rows, ts_unit, state: run_rows(q, columns, rows, ts_unit, state=state))


def to_table(events: Any, query: S.MatchRecognize | None = None, **read_options: Any) -> EventBatch:
    """A MATCH_RECOGNIZE input table as an EventBatch: no event type column (every column is the table's),
    ids from an `id` column where there is one (else row numbers), rows sorted by the timestamp column
    `ts_col`: given, else `ts`, else the query's first ORDER BY column; a table need not arrive in
    timestamp order."""
    if isinstance(events, EventBatch):
        batch = events
    else:
        batch = _read_table(events, query, read_options)
    if query is not None:
        check_table(batch, query)
    return batch


def _read_table(events: Any, query: S.MatchRecognize | None, read_options: dict[str, Any]) -> EventBatch:
    from reference.errors import EventError
    from reference.inputs import to_batch

    options = dict(type_col=None, default_type="row", sort=True)
    options.update(read_options)
    if "ts_col" in options:
        return to_batch(events, **options)
    candidates = ["ts"] + ([query.order_by[0].col.col] if query is not None and query.order_by else [])
    for col in dict.fromkeys(candidates):
        try:
            return to_batch(events, ts_col=col, **options)
        except EventError as exc:
            if not (exc.column == col and "missing timestamp column" in exc.message) or col == candidates[-1]:
                raise
    raise AssertionError("unreachable: the last candidate re-raises")  # pragma: no cover
