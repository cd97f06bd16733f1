"""MATCH_RECOGNIZE over a replay store (spec/004 §3) on the engine contract.

The program feeds on a cepkit.reference.replay.store.Store (`open_store`: a store, a store directory, or events
that a store is written for, in a temporary directory) and returns the table the reference returns on the
store's events: index-based replay where the plan allows it, full replay otherwise (cepkit.reference.replay.plan).
A store is the whole stream, so the table is computed at `close()`; feeding a second store before `close()` is an error.
"""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from cepkit.core.contract import Engine
from cepkit.core.errors import QueryError, Unsupported
from cepkit.reference.replay.store import Store
from cepkit.front.sql import ast as S, kinds
from cepkit.reference.sql.engine import SqlProgram, output_columns, table_matches, to_table
from cepkit.core.inputs import to_batch
from cepkit.core.match_table import Layout
from cepkit.reference.replay.plan import replay
from cepkit.reference.replay.store import write_store
from cepkit.front.sql.constructs import variables

METHODS = ("pareto", "greedy", "optimal", "all", "none")


def open_store(events: Any, block_size: int = 64, indexes: tuple[str, ...] = (), query: S.MatchRecognize | None = None,
               **read_options: Any) -> Store:
    """A Store: itself, the store directory at a path, or (any other input) a store written for those events
    in a temporary directory (removed with the store), with `block_size` and secondary `indexes`: read as
    the query's table (cepkit.reference.sql.engine.to_table) when the query is given, else by
    cepkit.core.inputs.to_batch. Unsupported for a table timed by another column than `ts` (a store keeps
    its times as `ts`)."""

    if isinstance(events, Store):
        return events
    if isinstance(events, (str, Path)) and Path(events).is_dir():
        return Store(events)
    if query is None:
        batch = to_batch(events, **read_options)
    else:
        batch = to_table(events, query, **read_options)
        if batch.ts_col != "ts":
            raise Unsupported("replay", f"a table whose timestamp column is '{batch.ts_col}' (a store keeps 'ts'; "
                                        "run it with: reference, optimized)")
    directory = tempfile.TemporaryDirectory(prefix="cepkit-store-")
    store = write_store(batch, directory.name, block_size=block_size, secondary=tuple(indexes))
    store.temporary = directory   # removed with the store
    return store


class ReplayProgram(SqlProgram):
    engine_name = "replay"

    def __init__(self, q: S.MatchRecognize, method: str):
        super().__init__(q, None)
        self.method = method
        self.store: Store | None = None
        self.plan = None            # the cepkit.reference.replay.plan.Plan of the run (mode, intervals, blocks)

    def _feed(self, store, progress=None):
        if not isinstance(store, Store):
            raise QueryError("the replay engine feeds on a store (cepkit.reference.replay.engine.open_store)")
        if self.store is not None:
            raise QueryError("the replay engine reads one store per program (a store is the whole stream)")
        kinds.check_query(self.q, store.kinds)   # a number compared with a text literal: a QueryError
        self.store = store
        self.columns = list(store.columns)
        self.ts_col = "ts"   # a store keeps its times as ts
        if self._layout is None:
            self._layout = self._make_layout(output_columns(self.q, self.columns))
        return ()

    def _close(self):
        if self.store is None:
            return ()
        table, self.plan = replay(self.q, self.store, self.method)
        self.store = None

        self._layout = Layout(variables(self.q.pattern), tuple(table.columns))
        return table_matches(table, self._layout, self.q)


class ReplayEngine(Engine):
    """Option method: pareto (default), greedy, optimal, all (every index), none (full replay), or the
    variables whose indexes to use (a list, as cepkit.reference.replay.plan.plan takes)."""

    name = "replay"
    language = "sql"

    def build(self, q: S.MatchRecognize, method: str | tuple[str, ...] = "pareto") -> ReplayProgram:
        if isinstance(method, str) and method not in METHODS:
            raise QueryError(f"unknown replay method {method!r}", expected=list(METHODS))
        return ReplayProgram(q, method)
