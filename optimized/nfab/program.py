"""The optimized SASE+ engine: the NFA^b run semantics of reference/nfab/runs.py, with the per-event
loop in Numba (runtime.py) over columnar batches, state carried across `feed` calls.

`feed` / `close` return a MatchTable built from arrays (`MatchTable.from_columns`: bindings gathered and
ordered in Numba, ids, ts and RETURN columns as arrays, no Python object per match); `columnar=False`
keeps the previous per-match path (a `Match` per match) as a measured baseline.

Matches are identical to the reference's (bindings, timestamps, RETURN payloads, order); a construct
the engine cannot run exactly is refused by name with `Unsupported` at compile time (or, for data
that cannot be stored exactly, when the batch arrives).
"""
from __future__ import annotations

import gc
import math
from fractions import Fraction
from typing import Callable

import numpy as np
import pyarrow as pa

from cepkit.optimized.bytecode import ENGINE
from cepkit.optimized.nfab import buffer, matches, merging, runindex, runtime
from cepkit.optimized.nfab import layout as L
from cepkit.optimized.nfab.compiler import compile_formulas
from cepkit.optimized.returns import ReturnProgram, column, concat_columns
from cepkit.optimized.store import Store, wide_ids
from cepkit.front.binding import WindowBound, attribute_uses, bind_batch, resolve_type
from cepkit.core.errors import Beyond64Bits, EventError, Unsupported
from cepkit.front.evaluate import Env, evaluate
from cepkit.core.events import EventBatch
from cepkit.front.language import ast as A
from cepkit.core.contract import Program
from cepkit.core.limits import HELD_EVENTS
from cepkit.core.match import Match
from cepkit.core.match_table import Layout, MatchTable
from cepkit.core.match_table import decode as decode_column
from cepkit.core.match_table import encode as encode_column
from cepkit.front.nfab.compile import NFAb, check_selection
from cepkit.core.counters import Counters
from cepkit.front.language.printer import query_to_text
from cepkit.optimized.cache import load_module
from cepkit.optimized.nfab.generated import module_source

STRATEGY_CODES = {A.Strategy.STRICT_CONTIGUITY: 1, A.Strategy.PARTITION_CONTIGUITY: 2,
                  A.Strategy.SKIP_TILL_NEXT_MATCH: 3, A.Strategy.SKIP_TILL_ANY_MATCH: 4}
MAX_COMPONENTS = 63
PROGRESS_STEP = 1 << 20  # events per kernel call between progress reports
# runs visited (plus events) per kernel call, at most: about 0.05-0.2 s of kernel, after which Python handles a
# pending signal (SIGTERM, Ctrl-C) and the progress bar is updated (issue 30, item 5)
CALL_WORK = 1 << 22


INT64_MAX = int(np.iinfo(np.int64).max)


def window_ticks(w: WindowBound | None) -> int | None:
    """The window as a whole number B: a span of whole ticks or positions lies inside iff span <= B (exactly
    `span < size` or `span <= size` for a fractional size too). None when there is no window, or when it
    is too wide for any int64 span to leave it (WITHIN 1000000 days with ts in ns): no window then."""
    if w is None:
        return None
    size = Fraction(w.size)
    bound = math.ceil(size) - 1 if w.strict else math.floor(size)
    return None if bound >= INT64_MAX else bound


class OptimizedProgram(Program):
    """A compiled query: `feed(batch)` any number of times, then `close()`."""

    engine_name = ENGINE
    language = "sase"

    def __init__(self, nfa: NFAb, selection: str = "all", codegen: bool = False, share_buffer: bool = True,
                 merge: bool = True, batch_returns: bool = True, columnar: bool = True, index: bool = True):
        check_selection(nfa, selection, self.engine_name)
        if nfa.n > MAX_COMPONENTS:
            raise Unsupported(ENGINE, f"patterns of more than {MAX_COMPONENTS} positive components")
        self.nfa = nfa
        self.selection = selection
        self.columnar = columnar
        self.vars = [c.var for c in nfa.components]
        self.attrs = sorted(attribute_uses(nfa.query))
        self.strings: dict[str, int] = {"": 0}
        t, self.tables, null_logic = compile_formulas(nfa, self.attrs, self.strings)
        self.table_dict = t
        n = nfa.n
        self.kernel = runtime
        self.generated = None
        if codegen:  # a module of straight-line formulas for this query (generated.py)

            self.generated = self.kernel = load_module(module_source(t, n, len(nfa.negations), _query_text(nfa.query),
                                                                     null_logic))
        self.store = Store(self.attrs, self.strings)
        self.returns = ReturnProgram(nfa, self.attrs, self.strings, enabled=batch_returns)
        self.kleene = np.array([1 if c.kleene else 0 for c in nfa.components], np.int64)
        self.part = np.array([self.attrs.index(a) for a in nfa.partition_attrs], np.int64)
        self.neg_gap = np.array([neg.gap for neg in nfa.negations], np.int64)
        self.width = L.HDR + 3 * n + L.AGGW * len(t["aggs"]) + 1  # + the oldest member's start
        # run matrix R[plane, row, field]: planes 0/1 alternate as current/next runs, then completed
        # matches of one event, held matches, and the fresh run of the start state
        self.R = np.zeros((5, 16, self.width), np.int64)
        self.R[L.P_FRESH, 0, 2] = -1
        self.cur = 0
        self.nruns = 0
        self.arena = np.zeros((64, L.ARENA_W), np.int64)
        self.nnodes = 0
        self.npend = 0
        self.stamp = 0
        self.live_nodes = 0
        self.types: dict[str, str] | None = None
        self.ts_unit: str | None = None
        self.window: WindowBound | None = None
        self.bound: int | None = None   # window_ticks(self.window)
        self.counters = Counters()
        self.Q = np.zeros(L.Q_SIZE, np.int64)
        self.Q[L.Q_N] = n
        self.Q[L.Q_STRAT] = STRATEGY_CODES[nfa.strategy]
        self.Q[L.Q_NNEG] = len(nfa.negations)
        self.Q[L.Q_STOP] = 1 if selection == "non_overlap" else 0
        self.Q[L.Q_NOSHARE] = 0 if share_buffer else 1
        # merging of equivalent runs (spec/000 §6; merging.py), where it can be exact
        self.merge_refusal = merging.refusal(nfa, selection, share_buffer) if merge else None
        self.merging = merge and self.merge_refusal is None
        self.Q[L.Q_MERGE] = 1 if self.merging else 0
        self.KP = merging.key_program(nfa, t, self.part) if self.merging else np.zeros((2 * n, 3), np.int64)
        # runs grouped by partition key (runindex.py); strict contiguity ends every other key's runs
        self.Q[L.Q_KEYED] = int(index and len(self.part) > 0 and nfa.strategy is not A.Strategy.STRICT_CONTIGUITY)
        self.RL, self.GT, self.GH, self.GS = runindex.empty(len(self.part), self.R.shape[1])
        self.leading_negation = any(neg.gap == 0 for neg in nfa.negations)

    @property
    def query(self) -> A.Query:
        return self.nfa.query

    @property
    def variables(self) -> list[str]:
        return self.vars

    # ------------------------------------------------------------------ binding
    def _bind(self, batch: EventBatch) -> None:
        q = self.nfa.query
        types = {c.var: resolve_type(c.event_type, batch.type_names, c.pos) for c in q.pattern.components}
        bind_batch(self, q, batch, types, int(self.store.ts[-1]) if self.store.end else None)
        self.ctype = np.array([self.store.type_code(self.types[v]) for v in self.vars], np.int64)
        self.neg_type = np.array([self.store.type_code(self.types[neg.component.var])
                                  for neg in self.nfa.negations], np.int64)
        self.bound = window_ticks(self.window)
        self.Q[L.Q_HASWIN] = 0 if self.bound is None else 1
        if self.bound is not None:
            self.Q[L.Q_WINPOS] = 1 if self.window.by == "pos" else 0
            self.Q[L.Q_WINNUM] = self.bound
            self.Q[L.Q_WINDEN] = 1
            self.Q[L.Q_WINSTRICT] = 0

    def _keep_from(self) -> int:
        """The first position a live run, a held match or a leading negation may still read."""
        end = self.store.end
        keep = end
        if self.nruns:
            oldest = int(self.R[self.cur, : self.nruns, -1].min())  # the oldest member's start
            if self.merging and end:  # members that started before the window are expired
                oldest = max(oldest, self._window_floor())
            keep = min(keep, oldest)
        if self.npend:
            keep = min(keep, int(self.R[L.P_PEND, : self.npend, -1].min()))
        if self.leading_negation and end:
            keep = min(keep, self._window_floor())
        return keep

    def _window_floor(self) -> int:
        """The first position that a window ending at the last event (or later) can include."""
        if self.bound is None:
            return 0
        end = self.store.end
        if self.window.by == "pos":  # last - pos <= bound
            return max(0, end - 1 - self.bound)
        ts = self.store.ts
        lowest = int(ts[-1]) - self.bound  # ts >= lowest
        if lowest <= int(ts[0]):
            return self.store.base
        return self.store.base + int(np.searchsorted(ts, lowest, side="left"))

    # ------------------------------------------------------------------ stream interface
    def _feed(self, batch: EventBatch, progress: Callable[[int, int], None] | None = None) -> MatchTable:
        """Consume a batch; return the matches it completes, in the reference's order, as one MatchTable."""
        self._bind(batch)
        start, end, integral = self.store.append(batch, self._keep_from())
        if not integral:
            self.kernel = runtime  # generated formulas assume integral values; the tables handle fractions
        s = self.store
        E = s.columns
        tables: list[MatchTable] = []
        pieces: list[dict | None] = []
        # runs created, clauses evaluated, the event in process, the budget: max live state (0: none),
        # matches still wanted by this feed (-1: all; non-overlap output is cut by Program.feed instead),
        # the peak live state, the work one kernel call may do (runs visited plus events: CALL_WORK) and the
        # work done in this call: the kernel comes back to Python often enough that a signal is handled soon
        cnt = np.zeros(8, np.int64)
        budget = self.budget
        cnt[3] = budget.max_state or 0
        cnt[6] = CALL_WORK
        found = 0
        pos = start
        while pos < end:
            out = np.zeros((16, 3), np.int64)
            # a merged node stands for many matches: with merging the kernel stops after each event with
            # output (cnt[4] = 1) and the matches are counted here, once materialized
            wanted = budget.limit - budget.matches - found if budget.limit is not None else -1
            cnt[4] = -1 if wanted < 0 or self.selection != "all" else 1 if self.merging else wanted
            cnt[7] = 0
            try:
                (pos, self.R, self.cur, self.nruns, self.arena, self.nnodes, self.npend, out, nout,
                 self.stamp, self.RL, self.GT, self.GH) = self.kernel.run_loop(
                    self.Q, self.ctype, self.kleene, self.part, self.neg_gap, self.neg_type, self.tables, self.KP,
                    E, s.base, pos, min(end, pos + PROGRESS_STEP), self.R, self.cur, self.nruns, self.arena,
                    self.nnodes, self.npend, out, 0, cnt, self.stamp, self.RL, self.GT, self.GH, self.GS)
            except OverflowError as exc:
                raise self._overflow(exc, batch, int(cnt[2]) - start) from None
            budget.check_state(self._live(), self._grown)
            budget.peak = max(budget.peak, int(cnt[5]))
            if self.columnar:
                pieces.append(self._piece(out[:nout]))
                found += len(pieces[-1]["ts"]) if pieces[-1] is not None else 0
            else:
                tables.append(self._rows(out[:nout]))
                found += len(tables[-1])
            budget.batch_matches = found
            if progress is not None:
                progress(pos - start, end - start)
            if self.selection == "all" and not budget.wanted(found):
                break  # the limit: the rest of the batch is never looked at
        if progress is not None:
            progress(end - start, end - start)
        self.counters.partial_matches += int(cnt[0])
        self.counters.predicate_evaluations += int(cnt[1])
        if self.nnodes > 4096 and self.nnodes > 2 * self.live_nodes:
            empty = np.zeros((0, 3), np.int64)
            self.nnodes = self.live_nodes = int(buffer.compact(self.arena, self.nnodes, self.R, self.cur, self.nruns,
                                                          self.npend, empty, 0, *self._expiry()))
        if self.columnar:  # one table per feed, whatever the number of kernel calls
            return self._build([p for p in pieces if p is not None])
        return MatchTable.concat(self.layout, tables)

    def _live(self) -> int:
        """The live state: held matches and runs, a merged run counted as the member paths it stands for where
        they never expire (a Kleene closure without a window: buffer.run_paths), so that merging does not
        hide an explosion from max_state."""
        cap = self.budget.max_state
        if not (self.merging and self.bound is None and cap is not None and self.kleene.any()):
            return self.nruns + self.npend
        return self.npend + int(buffer.run_paths(self.arena, self.nnodes, self.R, self.cur, self.nruns, cap))

    def _paths(self, nodes: np.ndarray, ev: np.ndarray | None = None) -> tuple:
        """materialize_paths of the nodes (`ev`: each one's event, None: all one step), after counting them
        against max_state (Budget.check_held: the matches one event completes, and the events all bind)."""
        s = self.store
        budget = self.budget
        if budget.max_state is None:
            return buffer.materialize_paths(self.arena, nodes, self.Q, s.ts, s.base)
        room = max(0, HELD_EVENTS * budget.max_state - budget.held_events)
        ev = np.zeros(0, np.int64) if ev is None else np.ascontiguousarray(ev, np.int64)
        npath, events, most = buffer.count_paths(self.arena, nodes, ev, self.Q, s.ts, s.base, budget.max_state,
                                                 room)
        budget.check_held(int(most), int(events))
        return buffer.materialize_paths(self.arena, nodes, self.Q, s.ts, s.base, npath, events)

    def _grown(self) -> str:
        """The variable most live runs are at (the one whose partial matches grew)."""
        at = self.R[self.cur, : self.nruns, 0]
        return self.vars[int(np.bincount(at).argmax())] if len(at) else self.vars[-1]

    def _rows(self, out: np.ndarray) -> MatchTable:
        """The per-match path (columnar=False, the baseline of benchmarks/match_table_throughput.py): a
        Python tuple per binding, a Match per match."""
        was_enabled = gc.isenabled()
        gc.disable()  # building many match tuples: the cyclic collector would only rescan them
        try:
            found = self._matches(out)
            if self.selection == "non_overlap" and found:
                found = self._non_overlap(found)
            return MatchTable.from_matches(self.layout, [self._match(b) for b in found])
        finally:
            if was_enabled:
                gc.enable()

    def _expiry(self) -> tuple:
        """(Q, timestamps, base, last position): what `reachable` needs to drop merged members that left
        the window."""
        return self.Q, self.store.ts, self.store.base, self.store.end - 1

    def _overflow(self, exc: OverflowError, batch: EventBatch, i: int) -> EventError:
        """The event whose formulas left int64 (the program's state is then undefined: feed no more)."""
        return Beyond64Bits(f"{exc} while evaluating the query on this event (it computes with "
                          f"{', '.join(self.attrs)}); the optimized engine works on 64-bit integers, the "
                          "reference engine is exact", int(batch.source_rows[i]) if 0 <= i < len(batch) else None,
                          self.attrs[0] if len(self.attrs) == 1 else None)

    def state_size(self) -> dict[str, int]:
        """The live state carried to the next `feed`: runs, held matches (trailing negation), match-buffer
        nodes they reach, buffer rows allocated, and events kept in the store."""
        empty = np.zeros((0, 3), np.int64)
        live = buffer.reachable(self.arena, self.nnodes, self.R, self.cur, self.nruns, self.npend, empty, 0, *self._expiry())
        return {"runs": int(self.nruns), "held_matches": int(self.npend), "buffer_nodes": int(live.sum()),
                "buffer_rows": int(self.arena.shape[0]), "run_rows": int(self.R.shape[1]),
                "stored_events": int(self.store.end - self.store.base)}

    def _close(self) -> MatchTable:
        """End of stream: release matches that were waiting for a trailing negation."""
        nodes = self.R[L.P_PEND, : self.npend, 2].copy()
        self.npend = 0
        self.nruns = 0
        self.RL, self.GT, self.GH, self.GS = runindex.empty(len(self.part), self.R.shape[1])
        if self.columnar:
            piece = self._columns(nodes, None)
            return self._build([piece] if piece is not None else [])
        found, _ = self._bindings(nodes)
        return MatchTable.from_matches(self.layout, [self._match(b) for b in found])

    @property
    def layout(self) -> Layout:
        """Positive variables in pattern order, then the RETURN items."""
        return Layout(tuple(self.variables), tuple(r.name for r in self.query.returns))

    # ------------------------------------------------------------------ output
    def _piece(self, out: np.ndarray) -> dict | None:
        """The matches of `out` rows (event, buffer node, released) as arrays, in the reference's order."""
        if not len(out):
            return None
        return self._columns(np.ascontiguousarray(out[:, 1]), out)

    def _build(self, pieces: list[dict]) -> MatchTable:
        """The MatchTable of one feed (or close) from its pieces' arrays: ids by one fancy index into the
        store per variable, payload columns made once (no Python object per match)."""
        if not pieces:
            return MatchTable.empty(self.layout)
        s = self.store
        bindings = {}
        for var in self.vars:
            lens = [p["bind"][var] for p in pieces]
            if len(lens) == 1:
                offsets, values, mapped = lens[0]
            else:
                shift = np.cumsum([0] + [len(v) for _, v, _ in lens[:-1]])
                offsets = np.concatenate([lens[0][0][:1]] + [off[1:] + d for (off, _, _), d in zip(lens, shift)])
                values = np.concatenate([v for _, v, _ in lens])
                mapped = lens[0][2]
            bindings[var] = (offsets, values if mapped else _ids(s.ids[values - s.base]))
        ts = np.concatenate([p["ts"] for p in pieces]) if len(pieces) > 1 else pieces[0]["ts"]
        payload = None
        if self.nfa.query.returns:
            payload = {}
            for r in self.nfa.query.returns:
                parts = [p["payload"][r.name] for p in pieces]
                payload[r.name] = column(parts[0] if len(parts) == 1 else concat_columns(parts, s), s)
        if any(isinstance(ids, np.ndarray) and ids.dtype.kind not in "iu" for _, ids in bindings.values()):
            # ids of several kinds (ints and text): Arrow has no column for them, the rows keep them
            return MatchTable.from_matches(self.layout, _python_rows(self.layout, bindings, ts, payload))
        return MatchTable.from_columns(self.layout, bindings, ts, payload)

    def _columns(self, nodes: np.ndarray, out: np.ndarray | None) -> dict | None:
        """Bindings of the buffer nodes gathered in Numba (materialize: count, then fill), put in the
        reference's order (per event: released held matches, then sorted by bindings; out None: node
        order), non-overlap selection applied: per variable (offsets, stream positions), ts, and the
        payload columns of ReturnProgram's batch pass."""
        nodes = np.ascontiguousarray(nodes, np.int64)
        if not len(nodes):
            return None
        s = self.store
        n = self.nfa.n
        if self.merging:
            comps, poss, offs, owner = self._paths(nodes, None if out is None else out[:, 0])
        else:
            budget = self.budget
            total = -1
            if budget.max_state is not None:   # the events these matches bind, before they are built
                room = max(0, HELD_EVENTS * budget.max_state - budget.held_events)
                total = int(buffer.count_elements(self.arena, nodes, room))
                budget.check_held(0, total)
            comps, poss, offs = buffer.materialize(self.arena, nodes, n, total)
            owner = np.arange(len(nodes))
        co = matches.split_components(comps, offs, n)
        if out is None:
            perm = np.arange(len(offs) - 1)
        else:
            rows = out[owner]
            perm = matches.order_matches(np.ascontiguousarray(rows[:, 0]), np.ascontiguousarray(rows[:, 2]), poss, co, n)
            if self.selection == "non_overlap" and len(perm):
                perm = self._non_overlap_columns(perm, poss, co)
        if not len(perm):
            return None
        direct = s.ids.dtype.kind in "iu" and s.ids.dtype.itemsize == 8  # integer ids: read straight from the store
        # otherwise gather store positions (an identity map), mapped to ids by one fancy index per feed
        ids = s.ids.astype(np.int64, copy=False) if direct else np.arange(s.base, s.end, dtype=np.int64)
        bind = {var: matches.gather_component_ids(poss, co, perm, c, ids, s.base) + (direct,)
                for c, var in enumerate(self.vars)}
        ts = s.ts[poss[offs[perm + 1] - 1] - s.base].astype(np.int64, copy=False)
        payload = None
        if self.nfa.query.returns:
            returns = self.nfa.query.returns

            def per_match(j: int, i: int):
                env = {v: tuple(poss[co[j, c]:co[j, c + 1]].tolist()) for c, v in enumerate(self.vars)}
                return evaluate(returns[i].expr, Env(env, s.value))

            payload = self.returns.columns(s, comps, poss, offs, per_match, perm)
        return {"bind": bind, "ts": ts, "payload": payload}

    def _non_overlap_columns(self, perm: np.ndarray, poss: np.ndarray, co: np.ndarray) -> np.ndarray:
        """`_non_overlap` on arrays: per partition, the match with the latest start (then the fewest
        events; then the first in binding order); that partition's runs end. Returns the chosen, in binding order."""
        n = self.nfa.n
        order = matches.sort_bindings(perm, poss, co, n)
        first = poss[co[order, 0]]
        length = co[order, n] - co[order, 0]
        runs = self.R[self.cur]
        starts = runs[: self.nruns, L.HDR].astype(np.int64)
        keys = self._key_rows(np.concatenate([first, starts]))
        group, runs_group = keys[: len(order)], keys[len(order):]
        rank = np.arange(len(order))
        best = np.lexsort((rank, length, -first, group))  # per group: latest start, most events, earliest
        lead = np.ones(len(best), bool)
        lead[1:] = group[best[1:]] != group[best[:-1]]
        chosen = np.sort(best[lead])
        self.nruns = runindex.remove(self.R, self.cur, self.nruns, self.RL, self.GT, np.isin(runs_group, group[chosen]),
                                     self.Q[L.Q_KEYED] == 1)
        return order[chosen]

    def _key_rows(self, positions: np.ndarray) -> np.ndarray:
        """A group number per position: equal exactly when the partition attributes' values are equal."""
        if not len(self.part) or not len(positions):
            return np.zeros(len(positions), np.int64)
        s = self.store
        q = positions - s.base
        mat = np.concatenate([s.vt[self.part][:, q].astype(np.int64), s.vn[self.part][:, q], s.vd[self.part][:, q]]).T
        _, inverse = np.unique(mat, axis=0, return_inverse=True)
        return inverse.reshape(-1).astype(np.int64)

    # the per-match path (columnar=False): Python tuples per binding, a Match per match
    def _bindings(self, nodes: np.ndarray) -> tuple[list[tuple], np.ndarray]:
        """(positions, ids, RETURN payload) of each binding the buffer nodes hold: positions and ids per
        component, a tuple in stream order; and the index of the node each came from (a node of merged runs holds one per unexpired member)."""
        nodes = np.ascontiguousarray(nodes, np.int64)
        if not len(nodes):
            return [], np.zeros(0, np.int64)
        if self.merging:
            comps, poss, offs, owner = self._paths(nodes)
        else:
            comps, poss, offs = buffer.materialize(self.arena, nodes, self.nfa.n)
            owner = np.arange(len(nodes))
        n = self.nfa.n
        s = self.store
        poss_list = poss.tolist()
        ids_list = s.ids[poss - s.base].tolist()
        cuts = np.flatnonzero(np.diff(comps) != 0) + 1  # component changes (comps ascend within a node)
        edges = sorted(set(offs.tolist()).union(cuts.tolist()))
        comps_list = comps.tolist()
        offs_list = offs.tolist()
        result = []
        e = 0
        for i in range(len(offs) - 1):
            lo, hi = offs_list[i], offs_list[i + 1]
            per_pos = [()] * n
            per_ids = [()] * n
            while e < len(edges) and edges[e] < lo:
                e += 1
            while e < len(edges) and edges[e] < hi:
                a = edges[e]
                b = edges[e + 1] if e + 1 < len(edges) and edges[e + 1] < hi else hi
                per_pos[comps_list[a]] = tuple(poss_list[a:b])
                per_ids[comps_list[a]] = tuple(ids_list[a:b])
                e += 1
            result.append((tuple(per_pos), tuple(per_ids)))
        if self.nfa.query.returns:  # all payloads in one pass (optimized/returns.py)
            returns = self.nfa.query.returns

            logic = self.nfa.query.conventions.null_logic

            def per_match(j: int, i: int):
                return evaluate(returns[i].expr, Env(dict(zip(self.vars, result[j][0])), s.value, null_logic=logic))

            payloads = self.returns.payloads(s, comps, poss, offs, per_match)
            result = [(b, ids, pay) for (b, ids), pay in zip(result, payloads)]
        else:
            result = [(b, ids, ()) for b, ids in result]
        return result, owner

    def _matches(self, out: np.ndarray) -> list[tuple]:
        """Bindings in the reference's order: per event, released held matches, then the sorted rest."""
        if not len(out):
            return []
        found, owner = self._bindings(out[:, 1])
        out = out[owner]
        result: list[tuple] = []
        i = 0
        while i < len(found):
            k = i
            while k < len(found) and out[k, 0] == out[i, 0] and out[k, 2] == out[i, 2]:
                k += 1
            group = found[i:k]
            result.extend(group if out[i, 2] == 1 else sorted(group, key=lambda m: m[0]))
            i = k
        return result

    def _key(self, pos: int) -> tuple:
        return tuple(self.store.value(pos, a) for a in self.nfa.partition_attrs)

    def _non_overlap(self, confirmed: list[tuple]) -> list[tuple]:
        """One match per partition, the latest start (reference `_non_overlap`); that partition's runs end."""
        chosen: dict[tuple, tuple] = {}
        for m in sorted(confirmed, key=lambda m: m[0]):
            key = self._key(m[0][0][0])
            if key not in chosen or _preference(m[0]) > _preference(chosen[key][0]):
                chosen[key] = m
        runs = self.R[self.cur]
        drop = np.array([self._key(int(runs[r, L.HDR])) in chosen for r in range(self.nruns)], bool)
        self.nruns = runindex.remove(self.R, self.cur, self.nruns, self.RL, self.GT, drop, self.Q[L.Q_KEYED] == 1)
        return sorted(chosen.values(), key=lambda m: m[0])

    def _match(self, found: tuple) -> Match:
        b, ids, payload = found
        s = self.store
        return Match(tuple(zip(self.vars, ids)), int(s.ts[b[-1][-1] - s.base]), payload)


def _query_text(q: A.Query) -> str:
    return query_to_text(q)


def _ids(values: np.ndarray):
    """The ids column values: int arrays as they are, text as one Arrow array per batch."""
    if values.dtype.kind in "iu":
        return values
    try:
        return pa.array(values.tolist() if values.dtype == object else values)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return values
    except OverflowError:
        raise wide_ids() from None


def _python_rows(layout: Layout, bindings: dict, ts: np.ndarray, payload: dict | None) -> list[Match]:
    """Match rows from the gathered columns (only where the ids cannot be one Arrow column)."""
    ids = {v: (off.tolist(), [x.item() if hasattr(x, "item") else x for x in vals.tolist()])
           for v, (off, vals) in bindings.items()}
    cols = []
    for item in layout.payload:
        col = (payload or {})[item]
        if isinstance(col, pa.Array):
            arr, kind = encode_column(col)
            col = decode_column(arr, kind.encode() if kind else None)
        cols.append(col)
    rows = []
    for r, t in enumerate(ts.tolist()):
        b = tuple((v, tuple(vals[off[r]:off[r + 1]])) for v, (off, vals) in ids.items())
        rows.append(Match(b, t, tuple((p, cols[j][r]) for j, p in enumerate(layout.payload))))
    return rows


def _preference(b: tuple) -> tuple:
    return (b[0][0], -sum(map(len, b)))
