"""The Program of the optimized pattern engines: binds batches, keeps the store and the kernel state
across `feed` calls, and builds one MatchTable per feed from the kernels' match rows (no Python per event
or per match). Subclasses (chain, tree, eager) own their kernel state and call their kernel.

Output is in the reference's order: by the position of the match's last event, then by its bindings
(variable name, position), and an OR pattern gives an assignment two alternatives find once.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
import pyarrow as pa

from optimized.engine import window_ticks
from optimized.lazy.plan import Plan, compile_plan
from optimized.store import Store
from reference.binding import WindowBound, attribute_uses, bind_batch, resolve_type
from reference.contract import Program
from reference.events import EventBatch
from reference.language import ast as A
from reference.match_table import Layout, MatchTable
from reference.pattern.counters import Counters
from reference.pattern.model import Pattern

STEP = 1 << 16  # events per kernel call (the live state is checked against the budget between calls)


class PatternKernelProgram(Program):
    """Base of the optimized chain, tree and eager programs."""

    language = "sase"

    def __init__(self, pattern: Pattern):
        self.pattern = pattern
        self.attrs = sorted(attribute_uses(pattern.query))
        self.strings: dict[str, int] = {"": 0}
        self.plan: Plan = compile_plan(pattern, self.attrs, self.strings, self.engine_name)
        self.store = Store(self.attrs, self.strings)
        self.counters = Counters()
        self.types: dict | None = None
        self.window: WindowBound | None = None
        self.ts_unit: str | None = None
        self.W = np.zeros(3, np.int64)
        V = self.plan.nvars
        self.OUT = np.zeros((64, 2 + V), np.int64)
        self.cnt = np.zeros(2, np.int64)
        names = self.plan.names
        self.name_rank = np.argsort(np.argsort(np.array(names, dtype=object)))  # rank of each name in sorted order

    @property
    def query(self) -> A.Query:
        return self.pattern.query

    @property
    def variables(self) -> list[str]:
        return list(self.plan.names)

    @property
    def layout(self) -> Layout:
        return Layout(tuple(self.plan.names), ())

    # ------------------------------------------------------------------ binding
    def _bind(self, batch: EventBatch) -> None:
        q = self.query
        types = {c.var: tuple(resolve_type(t, batch.type_names, c.pos) for t in c.types) for c in A.leaves(q.pattern)}
        bind_batch(self, q, batch, types, int(self.store.ts[-1]) if self.store.end else None)
        ticks = window_ticks(self.window)
        self.W[:] = (0, 0, 0) if ticks is None else (1, 1 if self.window.by == "pos" else 0, ticks)

    def _type_matrix(self) -> np.ndarray:
        """TM[v, code]: whether events of the type with that store code can bind variable v."""
        codes = [tuple(self.store.type_code(t) for t in self.types.get(n, ())) for n in self.plan.names]
        TM = np.zeros((self.plan.nvars, len(self.store.type_codes)), np.bool_)
        for v, cs in enumerate(codes):
            TM[v, list(cs)] = True
        return TM

    # ------------------------------------------------------------------ engine hooks
    def _keep_from(self) -> int:
        """The first stream position the kernel state may still read."""
        raise NotImplementedError

    def _start(self, batch: EventBatch, start: int) -> None:
        """Before the first kernel call of a batch (e.g. estimate an order)."""

    def _run(self, start: int, end: int, E: tuple, TM: np.ndarray, live_max: int) -> int:
        """Run the kernel over positions start..end-1 (stopping early past live_max); returns where it stopped."""
        raise NotImplementedError

    def live_count(self) -> int:
        raise NotImplementedError

    # ------------------------------------------------------------------ stream interface
    def _feed(self, batch: EventBatch, progress: Callable[[int, int], None] | None = None) -> MatchTable:
        self._bind(batch)
        start = self.store.end
        self.store.add(batch, self._keep_from())
        end = self.store.end
        s = self.store
        E = (s.etype, s.ts, s.vn, s.vd, s.vt)
        TM = self._type_matrix()
        self._start(batch, start)
        self.nout = 0
        budget = self.budget
        live_max = -1 if budget.max_state is None else int(budget.max_state)
        pos = start
        while pos < end:
            self.cnt[:] = 0
            pos = self._run(pos, min(end, pos + STEP), E, TM, live_max)
            self.counters.partial_matches += int(self.cnt[0])
            self.counters.predicate_evaluations += int(self.cnt[1])
            budget.check_state(self.live_count(), self._grown)
            if progress is not None:
                progress(pos - start, end - start)
        return self._table(self.OUT[: self.nout])

    def _close(self) -> MatchTable:
        self._reset()
        return MatchTable.empty(self.layout)

    def _reset(self) -> None:
        """Drop the live state at the end of the stream."""

    def _grown(self) -> str:
        return self.plan.names[-1]

    # ------------------------------------------------------------------ output
    def _table(self, rows: np.ndarray) -> MatchTable:
        """Match rows [branch, -, positions...] as a MatchTable, in the reference's order, OR-deduplicated."""
        if not len(rows):
            return MatchTable.empty(self.layout)
        P = rows[:, 2:]
        if len(self.pattern.branches) > 1:
            P = np.unique(P, axis=0)
        P = P[_reference_order(P, self.name_rank)]
        s = self.store
        bindings = {}
        for v, name in enumerate(self.plan.names):
            col = P[:, v]
            bound = col >= 0
            offsets = np.concatenate([[0], np.cumsum(bound)]).astype(np.int64)
            ids = s.ids[col[bound] - s.base]
            if ids.dtype.kind not in "iu":
                ids = pa.array([x.item() if hasattr(x, "item") else x for x in ids.tolist()])
            bindings[name] = (offsets, ids, bound) if not bound.all() else (offsets, ids)
        ts = s.ts[P.max(axis=1) - s.base].astype(np.int64, copy=False)
        return MatchTable.from_columns(self.layout, bindings, ts)


def _reference_order(P: np.ndarray, name_rank: np.ndarray) -> np.ndarray:
    """The permutation that sorts assignments as the reference does: by last position, then by the sorted
    (variable name, position) items (a shorter list first when one is a prefix of the other)."""
    V = P.shape[1]
    by_name = np.argsort(name_rank)
    Q = P[:, by_name]                            # positions in name order
    bound = Q >= 0
    shift = np.argsort(~bound, axis=1, kind="stable")   # bound columns first, in name order
    ranks = np.broadcast_to(name_rank[by_name], Q.shape)
    kr = np.where(np.take_along_axis(bound, shift, 1), np.take_along_axis(ranks, shift, 1), -1)
    kp = np.where(np.take_along_axis(bound, shift, 1), np.take_along_axis(Q, shift, 1), -1)
    keys = []
    for j in range(V - 1, -1, -1):
        keys += [kp[:, j], kr[:, j]]
    keys.append(P.max(axis=1))
    return np.lexsort(keys)
