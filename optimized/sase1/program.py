"""The optimized program of a query in the SASE 1.0 dialect: reference/nfab/sase1.py's runs, per event in
Numba (optimized/sase1/kernel.py), runs kept per partition key across `feed` calls.

The formulas are the SASE+ engine's tables (optimized/bytecode.py, evaluated by optimized/nfab/formulas.py
`holds`), the store and the RETURN pass are its too, and the match table is built as it builds it
(`OptimizedProgram._columns` / `_build`, in completion order). What SASE 1.0's runs cannot do here is
refused by name as the reference refuses it: negation, the non-overlap output format.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from cepkit.optimized.bytecode import ENGINE
from cepkit.optimized.nfab import layout as L
from cepkit.optimized.nfab.compiler import compile_formulas
from cepkit.optimized.nfab.program import (
    MAX_COMPONENTS,
    PROGRESS_STEP,
    STRATEGY_CODES,
    OptimizedProgram,
)
from cepkit.optimized.returns import ReturnProgram
from cepkit.optimized.sase1 import kernel as S1
from cepkit.optimized.store import Store
from cepkit.front.binding import attribute_uses
from cepkit.core.errors import Unsupported
from cepkit.core.events import EventBatch
from cepkit.front.language.dialects import partition_attrs
from cepkit.core.match_table import MatchTable
from cepkit.front.nfab.compile import NFAb
from cepkit.core.counters import Counters

POOL_ROWS = 64      # initial run pool (row 0 is the empty run new runs start from)
ARENA_ROWS = 1024   # initial buffer nodes


class Sase1OptimizedProgram(OptimizedProgram):
    """A flat SEQ query under the SASE 1.0 dialect: `feed(batch)` any number of times, then `close()`."""

    def __init__(self, nfa: NFAb, selection: str = "all"):
        q = nfa.query
        line, col = q.pos.line or None, q.pos.column or None
        if selection != "all":
            raise Unsupported(ENGINE, "the non-overlap output format in the SASE 1.0 dialect", line, col)
        for c in q.pattern.components:
            if c.negated:
                raise Unsupported(ENGINE, "negation in the SASE 1.0 dialect", c.pos.line or None, c.pos.column or None)
        if nfa.n > MAX_COMPONENTS:
            raise Unsupported(ENGINE, f"patterns of more than {MAX_COMPONENTS} positive components", line, col)
        self.nfa = nfa
        self.selection = selection
        self.columnar = True
        self.merging = False
        self.vars = [c.var for c in nfa.components]
        self.attrs = sorted(attribute_uses(q))
        self.strings: dict[str, int] = {"": 0}
        n = nfa.n
        t, self.tables, _ = compile_formulas(nfa, self.attrs, self.strings)  # negations are refused above
        self.store = Store(self.attrs, self.strings)
        self.returns = ReturnProgram(nfa, self.attrs, self.strings)
        self.kleene = np.array([1 if c.kleene else 0 for c in nfa.components], np.int64)
        keys = partition_attrs(q)  # the first [attr] partitions; a later one is a predicate (dialects.sase1_where)
        self.S = np.zeros(S1.S_SIZE, np.int64)
        self.S[S1.S_N] = n
        self.S[S1.S_STRAT] = STRATEGY_CODES[nfa.strategy]
        self.S[S1.S_KEY] = self.attrs.index(keys[0]) if keys else -1
        self.Q = np.zeros(L.Q_SIZE, np.int64)  # OptimizedProgram._bind writes the window here
        self.width = L.HDR + 3 * n + L.AGGW * len(t["aggs"]) + 1
        self.types = None
        self.ts_unit = None
        self.window = None
        self.bound = None
        self.counters = Counters()
        self._reset()

    def _reset(self) -> None:
        """No runs: an empty pool, key table and buffer."""
        self.RP = np.zeros((1, POOL_ROWS, self.width), np.int64)
        self.RP[0, S1.FRESH, 2] = -1
        self.inuse = np.zeros(POOL_ROWS, np.uint8)
        self.nxt = np.full(POOL_ROWS, -1, np.int64)
        self.free = np.zeros(POOL_ROWS, np.int64)  # a stack of free rows, row 1 on top
        self.free[: POOL_ROWS - 1] = np.arange(POOL_ROWS - 1, 0, -1)
        self.nfree = POOL_ROWS - 1
        self.ktag = np.full(16, S1.EMPTY, np.int64)
        self.knum = np.zeros(16, np.int64)
        self.kden = np.zeros(16, np.int64)
        self.head = np.full(16, -1, np.int64)
        self.count = np.zeros(16, np.int64)
        self.used = 0
        self.arena = np.zeros((ARENA_ROWS, 3), np.int64)
        self.nnodes = 0
        self.live = 0

    def _bind(self, batch: EventBatch) -> None:
        super()._bind(batch)
        self.S[S1.S_HASWIN] = 0 if self.bound is None else 1
        if self.bound is not None:
            self.S[S1.S_WINPOS] = 1 if self.window.by == "pos" else 0
            self.S[S1.S_BOUND] = self.bound

    def _keep_from(self) -> int:
        """The first position a live run may still read (its first event)."""
        rows = np.flatnonzero(self.inuse)
        return int(self.RP[0, rows, L.HDR].min()) if len(rows) else self.store.end

    def _feed(self, batch: EventBatch, progress: Callable[[int, int], None] | None = None) -> MatchTable:
        """Consume a batch; return the matches it completes, in the reference's order, as one MatchTable."""
        self._bind(batch)
        start = self.store.end
        self.store.add(batch, self._keep_from())
        s = self.store
        end = s.end
        E = (s.etype, s.ts, s.vn, s.vd, s.vt)
        budget = self.budget
        cnt = np.zeros(7, np.int64)
        cnt[3] = budget.max_state or 0
        cnt[6] = self.live
        pieces: list[dict] = []
        found = 0
        pos = start
        while pos < end:
            cnt[4] = budget.limit - budget.matches - found if budget.limit is not None else -1
            try:
                (pos, self.RP, self.inuse, self.nxt, self.free, self.nfree, self.ktag, self.knum, self.kden, self.head,
                 self.count, self.used, self.arena, self.nnodes, out) = S1.run_loop(
                    self.S, self.ctype, self.kleene, self.tables, E, s.base, pos, min(end, pos + PROGRESS_STEP),
                    self.RP, self.inuse, self.nxt, self.free, self.nfree, self.ktag, self.knum, self.kden, self.head,
                    self.count, self.used, self.arena, self.nnodes, cnt)
            except OverflowError as exc:
                raise self._overflow(exc, batch, int(cnt[2]) - start) from None
            self.live = int(cnt[6])
            budget.check_state(self.live, self._grown)
            budget.peak = max(budget.peak, int(cnt[5]))
            piece = self._columns(np.ascontiguousarray(out[:, 1]), None) if len(out) else None
            if piece is not None:  # materialized now: a later call may compact the buffer
                pieces.append(piece)
                found += len(piece["ts"])
            budget.batch_matches = found
            if progress is not None:
                progress(pos - start, end - start)
            if not budget.wanted(found):
                break  # the limit: the rest of the batch is never looked at
        if progress is not None:
            progress(end - start, end - start)
        self.counters.partial_matches += int(cnt[0])
        self.counters.predicate_evaluations += int(cnt[1])
        return self._build(pieces)

    def _close(self) -> MatchTable:
        """End of stream: SASE 1.0 reports nothing more; the runs are dropped."""
        self._reset()
        return MatchTable.empty(self.layout)

    def _grown(self) -> str:
        """The variable most live runs are at."""
        at = self.RP[0, np.flatnonzero(self.inuse), 0]
        return self.vars[int(np.bincount(at).argmax())] if len(at) else self.vars[-1]

    def state_size(self) -> dict[str, int]:
        """The live state carried to the next `feed`: runs, partition keys with runs, buffer nodes and rows,
        and events kept in the store."""
        return {"runs": self.live, "held_matches": 0, "partitions": int((self.count > 0).sum()),
                "buffer_nodes": int(self.nnodes), "buffer_rows": int(self.arena.shape[0]),
                "run_rows": int(self.RP.shape[1]), "stored_events": int(self.store.end - self.store.base)}
