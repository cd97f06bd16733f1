"""The SQL front-end step around every engine's program (registry LanguageEntry.program): an engine builds
the MATCH_RECOGNIZE alone (`MatchRecognize.inner`); this step applies the query's subqueries to each fed
batch (front/sql/source.py) and the outer query to the match table (front/sql/outer.py), so every
SQL engine runs the standard form. An engine that feeds on something other than the table (replay's
store) refuses VALUES and subquery inputs by name at compile time."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

import pyarrow as pa

from cepkit.core.contract import Budget, Program
from cepkit.core.errors import QueryError, Unsupported
from cepkit.core.events import EventBatch
from cepkit.core.match_table import Layout, MatchTable
from cepkit.front.sql import ast as S, kinds, source
from cepkit.reference.sql import outer_arrow
from cepkit.front.sql.outer import Step
from cepkit.core import registry


def build(q: S.MatchRecognize, engine: str, make: Callable[[S.MatchRecognize], Program]) -> Program:
    """The engine's program for the query: `make(q)` itself when the query has no outer query, reads the
    events table and outputs columns the query names; else `make(q.inner)` inside an OuterProgram."""
    if q.outer is None and q.source is None and not _shows_table(q):
        return make(q)
    if registry.engine_entry("sql", engine).events is not None:   # it feeds on its own input, not the table
        what = "VALUES input" if source.carries_rows(q) else "subquery input" if source.subqueries(q) else None
        if what is not None:
            pos = q.source.pos if q.source is not None else q.pos
            raise Unsupported(engine, what, pos.line or None, pos.column or None)
    return OuterProgram(q, make(q.inner))


class OuterProgram(Program):
    """An engine's program for `q.inner`, with q's subqueries applied to what it is fed and q's outer query
    to what it returns (buffered to `close()`, as every SQL program computes its table there)."""

    language = "sql"

    def __init__(self, q: S.MatchRecognize, inner: Program):
        self.q = q
        self.inner = inner
        self.engine_name = inner.engine_name
        self.positional: bool | None = None   # the fed table has no id column (its ids are row numbers, or
                                              # a subquery's SELECT left id out)
        self.tables: list[MatchTable] = []
        self.last: Layout | None = None       # the layout of the last table closed
        self.stamps: tuple[str, ...] = ()     # its columns that hold timestamps
        self.was_positional = False           # `positional` of the last table closed
        self.fed = 0                          # rows fed since the stream began
        self.kinds: dict[str, str | None] = {}   # the kinds of the columns fed (cepkit.front.sql.kinds), kept
        self.text_outer = kinds.text_comparisons(kinds.outer_exprs(q))   # where the outer query has a text literal

    @property
    def query(self) -> S.MatchRecognize:
        return self.q

    @property
    def budget(self) -> Budget:
        return Program.budget.fget(self)

    @budget.setter
    def budget(self, value: Budget) -> None:
        Program.budget.fset(self, value)
        # the limit counts output rows: the inner program stops at it only where the outer query outputs a row
        # for each of its rows, in their order (no outer WHERE or ORDER BY); else it finds every match
        passes = self.q.outer is None or (self.q.outer.where is None and not self.q.outer.order_by)
        self.inner.budget = Budget(value.limit if passes else None, value.max_state, value.max_memory)

    @property
    def timestamp_columns(self) -> tuple[str, ...]:
        """The payload columns of the last table closed that hold timestamps: the inner program's, as the
        outer SELECT names them where it selects them."""
        return self.stamps

    def step(self, layout: Layout) -> Step | None:
        return None if self.q.outer is None else Step(self.q, layout.payload, bool(self.positional))

    @property
    def layout(self) -> Layout:
        """The outer query's columns; before the first batch of an ALL ROWS PER MATCH query with SELECT *
        (whose columns are the table's), the last run's, else the variables alone."""
        inner = self.inner.layout
        try:
            step = self.step(inner)
        except QueryError:   # names the table's columns, not known yet
            return self.last or Layout(inner.variables, ())
        if step is None:
            return Layout(inner.variables, self._shown(inner.payload))
        return Layout(inner.variables, step.names)

    def _shown(self, payload: tuple[str, ...]) -> tuple[str, ...]:
        """The payload without an `id` that is not the table's, where the query outputs the table's columns."""
        hidden = self.positional if self.positional is not None else self.was_positional
        if hidden and _shows_table(self.q) and "id" in payload and "id" not in _made(self.q):
            return tuple(p for p in payload if p != "id")
        return payload

    def _feed(self, batch: Any, progress=None):
        if isinstance(batch, EventBatch):
            if self.positional is None:
                self.positional = batch.positional_ids and "id" not in batch.columns or source.leaves_out_id(self.q)
            if batch.positional_ids and source.subqueries(self.q):
                batch = source.numbered_from(batch, self.fed)
            self.fed += len(batch)
            batch = source.apply(self.q, batch)
            if "id" in batch.columns or batch.ts_col == "id":   # a subquery named a column id (SQ-L3)
                self.positional = False
            if self.text_outer:
                self.kinds = kinds.merge(self.kinds, kinds.batch_kinds(batch))
        elif self.text_outer and callable(getattr(batch, "kinds", None)):   # replay's store says its columns' kinds
            self.kinds = kinds.merge(self.kinds, batch.kinds())
        self.tables.append(self.inner.feed(batch, progress))
        return ()

    def _close(self):
        return self._outer(self.inner.close())

    def close_starts(self, choose) -> MatchTable:
        """close(), with the inner program outputting the matches `choose` picks (cepkit.front.sql.starts)."""
        with self.budget.guarded():
            return self.table(self._outer(self.inner.close_starts(choose)))

    def _outer(self, closed: MatchTable) -> MatchTable:
        """The inner program's closed table through the outer query."""
        tables, self.tables = self.tables + [closed], []
        table = MatchTable.concat(closed.layout, tables)
        step = self.step(closed.layout)
        if step is not None and self.text_outer:   # a number compared with a text literal: a QueryError
            kinds.check_outer(step, closed.layout.payload, self.q.inner, self.kinds)
        self.kinds = {}
        out = table if step is None else apply(step, table)
        if step is None and self._shown(table.layout.payload) != table.layout.payload:
            out = _pick(table, Layout(table.layout.variables, self._shown(table.layout.payload)))
        stamps = tuple(self.inner.timestamp_columns)
        if step is not None:
            stamps = tuple(name for name, e in step.items
                           if isinstance(e, str) and closed.layout.payload[step.source[e]] in stamps)
        self.was_positional = bool(self.positional)
        self.positional, self.last, self.fed, self.stamps = None, out.layout, 0, stamps
        return out


def _shows_table(q: S.MatchRecognize) -> bool:
    """Whether the query outputs the table's columns (ALL ROWS PER MATCH, SELECT *)."""
    return q.rows == "all" and q.select is None


def _made(q: S.MatchRecognize) -> set[str]:
    """The output columns the query makes (PARTITION BY columns and MEASURES)."""
    return {c.col for c in q.partition_by} | {m.name for m in q.measures}


def _pick(table: MatchTable, layout: Layout) -> MatchTable:
    """The table with the payload columns of `layout` (a subset of its own, same order)."""
    return _with_payload(table, layout, [table.layout.payload.index(p) for p in layout.payload])


def apply(step: Step, table: MatchTable) -> MatchTable:
    """The match table after the outer query: bindings and ts of the rows kept, the outer SELECT's payload."""
    layout = Layout(table.layout.variables, step.names)
    if step.plain:   # columns picked and renamed: no row is decoded
        return _pick_columns(step, table, layout)
    if outer_arrow.applies(step):   # WHERE, ORDER BY and computed items column by column
        return outer_arrow.apply(step, table, layout)
    return apply_rows(step, table)   # (an operator the columnar evaluator does not have: / or %)


def apply_rows(step: Step, table: MatchTable) -> MatchTable:
    """The outer query row by row, over the exact values of the table's Match rows."""
    layout = Layout(table.layout.variables, step.names)
    rows = table.rows()
    kept, out = step.apply([tuple(v for _, v in m.payload) for m in rows])
    return MatchTable.from_matches(layout, [replace(rows[i], payload=tuple(zip(step.names, r)))
                                            for i, r in zip(kept, out)])


def _pick_columns(step: Step, table: MatchTable, layout: Layout) -> MatchTable:
    return _with_payload(table, layout, [step.source[col] for _name, col in step.items])


def _with_payload(table: MatchTable, layout: Layout, sources: list[int]) -> MatchTable:
    """The table's bindings and ts, with payload column i of `layout` its own payload column sources[i] (no
    value decoded; each column keeps its type and kind)."""
    arrow = table.to_arrow()
    before = table.layout.payload_columns()
    head = list(table.layout.variables) + ["ts"]
    cols = [arrow.column(n) for n in head]
    fields = [arrow.schema.field(n) for n in head]
    for k, column in zip(sources, layout.payload_columns()):
        cols.append(arrow.column(before[k]))
        fields.append(arrow.schema.field(before[k]).with_name(column))
    return MatchTable(layout, arrow=pa.Table.from_arrays(cols, schema=pa.schema(fields)))
