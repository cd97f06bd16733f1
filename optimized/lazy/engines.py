"""The optimized pattern engines: `optimized-lazy` (chain NFA), `optimized-tree` (tree NFA) and
`optimized-eager` (the eager NFA over the same pattern model, the baseline the lazy ones are measured
against). Each program keeps its kernel state in NumPy arrays between `feed` calls."""
from __future__ import annotations

import os

import numpy as np

from cepkit.optimized.lazy import chain, eager, kleene, tree
from cepkit.optimized.lazy import order as order_module
from cepkit.optimized.lazy.order import estimated_orders
from cepkit.optimized.lazy.plan import all_negations, chain_arrays, fc_dependencies
from cepkit.optimized.lazy.program import PatternKernelProgram, kleene_floor, rows_floor
from cepkit.core.contract import Engine
from cepkit.core.errors import QueryError, Unsupported
from cepkit.core.events import EventBatch
from cepkit.front.language import ast as A
from cepkit.front.lazy.order import DEFAULT_PREFIX, chain_order, parse_order, resolve_names
from cepkit.front.pattern.model import compile_pattern

NEGATION_STRATEGIES = {"post-processing": "pp", "pp": "pp", "post_processing": "pp",
                       "first-chance": "fc", "fc": "fc", "first_chance": "fc"}


def _buffers(slots: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return np.full((slots, 64), -1, np.int64), np.zeros(slots, np.int64), np.zeros(slots, np.int64)


def _buffer_floor(BUF, BS, BE) -> int | None:
    live = BS < BE
    return int(BUF[np.flatnonzero(live), BS[live]].min()) if live.any() else None


def _lowest(*floors) -> int | None:
    found = [f for f in floors if f is not None]
    return min(found) if found else None


class ChainProgram(PatternKernelProgram):
    engine_name = "optimized-lazy"
    kleene = True

    def __init__(self, pattern, order=None, negation="post-processing", estimate_prefix=DEFAULT_PREFIX,
                 codegen=False):
        super().__init__(pattern, codegen)
        if negation not in NEGATION_STRATEGIES:
            raise QueryError(f"unknown negation strategy '{negation}'", expected=["post-processing", "first-chance"])
        self.fc = fc_dependencies(pattern, self.engine_name) if NEGATION_STRATEGIES[negation] == "fc" else None
        names = parse_order(order)
        self.preferred = resolve_names(pattern, names) if names is not None else None
        if not isinstance(estimate_prefix, int) or estimate_prefix < 1:
            raise QueryError(f"estimate_prefix must be a positive number of events, got {estimate_prefix!r}")
        self.estimate_prefix = estimate_prefix
        B, V, KN = len(pattern.branches), self.plan.nvars, self.plan.neg.shape[1]
        self.BUF, self.BS, self.BE = _buffers(B * (V + KN))
        self.WT = np.zeros((64, 2 + V), np.int64)
        if self.plan.has_kleene:  # rows of variable length (optimized/lazy/kleene.py)
            self.WT = np.full((64, 2 + 2 * V + 2), -1, np.int64)
            self.OUT = np.full((64, 2 + 2 * V + 2), -1, np.int64)
        self.nw = 0
        self.chains = None
        if self.preferred is not None:
            self._set_orders([chain_order(b, self.preferred, lambda n: 0) for b in pattern.branches])

    def _set_orders(self, orders) -> None:
        self.chains = [tuple(o) for o in orders]
        self.ORD, self.LO, self.HI, self.CST, self.FCS, self.PPM = chain_arrays(self.plan, self.chains, self.fc)

    @property
    def orders(self) -> list[tuple[str, ...]]:
        return list(self.chains or ())

    def _start(self, batch: EventBatch, start: int) -> None:
        if self.chains is None:
            k = min(len(batch), self.estimate_prefix)
            s, p = self.store, self.plan
            counts = self.kernel("order", order_module).rates(start, start + k, s.base, (s.etype, s.ts, s.vn, s.vd, s.vt), self._type_matrix(),
                           p.rate_unary, p.inb, p.tables)
            self._set_orders(estimated_orders(self.pattern, list(p.names), counts, self.preferred))

    def _run(self, start, end, E, TM, TMN, live_max):
        p = self.plan
        if p.has_kleene:
            pos, self.BUF, self.WT, self.nw, self.OUT, self.nout, self.PEND, self.npend = kleene.chain_run(
                start, end, self.store.end, self.store.base, E, self.W, TM, TMN, p.unary, p.inb, p.npos, self.ORD,
                self.LO, self.HI, self.CST, p.checks, p.kind, p.text, p.kleene, self.FCS, self.PPM, p.neg, p.nneg,
                p.tables, self.BUF, self.BS, self.BE, self.WT, self.nw, self.OUT, self.nout, self.PEND, self.npend,
                self.cnt, live_max)
            return pos
        (pos, self.BUF, self.WT, self.nw, self.OUT, self.nout, self.PEND, self.npend) = self.kernel("chain", chain).run(
            start, end, self.store.end, self.store.base, E, self.W, TM, TMN, p.unary, p.inb, p.npos, self.ORD,
            self.LO, self.HI, self.CST, p.checks, self.FCS, self.PPM, p.neg, p.nneg, p.tables, self.BUF, self.BS,
            self.BE, self.WT, self.nw, self.OUT, self.nout, self.PEND, self.npend, self.cnt, live_max)
        return pos

    def _floor(self) -> int | None:
        rows = self.WT[: self.nw]
        live = kleene_floor(rows, self.plan.nvars) if self.plan.has_kleene else rows_floor(rows)
        return _lowest(_buffer_floor(self.BUF, self.BS, self.BE), live)

    def live_count(self) -> int:
        return self.nw

    def _live_rows(self) -> np.ndarray:
        return self.WT[: self.nw]

    def _reset(self) -> None:
        self.nw = 0


class TreeProgram(PatternKernelProgram):
    engine_name = "optimized-tree"

    def __init__(self, pattern, codegen=False):
        super().__init__(pattern, codegen)
        B, V = len(pattern.branches), self.plan.nvars
        self.BUF, self.BS, self.BE = _buffers(B * V)
        self.TI = np.full((max(64, B), 2 + 2 * V), -1, np.int64)
        self.TI[:B, 0] = np.arange(B)
        self.nt = B

    def _run(self, start, end, E, TM, TMN, live_max):
        p = self.plan
        (pos, self.BUF, self.TI, self.nt, self.OUT, self.nout, self.PEND, self.npend) = self.kernel("tree", tree).run(
            start, end, self.store.end, self.store.base, E, self.W, TM, TMN, p.unary, p.inb, p.text, p.pred, p.succ,
            p.checks, p.nchecks, p.neg, p.nneg, all_negations(p), p.tables, self.BUF, self.BS, self.BE, self.TI,
            self.nt, self.OUT, self.nout, self.PEND, self.npend, self.cnt, live_max)
        return pos

    def _floor(self) -> int | None:
        V = self.plan.nvars
        return _lowest(_buffer_floor(self.BUF, self.BS, self.BE), rows_floor(self.TI[: self.nt, : 2 + V]))

    def live_count(self) -> int:
        return self.nt

    def _live_rows(self) -> np.ndarray:
        return self.TI[: self.nt]


class EagerProgram(PatternKernelProgram):
    engine_name = "optimized-eager"
    kleene = True

    def __init__(self, pattern, codegen=False):
        super().__init__(pattern, codegen)
        V = self.plan.nvars
        if self.plan.has_kleene:  # rows of variable length (optimized/lazy/kleene.py)
            self.I = np.full((64, 2 + 2 * V + 2), -1, np.int64)
            self.OUT = np.full((64, 2 + 2 * V + 2), -1, np.int64)
        else:
            self.I = np.zeros((64, 2 + V), np.int64)
        self.ni = 0

    def _run(self, start, end, E, TM, TMN, live_max):
        p = self.plan
        if p.has_kleene:
            pos, self.I, self.ni, self.OUT, self.nout, self.PEND, self.npend = kleene.eager_run(
                start, end, self.store.end, self.store.base, E, self.W, TM, TMN, p.inb, p.pred, p.succ, p.kleene,
                p.checks, p.kind, p.nchecks, p.text, p.neg, p.nneg, all_negations(p), p.tables, self.I, self.ni,
                self.OUT, self.nout, self.PEND, self.npend, self.cnt, live_max)
            return pos
        pos, self.I, self.ni, self.OUT, self.nout, self.PEND, self.npend = self.kernel("eager", eager).run(
            start, end, self.store.end, self.store.base, E, self.W, TM, TMN, p.inb, p.pred, p.succ, p.checks,
            p.nchecks, p.neg, p.nneg, all_negations(p), p.tables, self.I, self.ni, self.OUT, self.nout, self.PEND,
            self.npend, self.cnt, live_max)
        return pos

    def _floor(self) -> int | None:
        if self.plan.has_kleene:
            return kleene_floor(self.I[: self.ni], self.plan.nvars)
        return rows_floor(self.I[: self.ni])



    def live_count(self) -> int:
        return self.ni

    def _live_rows(self) -> np.ndarray:
        return self.I[: self.ni]

    def _reset(self) -> None:
        self.ni = 0


def _pattern(engine: str, q: A.Query, selection: str):
    if q.strategy is not A.Strategy.SKIP_TILL_ANY_MATCH:
        raise Unsupported(engine, f"the {q.strategy.value} strategy (spec/001 defines skip-till-any-match only)",
                          q.pos.line or None, q.pos.column or None)
    if selection != "all":
        shown = selection.replace("_", "-")
        raise Unsupported(engine, f"the {shown} output format (--selection {shown})")
    return compile_pattern(q)


def _codegen(codegen: bool | None) -> bool:
    """codegen=True compiles the query's WHERE clauses to Numba code (seconds the first time, cached on disk);
    False evaluates them from tables in kernels compiled once. Default: $CEPKIT_CODEGEN=1, else tables."""
    return os.environ.get("CEPKIT_CODEGEN", "") not in ("", "0") if codegen is None else bool(codegen)


class OptimizedLazyEngine(Engine):
    """The lazy chain NFA in Numba; options as reference-lazy's: order, negation, estimate_prefix."""

    name = "optimized-lazy"
    language = "sase"
    counts_state = True  # waiting instances

    def build(self, q: A.Query, selection: str = "all", order=None, negation: str = "post-processing",
              estimate_prefix: int = DEFAULT_PREFIX, codegen: bool | None = None):
        return ChainProgram(_pattern(self.name, q, selection), order, negation, estimate_prefix, _codegen(codegen))


class OptimizedTreeEngine(Engine):
    """The tree NFA in Numba (no Kleene closure, as reference-tree)."""

    name = "optimized-tree"
    language = "sase"
    counts_state = True  # instances

    def build(self, q: A.Query, selection: str = "all", codegen: bool | None = None):
        return TreeProgram(_pattern(self.name, q, selection), _codegen(codegen))


class OptimizedEagerEngine(Engine):
    """The eager NFA of spec/001 in Numba over the same pattern model (the lazy engines' baseline)."""

    name = "optimized-eager"
    language = "sase"
    counts_state = True  # instances

    def build(self, q: A.Query, selection: str = "all", codegen: bool | None = None):
        return EagerProgram(_pattern(self.name, q, selection), _codegen(codegen))
