"""Edge formulas as straight-line Numba code (no interpreter): the shared emitter of every generated module
(SASE+: optimized/nfab/generated.py and optimized/lazy/generated.py; SQL and AFA subclass `Emitter`).

The formulas are generated from the same postfix tables the table evaluator (nfab/formulas.py) interprets
(optimized/bytecode.py), with a symbolic stack. Attribute values are assumed integral (the engine
uses a generated module only while every stored value has denominator 1; see nfab/engine.py), so
arithmetic stays on int64 and comparisons with averages are cross-multiplied: `x > avg(a[..i-1].x)`
becomes `x * count > sum`. Fractions from constants and `/` are carried as unnormalized
(numerator, positive denominator) pairs and compared by cross-multiplication, exactly.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from cepkit.optimized.bytecode import (M_CUR, M_FIRST_OR_CUR, M_FIRSTB, M_LASTB, NULL, NUM, OP_AGG, OP_AND, OP_ATTR,
                                       OP_BIN, OP_CMP, OP_CONST, OP_LEN, OP_NEG, OP_NOT, OP_OR, STR)

CMP_PY = ["==", "!=", "<", "<=", ">", ">="]
# the null logics generated code implements: two-valued truth values are Python booleans; three-valued
# ones (SQL) are ints, TRUE3 / FALSE3 / UNKNOWN3, and a condition holds only when TRUE3
GENERATED_LOGICS = ("two_valued", "three_valued")
FALSE3, TRUE3, UNKNOWN3 = 0, 1, 2


@dataclass
class Val:
    """A symbolic stack entry: a tagged value (t, n, d) or a boolean (b)."""

    t: str = ""
    n: str = ""
    d: str = "1"
    b: str | None = None

    @property
    def one(self) -> bool:
        return self.d == "1"


class Emitter:
    """Straight-line Numba source for expressions over tagged values: constants, arithmetic, comparisons
    and boolean logic under the query's null logic. Leaves (attributes, aggregates) are the language's:
    this class emits SASE+'s from the postfix tables, reading run rows laid out as `layout` says (`hdr`, `aggw`:
    e.g. cepkit.optimized.nfab.layout.ROW); optimized/sql/exprgen.py emits SQL's row navigation."""

    text_order = False   # whether text operands may be ordered (< <= > >=): their codes then follow text order

    def __init__(self, tables: dict[str, np.ndarray], n: int, null_logic: str = "two_valued", layout: Any = None):
        if null_logic not in GENERATED_LOGICS:   # FormulaCompiler refuses such a query before this
            raise ValueError(f"generated formulas implement the {GENERATED_LOGICS} null logics, not {null_logic!r}")
        self.t = tables
        self.n = n
        self.layout = layout
        self.three = null_logic == "three_valued"
        # a comparison with NULL: false (two-valued), unknown (three-valued)
        self.null_cmp = str(UNKNOWN3) if self.three else "False"
        self.lines: list[str] = []
        self.k = 0

    def tmp(self, prefix: str = "v") -> str:
        self.k += 1
        return f"{prefix}{self.k}"

    def emit(self, line: str, indent: int) -> None:
        self.lines.append("    " * indent + line)

    # ------------------------------------------------------------------ one clause
    def clause(self, s: int, e: int, bound: int, ind: int) -> str:
        """Statements computing the clause; returns the name of its boolean."""
        ops = self.t["ops"]
        stack: list[Val] = []
        for i in range(s, e):
            op, a, b, c = (int(x) for x in ops[i])
            if op == OP_CONST:
                tag, num, den = (int(x) for x in self.t["consts"][a])
                stack.append(Val(str(tag), str(num), str(den)))
            elif op == OP_ATTR:
                stack.append(self.attr(a, b, c, bound, ind))
            elif op == OP_LEN:
                stack.append(Val(str(NUM), f"R[pl, ix, {self.layout.hdr + 3 * a + 2}]" if a >= 0 else "0"))
            elif op == OP_AGG:
                stack.append(self.agg(a, b, ind))
            elif op == OP_BIN:
                y, x = stack.pop(), stack.pop()
                stack.append(self.binop(a, self.value(x, ind), self.value(y, ind), ind))
            elif op == OP_NEG:
                x = self.value(stack.pop(), ind)
                stack.append(Val(x.t, f"sub64(0, {x.n})", x.d))
            elif op == OP_CMP:
                y, x = stack.pop(), stack.pop()
                stack.append(self.compare(a, self.value(x, ind), self.value(y, ind), ind))
            elif op in (OP_AND, OP_OR):
                items = stack[len(stack) - a:]
                del stack[len(stack) - a:]
                stack.append(self.logic(op == OP_AND, items, ind))
            elif op == OP_NOT:
                stack.append(self.negation(stack.pop(), ind))
        return self.holds(stack.pop(), ind)

    def holds(self, v: Val, ind: int) -> str:
        """The name of a boolean: whether the condition `v` holds (three-valued: only when it is true)."""
        name = self.tmp("c")
        self.emit(f"{name} = {self.truth(v)}" + (f" == {TRUE3}" if self.three else ""), ind)
        return name

    def logic(self, conjunction: bool, items: list[Val], ind: int) -> Val:
        """AND / OR of truth values (three-valued: Kleene's logic)."""
        truths = [self.truth(v) for v in items]
        name = self.tmp("b")
        if not self.three:
            joiner = " and " if conjunction else " or "
            self.emit(f"{name} = {joiner.join(truths) if truths else ('True' if conjunction else 'False')}", ind)
            return Val(b=name)
        decisive, other = (FALSE3, TRUE3) if conjunction else (TRUE3, FALSE3)
        self.emit(f"{name} = {other}", ind)
        for x in truths:
            self.emit(f"if {x} == {decisive}:", ind)
            self.emit(f"    {name} = {decisive}", ind)
            self.emit(f"elif {x} == {UNKNOWN3} and {name} != {decisive}:", ind)
            self.emit(f"    {name} = {UNKNOWN3}", ind)
        return Val(b=name)

    def negation(self, v: Val, ind: int) -> Val:
        name = self.tmp("b")
        if self.three:
            x = self.truth(v)
            self.emit(f"{name} = {UNKNOWN3} if {x} == {UNKNOWN3} else {TRUE3} - {x}", ind)
        else:
            self.emit(f"{name} = not {self.truth(v)}", ind)
        return Val(b=name)

    def value(self, v: Val, ind: int) -> Val:
        if v.b is None:
            return v
        name = self.tmp()
        self.emit(f"{name} = 1 if {v.b} else 0", ind)
        return Val(str(NUM), name, "1")

    def truth(self, v: Val) -> str:
        """An expression for v's truth value (three-valued: an int, UNKNOWN3 for null)."""
        if v.b is not None:
            return v.b
        if self.three:
            return f"({UNKNOWN3} if {v.t} == {NULL} else ({TRUE3} if {v.n} != 0 else {FALSE3}))"
        if v.t == str(NUM):
            return f"({v.n} != 0)"
        return f"(({v.t} == {NUM} or {v.t} == {STR}) and {v.n} != 0)"

    def attr(self, mode: int, k: int, slot: int, bound: int, ind: int) -> Val:
        t, n = self.tmp("t"), self.tmp()
        if mode == M_CUR:
            self.emit(f"{t} = vt[{slot}, q]", ind)
            self.emit(f"{n} = vn[{slot}, q]", ind)
            return Val(t, n)
        if mode not in (M_FIRSTB, M_FIRST_OR_CUR, M_LASTB) or k < 0:
            return Val(str(NULL), "0")
        hdr = self.layout.hdr
        col = hdr + 3 * k + (1 if mode == M_LASTB else 0)
        if k < bound:  # always bound on this edge
            x = self.tmp("x")
            self.emit(f"{x} = R[pl, ix, {col}] - base", ind)
            self.emit(f"{t} = vt[{slot}, {x}]", ind)
            self.emit(f"{n} = vn[{slot}, {x}]", ind)
            return Val(t, n)
        self.emit(f"if R[pl, ix, {hdr + 3 * k + 2}] > 0:", ind)
        self.emit(f"    {t} = vt[{slot}, R[pl, ix, {col}] - base]", ind)
        self.emit(f"    {n} = vn[{slot}, R[pl, ix, {col}] - base]", ind)
        self.emit("else:", ind)
        if mode == M_FIRST_OR_CUR:
            self.emit(f"    {t} = vt[{slot}, q]", ind)
            self.emit(f"    {n} = vn[{slot}, q]", ind)
        else:
            self.emit(f"    {t} = {NULL}", ind)
            self.emit(f"    {n} = 0", ind)
        return Val(t, n)

    def agg(self, func: int, slot: int, ind: int) -> Val:
        if slot < 0:
            return Val(str(NUM), "0") if func == 1 else Val(str(NULL), "0")
        o = self.layout.hdr + 3 * self.n + self.layout.aggw * slot
        cnt = f"R[pl, ix, {o + 2}]"
        if func == 1:
            return Val(str(NUM), cnt)
        t = self.tmp("t")
        self.emit(f"{t} = {NUM} if {cnt} > 0 else {NULL}", ind)
        if func == 0:
            return Val(t, f"R[pl, ix, {o}]")
        if func == 2:
            return Val(t, f"R[pl, ix, {o}]", f"max({cnt}, 1)")
        return Val(t, f"R[pl, ix, {o + 3}]" if func == 3 else f"R[pl, ix, {o + 5}]")

    def binop(self, op: int, x: Val, y: Val, ind: int) -> Val:
        t, n, d = self.tmp("t"), self.tmp(), self.tmp("d")
        self.emit(f"{t} = {NUM} if ({x.t} == {NUM} and {y.t} == {NUM}) else {NULL}", ind)
        if op in (0, 1):
            fn = "add64" if op == 0 else "sub64"
            if x.one and y.one:
                self.emit(f"{n} = {fn}({x.n}, {y.n})", ind)
                return Val(t, n)
            self.emit(f"{n} = {fn}(mul64({x.n}, {y.d}), mul64({y.n}, {x.d}))", ind)
            self.emit(f"{d} = mul64({x.d}, {y.d})", ind)
            return Val(t, n, d)
        if op == 2:
            if x.one and y.one:
                self.emit(f"{n} = mul64({x.n}, {y.n})", ind)
                return Val(t, n)
            self.emit(f"{n} = mul64({x.n}, {y.n})", ind)
            self.emit(f"{d} = mul64({x.d}, {y.d})", ind)
            return Val(t, n, d)
        # / and %: null on a zero divisor; denominators stay positive
        self.emit(f"if {y.n} == 0:", ind)
        self.emit(f"    {t} = {NULL}", ind)
        self.emit(f"    {n} = 0", ind)
        self.emit(f"    {d} = 1", ind)
        self.emit("else:", ind)
        if op == 3:
            self.emit(f"    {n} = mul64({x.n}, {y.d})", ind)
            self.emit(f"    {d} = mul64({x.d}, {y.n})", ind)
            self.emit(f"    if {d} < 0:", ind)
            self.emit(f"        {n} = -{n}", ind)
            self.emit(f"        {d} = -{d}", ind)
        else:
            self.emit(f"    {n} = mul64({x.n}, {y.d}) % mul64({y.n}, {x.d})", ind)
            self.emit(f"    {d} = mul64({x.d}, {y.d})", ind)
        return Val(t, n, d)

    def compare(self, op: int, x: Val, y: Val, ind: int) -> Val:
        name = self.tmp("b")
        py = CMP_PY[op]
        lhs = x.n if y.one else f"mul64({x.n}, {y.d})"
        rhs = y.n if x.one else f"mul64({y.n}, {x.d})"
        self.emit(f"if {x.t} == {NULL} or {y.t} == {NULL}:", ind)
        self.emit(f"    {name} = {self.null_cmp}", ind)
        self.emit(f"elif {x.t} != {y.t}:", ind)
        self.emit(f"    {name} = {self._bool(str(op == 1))}", ind)
        self.emit(f"elif {x.t} == {STR}:", ind)
        text = py if self.text_order else ("==" if op == 0 else "!=")
        self.emit(f"    {name} = {self._bool(f'{x.n} {text} {y.n}')}", ind)
        self.emit("else:", ind)
        self.emit(f"    {name} = {self._bool(f'{lhs} {py} {rhs}')}", ind)
        return Val(b=name)

    def _bool(self, expr: str) -> str:
        """A Python boolean expression as this logic's truth value."""
        return f"({TRUE3} if {expr} else {FALSE3})" if self.three else expr


def formulas_source(tables: dict[str, np.ndarray], n: int, n_neg: int, null_logic: str = "two_valued", *,
                    layout: Any) -> str:
    """The generated `holds(fid, ...)`: one branch per edge formula, clauses in order, each counted, under
    the query's null logic, on run rows laid out as `layout` says (`hdr`, `aggw`)."""
    em = Emitter(tables, n, null_logic, layout)
    em.emit("@njit(cache=True)", 0)
    em.emit("def holds(fid, R, pl, ix, p, T, E, base, n, stk, cnt):", 0)
    em.emit("vn = E[2]", 1)
    em.emit("vt = E[4]", 1)
    em.emit("q = p - base", 1)
    for fid, (cs, ce) in enumerate(tables["formulas"]):
        if cs == ce:
            continue
        kind, j = divmod(fid, n) if fid < 3 * n else (3, fid - 3 * n)
        bound = {0: j, 1: j + 1, 2: j + 1, 3: n}[kind]
        em.emit(f"if fid == {fid}:", 1)
        for c in range(int(cs), int(ce)):
            em.emit("cnt[1] += 1", 2)
            s, e = (int(x) for x in tables["clauses"][c])
            name = em.clause(s, e, bound, 2)
            em.emit(f"if not {name}:", 2)
            em.emit("return False", 3)
        em.emit("return True", 2)
    em.emit("return True", 1)
    return "\n".join(em.lines) + "\n"

