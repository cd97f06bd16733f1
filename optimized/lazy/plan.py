"""A query's pattern model (cepkit.front.pattern.model, front end) as int64 arrays for the kernels.

Variables get one global index (their place in `Pattern.variables`); an assignment is an int64 row of
stream positions per global variable, -1 where unbound. WHERE checks become formulas of one table
(cepkit.optimized.bytecode), evaluated on a run row of the NFA^b kernel's layout (first / last / length per
variable) by the shared evaluator (cepkit.optimized.nfab.formulas.holds) or its generated form (cepkit.optimized.codegen).
"""
from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from cepkit.optimized.bytecode import FormulaCompiler
from cepkit.optimized.nfab.compiler import pack
from cepkit.optimized.nfab.layout import HDR
from cepkit.core.errors import QueryError, Unsupported
from cepkit.front.nfab.compile import Formula
from cepkit.front.pattern.model import BEGIN, PROCEED, TAKE, Pattern

MAX_VARS = 62  # bound sets are int64 bit masks


@dataclass
class Plan:
    """The arrays of one pattern: per branch b and global variable v (rows b, columns v unless said)."""

    names: tuple[str, ...]        # global variables, text order
    inb: np.ndarray               # (B,) mask of b's positive variables
    npos: np.ndarray              # (B,) how many
    text: np.ndarray              # (B, V) place in b's text order (-1: not in b)
    pred: np.ndarray              # (B, V) mask of the variables that must precede v
    succ: np.ndarray              # (B, V) mask of the variables that must follow v
    unary: np.ndarray             # (B, V) formula of v's one-event filter (-1: none)
    checks: np.ndarray            # (B, C, 4) [formula, variable, needs mask, unary] in b's check order
    nchecks: np.ndarray           # (B,)
    tables: np.ndarray            # the packed formula tables (cepkit.optimized.nfab.compiler.pack)
    table_dict: dict              # the same tables unpacked (for cepkit.optimized.codegen)
    width: int                    # run row width: HDR + 3 V
    neg_names: tuple[str, ...]    # negated variables (a global index each)
    neg: np.ndarray               # (B, K, 5) per negation k of b: [negated variable, formula, pred mask, succ mask, open-ended]
    nneg: np.ndarray              # (B,)
    kind: np.ndarray | None = None    # (B, C) check kind: 0 BEGIN, 1 TAKE, 2 PROCEED
    kleene: np.ndarray | None = None  # (B,) mask of b's Kleene variables
    rate_unary: np.ndarray | None = None  # (B, V) as unary, Kleene variables' one-event BEGIN checks included
                                          # (what the order estimate counts, as reference-lazy's _estimate)

    @property
    def has_kleene(self) -> bool:
        return bool(self.kleene is not None and self.kleene.any())

    @property
    def nvars(self) -> int:
        return len(self.names)


def refuse(engine: str, construct: str, node) -> Unsupported:
    pos = getattr(node, "pos", None)
    return Unsupported(engine, construct, (pos.line or None) if pos else None, (pos.column or None) if pos else None)


def compile_plan(pattern: Pattern, attrs: list[str], strings: dict[str, int], engine: str,
                 kleene: bool = False) -> Plan:
    """The plan, or Unsupported (by construct name) for what the kernels do not run (kleene: whether the
    engine runs Kleene closure)."""
    q = pattern.query
    if q.dialect == "sase1":
        raise refuse(engine, "SASE 1.0 dialect", q)
    for b in pattern.branches:
        for v in b.positives:
            if v.kleene and not kleene:
                raise refuse(engine, "Kleene closure", v)
    if q.dialect == "rfid":
        raise refuse(engine, "RFID dialect", q)
    names = pattern.variables
    if len(names) > MAX_VARS:
        raise refuse(engine, f"patterns of more than {MAX_VARS} variables", q)
    gi = {n: i for i, n in enumerate(names)}
    V, B = len(names), len(pattern.branches)
    fake = SimpleNamespace(query=q, components=[SimpleNamespace(var=n) for n in names], negations=())
    fc = FormulaCompiler(fake, attrs, strings)
    C = max([len(b.checks) for b in pattern.branches] + [1])
    inb = np.zeros(B, np.int64)
    npos = np.zeros(B, np.int64)
    text = np.full((B, V), -1, np.int64)
    pred = np.zeros((B, V), np.int64)
    succ = np.zeros((B, V), np.int64)
    unary = np.full((B, V), -1, np.int64)
    rate_unary = np.full((B, V), -1, np.int64)
    checks = np.zeros((B, C, 4), np.int64)
    kinds = np.zeros((B, C), np.int64)
    kl = np.zeros(B, np.int64)
    nchecks = np.zeros(B, np.int64)
    for bi, b in enumerate(pattern.branches):
        npos[bi] = len(b.positives)
        for v in b.positives:
            g = gi[v.name]
            inb[bi] |= 1 << g
            if v.kleene:
                kl[bi] |= 1 << g
            text[bi, g] = v.text_index
            pred[bi, g] = _mask(gi, b.preds(v.name))
            succ[bi, g] = _mask(gi, b.succs(v.name))
        for c, ch in enumerate(b.checks):
            fid = fc.formula(Formula(None, ch.clauses), ch.var)
            is_unary = ch.kind == BEGIN and ch.needs == {ch.var} and not b.var(ch.var).kleene
            if ch.kind == BEGIN and ch.needs == {ch.var}:
                rate_unary[bi, gi[ch.var]] = fid
            kinds[bi, c] = (BEGIN, TAKE, PROCEED).index(ch.kind)
            checks[bi, c] = (fid, gi[ch.var], _mask(gi, ch.needs), 1 if is_unary else 0)
            if is_unary:
                unary[bi, gi[ch.var]] = fid
        nchecks[bi] = len(b.checks)
    neg_names = tuple(dict.fromkeys(v.name for b in pattern.branches for v in b.negations))
    KN = max([len(b.negations) for b in pattern.branches] + [1])
    neg = np.zeros((B, KN, 5), np.int64)
    nneg = np.zeros(B, np.int64)
    for bi, b in enumerate(pattern.branches):
        for k, v in enumerate(b.negations):
            ch = b.neg_checks[v.name]
            fid = fc.formula(Formula(None, ch.clauses), v.name)
            neg[bi, k] = (neg_names.index(v.name), fid, _mask(gi, b.preds(v.name)), _mask(gi, b.succs(v.name)),
                          0 if b.succs(v.name) else 1)
        nneg[bi] = len(b.negations)
    t = fc.arrays()
    tables = pack(t["ops"], t["clauses"], t["formulas"], t["consts"], t["aggs"])
    return Plan(tuple(names), inb, npos, text, pred, succ, unary, checks, nchecks, tables, t, HDR + 3 * V,
                neg_names, neg, nneg, kinds, kl, rate_unary)


def _mask(gi: dict[str, int], names) -> int:
    m = 0
    for n in names:
        m |= 1 << gi[n]
    return m


def all_negations(plan: Plan) -> np.ndarray:
    """Per branch, the mask of every negation (what the eager and tree NFAs decide on a candidate match)."""
    return (np.left_shift(1, plan.nneg) - 1).astype(np.int64)


def fc_dependencies(pattern: Pattern, engine: str) -> list[list[frozenset[str]]]:
    """Per branch and negation, the positive variables first-chance negation waits for (spec/001 §4.5.2 with
    the §10 A4 fix: a window-bounded leading negation depends on every positive); QueryError for a
    negation no positive follows."""
    out = []
    for b in pattern.branches:
        deps = []
        for v in b.negations:
            if not b.succs(v.name):
                raise QueryError(f"first-chance negation cannot check !{v.name}: no positive event follows it, so "
                                 f"its absence is known only when the window closes; use post-processing "
                                 f"(spec/001 §4.5.1)", v.pos.line or None, v.pos.column or None)
            dep = set(b.preds(v.name)) | set(b.succs(v.name)) | set(b.neg_checks[v.name].needs)
            if not b.preds(v.name):
                dep |= set(b.names)
            deps.append(frozenset(dep))
        out.append(deps)
    return out


def chain_arrays(plan: Plan, orders: list[tuple[str, ...]], fc: list | None = None):
    """Per branch and state i of its chain: the variable (ORD), the bound predecessors (LO) and successors
    (HI) that filter its candidates, the non-unary checks first decidable there (CST: count, then check
    indices), the first-chance negations checked on entering it (FCS, a mask; states 0..n), and per branch
    the negations decided at acceptance (PPM, a mask). fc: fc_dependencies(), or None for post-processing."""
    B, V = len(orders), plan.nvars
    FCS = np.zeros((B, V + 1), np.int64)
    PPM = all_negations(plan) if fc is None else np.zeros(B, np.int64)
    gi = {n: i for i, n in enumerate(plan.names)}
    for b, order in enumerate(orders):
        for k, dep in enumerate(fc[b] if fc is not None else ()):
            FCS[b, max((order.index(v) + 1 for v in dep), default=0)] |= 1 << k
    ORD = np.full((B, V), -1, np.int64)
    LO = np.zeros((B, V), np.int64)
    HI = np.zeros((B, V), np.int64)
    CST = np.zeros((B, V, int(plan.checks.shape[1]) + 1), np.int64)
    for b, order in enumerate(orders):
        idx = [gi[n] for n in order]
        for i, g in enumerate(idx):
            ORD[b, i] = g
            before = 0
            for u in idx[:i]:
                before |= 1 << u
            LO[b, i] = plan.pred[b, g] & before
            HI[b, i] = plan.succ[b, g] & before
        for c in range(int(plan.nchecks[b])):
            fid, var, needs, is_unary = (int(x) for x in plan.checks[b, c])
            if is_unary:
                continue
            i = max(idx.index(u) for u in range(V) if needs >> u & 1)
            CST[b, i, 1 + CST[b, i, 0]] = c
            CST[b, i, 0] += 1
    return ORD, LO, HI, CST, FCS, PPM
