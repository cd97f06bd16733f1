"""Plan and run a MATCH_RECOGNIZE query over a store: index-based replay where it is sound, else full replay.

Index-based replay applies to ALL MATCHES queries without PARTITION BY, ordered by ts ascending, with
WITHIN (the thesis' pattern-query model). The chosen secondary indexes give candidates, candidates give
replay intervals, and only the blocks holding an interval (plus the rows PREV/NEXT may reach) are read.
A match is kept from the interval that contains all its rows, so the result equals a full replay.
An unusable index (missing, damaged) makes the whole query fall back to full replay, with a warning.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from cepkit.core.errors import QueryError
from cepkit.core.units import NANOS
from cepkit.reference.replay import cost as C
from cepkit.reference.replay.intervals import Selected, candidate_intervals, merge
from cepkit.reference.replay.select import Candidate, Config, greedy, optimal, pareto
from cepkit.reference.replay.store import Store
from cepkit.reference.replay.symbols import symbols
from cepkit.front.sql import ast as S
from cepkit.reference.sql.allmatches import AllMatches
from cepkit.front.sql.parse import parse
from cepkit.reference.sql.run import Emitter, Table, project_columns, within_check, run_rows
METHODS = ("pareto", "greedy", "optimal", "all", "none")


@dataclass
class Plan:
    query: S.MatchRecognize
    store: Store
    mode: str                                   # 'index' | 'full'
    reason: str = ""
    kinds: list[str] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    chosen: Config = ()
    intervals: list[tuple[int, int]] = field(default_factory=list)
    blocks: list[int] = field(default_factory=list)
    estimate: tuple[float, float, float] | None = None
    window: int = 0

    @property
    def fraction(self) -> float:
        total = len(self.store.blocks)
        return (len(self.blocks) / total) if total else 0.0


def _margins(q: S.MatchRecognize) -> tuple[int, int]:
    back = fwd = 0
    for e in [m.expr for m in q.measures] + [d.cond for d in q.define]:
        for n in e.walk():
            if isinstance(n, S.Nav) and n.kind == "prev":
                back = max(back, n.offset)
            if isinstance(n, S.Nav) and n.kind == "next":
                fwd = max(fwd, n.offset)
    return back, fwd


def _why_not(q: S.MatchRecognize, store: Store) -> str:
    if q.rows != "all_matches":
        return "index-based replay needs ALL MATCHES (ONE ROW / ALL ROWS results depend on where matching starts)"
    if q.partition_by:
        return "index-based replay does not support PARTITION BY (thesis §6.1: future work)"
    if len(q.order_by) != 1 or q.order_by[0].col.col != "ts" or q.order_by[0].descending:
        return "index-based replay needs ORDER BY ts (the store's order)"
    if q.within is None:
        return "index-based replay needs WITHIN (replay intervals come from the window)"
    if not store.stats_ok:
        return "the lightweight index (row-group statistics) is missing"
    return ""


def _window(q: S.MatchRecognize, store: Store) -> int:
    w = q.within.amount
    if q.within.unit is not None:
        if store.ts_unit is None:
            raise QueryError(f"WITHIN {w} {q.within.unit} needs the store's time unit; give WITHIN in ticks",
                             q.within.pos.line, q.within.pos.column)
        w, rest = divmod(w * NANOS[q.within.unit], NANOS[store.ts_unit])
        if rest:
            raise QueryError(f"WITHIN is not a whole number of {store.ts_unit}", q.within.pos.line,
                             q.within.pos.column)
    strict = q.conventions.window_bound == "strict"   # the query's convention (WITHIN ... EXCLUSIVE)
    return w - 1 if strict else w   # integer ticks: span < w is span <= w - 1


def plan(query: S.MatchRecognize | str, store: Store, method: str | Sequence[str] = "pareto") -> Plan:
    """Choose indexes (`method` one of METHODS, or the pattern variables whose indexes to use)."""
    q = parse(query) if isinstance(query, str) else query
    why = _why_not(q, store)
    if why:
        return Plan(q, store, "full", why, blocks=list(range(len(store.blocks))))
    w = _window(q, store)
    syms = symbols(q)
    kinds = [s.kind for s in syms]
    blocks_of: list[int] = []
    bb = 0
    for i, s in enumerate(syms):
        if s.kind == "KS":
            bb += 1
        blocks_of.append(bb)
    cands: list[Candidate] = []
    results: dict[int, list[tuple[int, int]]] = {}
    for i, s in enumerate(syms, start=1):
        best = None
        for r in s.ranges:
            if r.attr not in store.indexed():
                continue
            idx = store.index(r.attr)
            if idx is None:
                return Plan(q, store, "full", f"the index on '{r.attr}' is unusable",
                            blocks=list(range(len(store.blocks))))
            hits = idx.range(r.lo, r.lo_incl, r.hi, r.hi_incl)
            if best is None or len(hits) < len(best[1]):
                best = (r, hits)
        if best is not None:
            cands.append(Candidate(i, s.var, best[0].attr, best[0].text(), len(best[1]), blocks_of[i - 1]))
            results[i] = best[1]
    stats = C.Stats(store.events, (store.blocks[-1].t_max - store.blocks[0].t_min + 1) if store.blocks else 1,
                    len(store.blocks))

    estimate = C.estimator(kinds, stats, w)

    if isinstance(method, str):
        if method not in METHODS:
            raise QueryError(f"unknown index selection method '{method}'", expected=list(METHODS))
        chosen = {"pareto": lambda: pareto(cands, estimate), "greedy": lambda: greedy(cands, estimate),
                  "optimal": lambda: optimal(cands, estimate),
                  "all": lambda: tuple(cands), "none": lambda: ()}[method]()
    else:
        wanted = [v.upper() for v in method]
        by_var = {c.var: c for c in cands}
        for v in wanted:
            if v not in by_var:
                raise QueryError(f"no usable index for pattern variable '{v}'",
                                 expected=sorted(c.var for c in cands if c.var))
        chosen = tuple(c for c in cands if c.var in wanted)
    if not chosen:
        return Plan(q, store, "full", "no index chosen (a full replay is estimated cheapest)", kinds, cands,
                    blocks=list(range(len(store.blocks))), estimate=estimate(()), window=w)
    sel = [Selected(c.position, results[c.position]) for c in chosen]
    intervals = merge(candidate_intervals(kinds, sel, w, store.strict_ts))
    back, fwd = _margins(q)
    needed: set[int] = set()
    for a, b in intervals:
        span = [k for k, blk in enumerate(store.blocks) if not (blk.t_max < a or blk.t_min > b)]
        if not span:
            continue
        lo_seq = store.blocks[span[0]].first_seq - back
        hi_seq = store.blocks[span[-1]].first_seq + store.blocks[span[-1]].rows - 1 + fwd
        needed |= {k for k, blk in enumerate(store.blocks)
                   if blk.first_seq <= hi_seq and blk.first_seq + blk.rows - 1 >= lo_seq}
    return Plan(q, store, "index", "", kinds, cands, chosen, intervals, sorted(needed), estimate(chosen), w)


def execute(p: Plan) -> Table:
    """The query's result: from the replay intervals of an index plan, or from a full replay."""
    store, q = p.store, p.query
    if p.mode == "full":
        return run_rows(q, store.columns, store.read_all(), store.ts_unit)
    back, fwd = _margins(q)
    found: list[tuple[tuple[int, ...], tuple[str, ...], list[dict], int]] = []
    within = within_check(q, store.ts_unit)  # the same WITHIN check as a full run
    for a, b in p.intervals:
        rng = store.seq_range(a, b)
        if rng is None:
            continue
        lo, hi = rng
        first = max(0, lo - back)
        rows = store.rows(first, hi + fwd)
        engine = AllMatches(q.pattern, q.define_map, q.subset_map, q.strategy, within(rows))
        for positions, labels in engine.matches(rows):
            glob = tuple(first + x for x in positions)
            if glob[0] >= lo and glob[-1] <= hi:
                found.append((glob, labels, rows, first))
    found.sort(key=lambda m: (m[0][-1], m[0][0], m[0]))
    out_cols = [m.name for m in q.measures]
    out: list[tuple] = []
    matches: list[tuple[dict, Any]] = []
    for number, (glob, labels, rows, first) in enumerate(found, start=1):
        emit = Emitter(q, rows, out_cols, out, matches)
        emit.one(tuple(g - first for g in glob), labels, number)
    return project_columns(q, Table(tuple(out_cols), tuple(out), tuple(matches)))


def replay(query: S.MatchRecognize | str, store: Store, method: str | Sequence[str] = "pareto") -> tuple[Table, Plan]:
    """Plan and execute; an unusable index has already warned (ReplayWarning) and means a full replay."""
    p = plan(query, store, method)
    return execute(p), p
