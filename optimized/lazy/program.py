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

from cepkit.optimized.nfab.program import window_ticks
from cepkit.optimized.lazy.plan import Plan, compile_plan
from cepkit.optimized.store import Store, wide_ids
from cepkit.front.binding import WindowBound, attribute_uses, bind_batch, resolve_type
from cepkit.core.contract import Program
from cepkit.core.errors import Beyond64Bits, EventError, ResourceLimit
from cepkit.core.events import EventBatch
from cepkit.front.language import ast as A
from cepkit.core.match_table import Layout, MatchTable
from cepkit.core.counters import Counters
from cepkit.front.pattern.model import Pattern
from cepkit.front.language.printer import query_to_text
from cepkit.optimized.returns import ReturnProgram, column
from cepkit.front.evaluate import Env, evaluate
from cepkit.optimized.lazy.generated import module

STEP = 1 << 16  # events per kernel call (the live state is checked against the budget between calls)


class PatternKernelProgram(Program):
    """Base of the optimized chain, tree and eager programs."""

    language = "sase"
    kleene = False  # whether the engine runs Kleene closure (rows of variable length: optimized/lazy/kleene.py)

    def __init__(self, pattern: Pattern, codegen: bool = False):
        self.pattern = pattern
        self.codegen = codegen  # generated WHERE clauses (optimized/lazy/generated.py) while values are integral
        self.modules: dict = {}
        self.attrs = sorted(attribute_uses(pattern.query))
        self.strings: dict[str, int] = {"": 0}
        self.plan: Plan = compile_plan(pattern, self.attrs, self.strings, self.engine_name, self.kleene)
        self.store = Store(self.attrs, self.strings)
        self.counters = Counters()
        self.types: dict | None = None
        self.window: WindowBound | None = None
        self.ts_unit: str | None = None
        self.W = np.zeros(3, np.int64)
        V = self.plan.nvars
        self.OUT = np.zeros((64, 2 + V), np.int64)
        self.PEND = np.zeros((16, 2 + V), np.int64)   # matches held for an open-ended negation
        self.npend = 0
        self.emitted = np.zeros((0, V), np.int64)    # OR patterns: assignments already output (in the window)
        # kernel counters: partial matches, predicate evaluations; the Kleene kernels' budget (kleene._past):
        # the event's first OUT row, stopped inside an event, matches wanted (-1: all), max live state (-1: none)
        self.cnt = np.zeros(7, np.int64)
        self.returns = None
        if pattern.query.returns:  # RETURN items: one Numba pass per batch of matches (optimized/returns.py)
            from types import SimpleNamespace

            fake = SimpleNamespace(query=pattern.query, n=self.plan.nvars, negations=(),
                                   components=[SimpleNamespace(var=n) for n in self.plan.names])
            self.returns = ReturnProgram(fake, self.attrs, self.strings)
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
        return Layout(tuple(self.plan.names), tuple(r.name for r in self.query.returns))

    def _payload(self, comps: np.ndarray, poss: np.ndarray, offs: np.ndarray) -> dict | None:
        """RETURN columns of the matches whose bindings are (variable, position) pairs comps / poss in the
        ranges offs (items the tables cannot give exactly: the reference evaluator per match)."""
        if self.returns is None:
            return None

        s = self.store
        names = self.plan.names
        comps = np.ascontiguousarray(comps, np.int64)
        poss = np.ascontiguousarray(poss, np.int64)
        offs = np.ascontiguousarray(offs, np.int64)

        def per_match(j: int, i: int):
            env: dict = {}
            for x in range(int(offs[j]), int(offs[j + 1])):
                env.setdefault(names[int(comps[x])], []).append(int(poss[x]))
            env = {k: tuple(v) for k, v in env.items()}
            return evaluate(self.query.returns[i].expr,
                            Env(env, s.value, missing_true=False, null_logic=self.query.conventions.null_logic))

        cols = self.returns.columns(s, comps, poss, offs, per_match, np.arange(len(offs) - 1))
        return {name: column(part, s) for name, part in cols.items()}

    # ------------------------------------------------------------------ binding
    def _bind(self, batch: EventBatch) -> None:
        q = self.query
        types = {c.var: tuple(resolve_type(t, batch.type_names, c.pos) for t in c.types) for c in A.leaves(q.pattern)}
        bind_batch(self, q, batch, types, int(self.store.ts[-1]) if self.store.end else None)
        ticks = window_ticks(self.window)
        self.W[:] = (0, 0, 0) if ticks is None else (1, 1 if self.window.by == "pos" else 0, ticks)

    def _type_matrix(self, names=None) -> np.ndarray:
        """TM[v, code]: whether events of the type with that store code can bind variable v (of `names`,
        default the positive variables)."""
        names = self.plan.names if names is None else names
        codes = [tuple(self.store.type_code(t) for t in self.types.get(n, ())) for n in names]
        TM = np.zeros((max(1, len(names)), len(self.store.type_codes) + 1), np.bool_)
        for v, cs in enumerate(codes):
            TM[v, list(cs)] = True
        return TM

    def kernel(self, kind: str, static):
        """The kernel module of `kind`: the generated one for this query (codegen) or the shared `static` one."""
        if not self.codegen:
            return static
        if kind not in self.modules:
            self.modules[kind] = module(kind, self.plan, _query_text(self.query), self.query.conventions.null_logic)
        return self.modules[kind]

    # ------------------------------------------------------------------ engine hooks
    def _keep_from(self) -> int:
        """The first stream position the kernel state may still read: its own floor, held matches, and for
        a negation the events that share a window with them (all, without a window)."""
        held = self.PEND[: self.npend]
        floor = kleene_floor(held, self.plan.nvars) if self.plan.has_kleene else rows_floor(held)
        own = self._floor()
        floor = own if floor is None else floor if own is None else min(floor, own)
        if floor is None:
            floor = self.store.end
        if self.plan.neg_names:
            floor = self._window_floor(floor)
        return min(floor, self.store.end)

    def _window_floor(self, pos: int) -> int:
        """The first position that can share a window with the event at pos (0 without a window)."""
        if self.W[0] == 0:
            return 0
        if self.W[1] == 1:
            return max(0, pos - int(self.W[2]))
        s = self.store
        if pos >= s.end:
            return self._window_floor(s.end - 1) if s.end > s.base else pos
        lowest = int(s.ts[pos - s.base]) - int(self.W[2])
        return s.base + int(np.searchsorted(s.ts, lowest, side="left"))

    def _floor(self) -> int | None:
        """The first stream position the engine's own state may still read (None: none)."""
        raise NotImplementedError

    def _start(self, batch: EventBatch, start: int) -> None:
        """Before the first kernel call of a batch (e.g. estimate an order)."""

    def _run(self, start: int, end: int, E: tuple, TM: np.ndarray, TMN: np.ndarray, live_max: int) -> int:
        """Run the kernel over positions start..end-1 (stopping early past live_max); returns where it stopped."""
        raise NotImplementedError

    def live_count(self) -> int:
        raise NotImplementedError

    # ------------------------------------------------------------------ stream interface
    def _feed(self, batch: EventBatch, progress: Callable[[int, int], None] | None = None) -> MatchTable:
        self._bind(batch)
        start, end, integral = self.store.append(batch, self._keep_from())
        self.codegen = self.codegen and integral   # generated clauses assume integral values
        E = self.store.columns
        TM = self._type_matrix()
        TMN = self._type_matrix(self.plan.neg_names)
        self._start(batch, start)
        self.nout = 0
        budget = self.budget
        live_max = -1 if budget.max_state is None else int(budget.max_state)
        pos = start
        # a single branch outputs every OUT row: the kernel may stop once the matches wanted are found
        single = len(self.pattern.branches) == 1
        while pos < end:
            self.cnt[:] = 0
            self.cnt[5] = live_max
            self.cnt[4] = budget.limit - budget.matches if budget.limit is not None and single else -1
            try:
                pos = self._run(pos, min(end, pos + STEP), E, TM, TMN, live_max)
            except OverflowError as exc:  # the program's state is then undefined: feed no more
                raise Beyond64Bits(f"{exc} while evaluating the query's conditions (on {', '.join(self.attrs)}); "
                                 "the optimized engines work on 64-bit integers, the reference engines are "
                                 "exact", None, self.attrs[0] if len(self.attrs) == 1 else None) from None
            self.counters.partial_matches += int(self.cnt[0])
            self.counters.predicate_evaluations += int(self.cnt[1])
            if self.cnt[3]:   # stopped inside an event: its matches count too (one event can pass the budget),
                # or the subsets of a Kleene state's buffered candidates (cnt[6]): the instances it stands for
                held = self.live_count() + self.npend + self.nout - int(self.cnt[2])
                budget.check_state(max(held, int(self.cnt[6])), self._grown)
                if self.cnt[6]:   # no bound (max_state=None) and past 62 candidates: beyond the int64 masks
                    raise ResourceLimit(f"a Kleene state with more than 62 buffered candidates (over 2^62 "
                                        f"subsets) at pattern variable {self._grown()}; bound the pattern with "
                                        "WITHIN or a more selective predicate, or run it with engine optimized")
            budget.check_state(self.live_count() + self.npend, self._grown)
            if progress is not None:
                progress(pos - start, end - start)
            if 0 <= self.cnt[4] <= self.nout:
                break   # the limit: the rest of the batch is never looked at
        return self._table(self.OUT[: self.nout])

    def _close(self) -> MatchTable:
        """End of stream: the matches held for a negation, after everything else."""
        self._reset()
        held = self.PEND[: self.npend].copy()
        held[:, 1] = 2 * self.store.end
        self.npend = 0
        return self._table(held)

    def _reset(self) -> None:
        """Drop the live state at the end of the stream."""

    def _live_rows(self) -> np.ndarray:
        """The engine's live instances as rows [.., .., positions...]."""
        raise NotImplementedError

    def _grown(self) -> str:
        """The variable most live partial matches bound last (named by the max_state refusal)."""
        if self.plan.has_kleene:
            return self._kleene_grown()
        P = self._live_rows()[:, 2: 2 + self.plan.nvars]
        P = P[(P >= 0).any(axis=1)]
        if not len(P):
            return self.plan.names[0]
        return self.plan.names[int(np.bincount(P.argmax(axis=1), minlength=self.plan.nvars).argmax())]

    # ------------------------------------------------------------------ output
    def _table(self, rows: np.ndarray) -> MatchTable:
        """Match rows [branch, order key, positions...] as a MatchTable in the reference's order; an OR
        pattern outputs an assignment once."""
        if self.plan.has_kleene:
            return self._kleene_table(rows)
        if not len(rows):
            return MatchTable.empty(self.layout)
        rows = rows[_reference_order(rows, self.name_rank)]
        P = np.ascontiguousarray(rows[:, 2:])
        if len(self.pattern.branches) > 1:
            P = self._first_time(P)
            if not len(P):
                return MatchTable.empty(self.layout)
        s = self.store
        bindings = {}
        for v, name in enumerate(self.plan.names):
            col = P[:, v]
            bound = col >= 0
            offsets = np.concatenate([[0], np.cumsum(bound)]).astype(np.int64)
            ids = s.ids[col[bound] - s.base]
            if ids.dtype.kind not in "iu":
                ids = _id_values(ids)
            bindings[name] = (offsets, ids, bound) if not bound.all() else (offsets, ids)
        ts = s.ts[P.max(axis=1) - s.base].astype(np.int64, copy=False)
        payload = None
        if self.returns is not None:
            bound = P >= 0
            comps = np.broadcast_to(np.arange(P.shape[1]), P.shape)[bound]
            offs = np.concatenate([[0], np.cumsum(bound.sum(axis=1))])
            payload = self._payload(comps, P[bound], offs)
        return MatchTable.from_columns(self.layout, bindings, ts, payload)

    def _kleene_grown(self) -> str:
        from collections import Counter

        V, last = self.plan.nvars, Counter()
        for r in self._live_rows():
            o, best = 2 + V, None
            for v in range(V):
                n = int(r[2 + v])
                if n and (best is None or r[o + n - 1] > best[0]):
                    best = (r[o + n - 1], v)
                o += n
            if best is not None:
                last[self.plan.names[best[1]]] += 1
        return last.most_common(1)[0][0] if last else self.plan.names[0]

    def _kleene_table(self, rows: np.ndarray) -> MatchTable:
        """Rows [branch, order key, len per variable, positions...] (optimized/lazy/kleene.py) as a MatchTable
        in the reference's order; an OR pattern outputs an assignment once."""
        if not len(rows):
            return MatchTable.empty(self.layout)
        V = self.plan.nvars
        rows = rows[kleene_order(rows, V, self.name_rank)]
        if len(self.pattern.branches) > 1:
            rows = self._first_time_kleene(rows)
            if not len(rows):
                return MatchTable.empty(self.layout)
        s = self.store
        lens = rows[:, 2: 2 + V]
        starts = 2 + V + np.concatenate([np.zeros((len(rows), 1), np.int64), np.cumsum(lens, axis=1)[:, :-1]], axis=1)
        bindings = {}
        for v, name in enumerate(self.plan.names):
            n = lens[:, v]
            offsets = np.concatenate([[0], np.cumsum(n)]).astype(np.int64)
            idx_r = np.repeat(np.arange(len(rows)), n)
            idx_c = np.repeat(starts[:, v], n) + (np.arange(int(offsets[-1])) - np.repeat(offsets[:-1], n))
            pos = rows[idx_r, idx_c]
            ids = s.ids[pos - s.base]
            if ids.dtype.kind not in "iu":
                ids = _id_values(ids)
            bound = n > 0
            bindings[name] = (offsets, ids, bound) if not bound.all() else (offsets, ids)
        ts = s.ts[kleene_last(rows, V) - s.base].astype(np.int64, copy=False)
        payload = None
        if self.returns is not None:
            tot = lens.sum(axis=1)
            offs = np.concatenate([[0], np.cumsum(tot)]).astype(np.int64)
            r_idx = np.repeat(np.arange(len(rows)), tot)
            c_idx = 2 + V + np.arange(int(offs[-1])) - np.repeat(offs[:-1], tot)
            comps = np.repeat(np.tile(np.arange(V), len(rows)), lens.ravel())
            payload = self._payload(comps, rows[r_idx, c_idx], offs)
        return MatchTable.from_columns(self.layout, bindings, ts, payload)

    def _first_time_kleene(self, rows: np.ndarray) -> np.ndarray:
        """The rows (in order) whose assignment was not output before (the same assignment is the same
        lengths and positions; kept while its events are in the store)."""
        V = self.plan.nvars
        lens = rows[:, 2: 2 + V]
        tot = lens.sum(axis=1)
        width = V + int(tot.max())
        cols = np.arange(width - V)
        keys = np.full((len(rows), width), -1, np.int64)
        keys[:, :V] = lens
        src = np.minimum(2 + V + cols, rows.shape[1] - 1)
        keys[:, V:] = np.where(cols < tot[:, None], rows[:, src], -1)
        old = getattr(self, "emitted_k", np.zeros((0, width), np.int64))
        w = max(width, old.shape[1])
        both = np.full((len(old) + len(keys), w), -1, np.int64)
        both[: len(old), : old.shape[1]] = old
        both[len(old):, :width] = keys
        view = np.ascontiguousarray(both).view(np.dtype((np.void, 8 * w))).ravel()
        _, first = np.unique(view, return_index=True)
        keep = np.zeros(len(both), bool)
        keep[first] = True
        keep = keep[len(old):]
        both = np.concatenate([both[: len(old)], both[len(old):][keep]])
        low = np.where(both[:, V:] >= 0, both[:, V:], np.iinfo(np.int64).max).min(axis=1)
        self.emitted_k = both[low >= self._keep_from()]
        return rows[keep]

    def _first_time(self, P: np.ndarray) -> np.ndarray:
        """The rows (in order) whose assignment was not output before (kept while it can recur: its events
        are still in the store)."""
        both = np.concatenate([self.emitted, P])
        view = both.view(np.dtype((np.void, both.dtype.itemsize * both.shape[1]))).ravel()
        _, first = np.unique(view, return_index=True)
        keep = np.zeros(len(both), bool)
        keep[first] = True
        keep = keep[len(self.emitted):]
        P = P[keep]
        self.emitted = np.concatenate([self.emitted, P])
        low = np.where(self.emitted >= 0, self.emitted, np.iinfo(np.int64).max).min(axis=1)
        self.emitted = self.emitted[low >= self._keep_from()]
        return P


def _query_text(q: A.Query) -> str:
    return query_to_text(q)


def rows_floor(rows: np.ndarray) -> int | None:
    """The first stream position rows [.., .., positions...] bind (None: none)."""
    pos = rows[:, 2:]
    pos = pos[pos >= 0]
    return int(pos.min()) if len(pos) else None


def _reference_order(rows: np.ndarray, name_rank: np.ndarray) -> np.ndarray:
    """The permutation that sorts match rows as the reference outputs them: by order key (the event that
    output it, released before confirmed), then by last position, then by the sorted (variable name,
    position) items (a shorter list first when one is a prefix of the other)."""
    P = rows[:, 2:]
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
    keys += [P.max(axis=1), rows[:, 1]]
    return np.lexsort(keys)


def kleene_last(rows: np.ndarray, V: int) -> np.ndarray:
    """The last stream position of each variable-length row."""
    used = 2 + V + rows[:, 2: 2 + V].sum(axis=1)
    cols = np.arange(rows.shape[1])
    return np.where((cols >= 2 + V) & (cols < used[:, None]), rows, -1).max(axis=1)


def kleene_floor(rows: np.ndarray, V: int) -> int | None:
    """The first stream position variable-length rows bind (None: none)."""
    if not len(rows):
        return None
    used = 2 + V + rows[:, 2: 2 + V].sum(axis=1)
    cols = np.arange(rows.shape[1])
    pos = rows[(cols >= 2 + V) & (cols < used[:, None])]
    return int(pos.min()) if len(pos) else None


def kleene_order(rows: np.ndarray, V: int, name_rank: np.ndarray) -> np.ndarray:
    """The reference's order of variable-length rows: by order key, last position, then the sorted
    (variable name, positions) items, a tuple before any it is a prefix of, a shorter list of items
    before a longer one it begins (rows of OR alternatives binding different variables)."""
    n = len(rows)
    lens = rows[:, 2: 2 + V]
    last = kleene_last(rows, V)
    starts = 2 + V + np.concatenate([np.zeros((n, 1), np.int64), np.cumsum(lens, axis=1)[:, :-1]], axis=1)
    by_name = np.argsort(name_rank)
    bound = lens[:, by_name] > 0
    shift = np.argsort(~bound, axis=1, kind="stable")      # bound variables first, in name order
    var = by_name[shift]                                     # (n, V) global variable of each item slot
    has = np.take_along_axis(bound, shift, 1)
    L = int(lens.max()) if n else 0
    r = np.arange(n)
    keys = []
    for j in range(V):
        g = var[:, j]
        keys.append(np.where(has[:, j], name_rank[g], -1))
        for k in range(L):
            ok = has[:, j] & (k < lens[r, g])
            col = np.minimum(starts[r, g] + k, rows.shape[1] - 1)
            keys.append(np.where(ok, rows[r, col], -1))
    keys = keys[::-1] + [last, rows[:, 1]]
    return np.lexsort(keys)


def _id_values(ids: np.ndarray) -> pa.Array:
    """Ids that are not integers (text, or Python ints of an object column) as one Arrow array; ids beyond
    64-bit integers refused by name (optimized/store.py wide_ids)."""
    try:
        return pa.array([x.item() if hasattr(x, "item") else x for x in ids.tolist()])
    except OverflowError:
        raise wide_ids() from None
