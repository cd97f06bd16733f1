"""The NFA^b's edge formulas as tables: postfix programs per formula (optimized/bytecode.py) packed into one
int64 matrix that the evaluator (formulas.py) and the code generator read."""
from __future__ import annotations

import numpy as np

from cepkit.optimized.bytecode import OP_AGG, OP_AND, OP_BIN, OP_CMP, OP_OR, FormulaCompiler
from cepkit.front.nfab.compile import NFAb


def compile_formulas(nfa: NFAb, attrs: list[str], strings: dict[str, int]) -> tuple[dict, np.ndarray, str]:
    """(tables, packed tables, null logic) of the NFA^b's formulas; formula ids: begin j, take n + j, proceed
    2n + j, then one per negation."""
    fc = FormulaCompiler(nfa, attrs, strings)
    for j, c in enumerate(nfa.components):
        fc.formula(nfa.begin[j], c.var)
    for j, c in enumerate(nfa.components):
        fc.formula(nfa.take[j], c.var)
    for j in range(nfa.n):
        fc.formula(nfa.proceed[j], None)
    for neg in nfa.negations:
        fc.formula(neg.formula, neg.component.var)
    t = fc.arrays()
    return t, pack(t["ops"], t["clauses"], t["formulas"], t["consts"], t["aggs"]), fc.null_logic


def stack_bound(ops: np.ndarray) -> int:
    """At least the deepest value stack of eval_clause over any op range of `ops` (a wide AND / OR or a
    right-nested expression pushes one value per item)."""
    sp = top = 0
    for op, a in zip(ops[:, 0].tolist(), ops[:, 1].tolist()) if ops.shape[0] else ():
        if op <= OP_AGG:                # const, attr, len, agg: push
            sp += 1
        elif op in (OP_BIN, OP_CMP):    # pop two, push one
            sp -= 1
        elif op in (OP_AND, OP_OR):     # pop `a` items, push one
            sp -= a - 1
        top = max(top, sp)
    return top + 1


def pack(ops, clauses, formulas, consts, aggs) -> np.ndarray:
    """The tables as one int64 matrix of 4 columns: row 0 = offsets of ops, clauses, formulas and
    constants; row 1 = offset and number of aggregate slots and the value stack's size; then each
    table's rows."""
    parts = [ops, clauses, formulas, consts, aggs]
    offs, rows = [], 2
    for t in parts:
        offs.append(rows)
        rows += t.shape[0]
    T = np.zeros((rows, 4), np.int64)
    T[0] = offs[:4]
    T[1, 0], T[1, 1], T[1, 2] = offs[4], aggs.shape[0], max(64, stack_bound(ops))
    for o, t in zip(offs, parts):
        T[o:o + t.shape[0], : t.shape[1]] = t
    return T
