"""Translate NFA^b edge formulas into flat tables for the Numba kernel: postfix clause code over
exact rational values, the constant pool, aggregate slots and attribute slots.

Values in the kernel are (tag, numerator, denominator): tag NUM (denominator > 0, reduced), NULL, or
STR (numerator = the string's dictionary code). Constructs that cannot be made exact this way are
refused here by name (`Unsupported`).

Conditions are evaluated under the query's null logic (`Conventions.null_logic`, read here once per
query): the kernel implements the two-valued logic (a comparison with NULL is false, then ordinary
boolean logic) and a query under another null logic is refused.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from cepkit.core.errors import Unsupported
from cepkit.front.language import ast as A
from cepkit.front.nfab.compile import Formula, NFAb

NUM, NULL, STR = 0, 1, 2

# opcodes: row [op, a, b, c]
OP_CONST, OP_ATTR, OP_LEN, OP_AGG, OP_BIN, OP_NEG, OP_CMP, OP_AND, OP_OR, OP_NOT = range(10)
# attribute modes: which event of a variable a reference reads (resolved per edge, see evaluate._attr_pos)
M_CUR, M_FIRSTB, M_FIRST_OR_CUR, M_LASTB, M_NULL = range(5)
AGG_FUNCS = {"sum": 0, "count": 1, "avg": 2, "min": 3, "max": 4}
BIN_OPS = {"+": 0, "-": 1, "*": 2, "/": 3, "%": 4}
CMP_OPS = {"=": 0, "!=": 1, "<": 2, "<=": 3, ">": 4, ">=": 5}
ORDERING = {"<", "<=", ">", ">="}
INT64_MAX = 2**63 - 1
NULL_LOGICS = ("two_valued",)   # the null logics the kernel and the generated formulas implement

ENGINE = "optimized"


def _refuse(construct: str, node) -> Unsupported:
    pos = getattr(node, "pos", None)
    return Unsupported(ENGINE, construct, (pos.line or None) if pos else None, (pos.column or None) if pos else None)


@dataclass
class Tables:
    """Everything the kernel needs to know about a query, as numpy arrays (built once per query)."""

    attrs: list[str]                         # attribute slot -> name
    strings: dict[str, int]                  # the string dictionary (shared with the event store)
    consts: list[tuple[int, int, int]] = field(default_factory=list)   # (tag, num, den)
    aggs: list[tuple[int, int]] = field(default_factory=list)          # (component, attr slot)
    ops: list[tuple[int, int, int, int]] = field(default_factory=list)
    clause_bounds: list[tuple[int, int]] = field(default_factory=list)  # ops range of each clause
    formula_bounds: list[tuple[int, int]] = field(default_factory=list)  # clause range of each formula

    def attr_slot(self, name: str) -> int:
        return self.attrs.index(name)

    def agg_slot(self, comp: int, attr: str) -> int:
        key = (comp, self.attr_slot(attr))
        if key not in self.aggs:
            self.aggs.append(key)
        return self.aggs.index(key)

    def const(self, value, node) -> int:
        if isinstance(value, bool):
            item = (NUM, int(value), 1)
        elif isinstance(value, int):
            item = (NUM, value, 1)
        elif isinstance(value, Fraction):
            item = (NUM, value.numerator, value.denominator)
        elif isinstance(value, str):
            num = numeric_text(value)
            item = (NUM, num.numerator, num.denominator) if num is not None else (STR, string_code(self.strings, value), 1)
        else:
            raise _refuse(f"the constant {value!r}", node)
        if item[0] == NUM and not (abs(item[1]) <= INT64_MAX and item[2] <= INT64_MAX):
            raise _refuse(f"the constant {value!r} (beyond 64-bit integers)", node)
        self.consts.append(item)
        return len(self.consts) - 1


def string_code(strings: dict[str, int], s: str) -> int:
    """The dictionary code of a string (the empty string is code 0, so truth is code != 0)."""
    code = strings.get(s)
    if code is None:
        code = strings[s] = len(strings)
    return code


def _no_text_constant(e, construct: str) -> None:
    """Refuse (by `construct`) a binary node with an operand that is a text constant not reading as a number."""
    for side in (e.left, e.right):
        if isinstance(side, A.Const) and isinstance(side.value, str) and numeric_text(side.value) is None:
            raise _refuse(construct, side)


def numeric_text(s: str) -> Fraction | None:
    """A string that reads as a number compares as that number (evaluate.as_number)."""
    try:
        return Fraction(s.strip()) if s.strip() else None
    except (ValueError, ZeroDivisionError):
        return None


class FormulaCompiler:
    """Compiles the formulas of one NFA^b into Tables; formula ids are assigned in call order."""

    def __init__(self, nfa: NFAb, attrs: list[str], strings: dict[str, int]):
        self.nfa = nfa
        self.null_logic = nfa.query.conventions.null_logic
        if self.null_logic not in NULL_LOGICS:
            raise _refuse(f"{self.null_logic.replace('_', '-')} null logic (the kernel evaluates two-valued "
                          f"conditions)", nfa.query)
        self.index = {c.var: j for j, c in enumerate(nfa.components)}
        self.negated = {neg.component.var for neg in nfa.negations}
        self.t = Tables(attrs=attrs, strings=strings)

    def formula(self, f: Formula | None, current: str | None) -> int:
        """Add a formula (its clauses; the type check is the kernel's) evaluated with `current` the
        variable of the tested event; returns its id."""
        start = len(self.t.clause_bounds)
        for clause in (f.clauses if f is not None else ()):
            begin = len(self.t.ops)
            self._emit(clause, current)
            self.t.clause_bounds.append((begin, len(self.t.ops)))
        self.t.formula_bounds.append((start, len(self.t.clause_bounds)))
        return len(self.t.formula_bounds) - 1

    # ------------------------------------------------------------------ expressions
    def _emit(self, e: A.Expr, cur: str | None) -> None:
        ops = self.t.ops
        if isinstance(e, A.Const):
            ops.append((OP_CONST, self.t.const(e.value, e), 0, 0))
        elif isinstance(e, A.AttrRef):
            ops.append((OP_ATTR, *self._attr(e, cur)))
        elif isinstance(e, A.LenRef):
            ops.append((OP_LEN, self.index.get(e.var, -1), 0, 0))
        elif isinstance(e, A.Agg):
            k = self.index.get(e.var, -1)
            slot = self.t.agg_slot(k, e.attr) if k >= 0 else -1
            ops.append((OP_AGG, AGG_FUNCS[e.func], slot, 0))
        elif isinstance(e, A.BinOp):
            _no_text_constant(e, "arithmetic on a text constant")
            self._emit(e.left, cur)
            self._emit(e.right, cur)
            ops.append((OP_BIN, BIN_OPS[e.op], 0, 0))
        elif isinstance(e, A.Neg):
            self._emit(e.operand, cur)
            ops.append((OP_NEG, 0, 0, 0))
        elif isinstance(e, A.Compare):
            if e.op in ORDERING:
                _no_text_constant(e, "an ordering comparison with a text constant")
            self._emit(e.left, cur)
            self._emit(e.right, cur)
            ops.append((OP_CMP, CMP_OPS[e.op], 0, 0))
        elif isinstance(e, (A.And, A.Or)):
            for item in e.items:
                self._emit(item, cur)
            ops.append((OP_AND if isinstance(e, A.And) else OP_OR, len(e.items), 0, 0))
        elif isinstance(e, A.Not):
            self._emit(e.operand, cur)
            ops.append((OP_NOT, 0, 0, 0))
        else:
            raise _refuse(type(e).__name__, e)

    def _attr(self, ref: A.AttrRef, cur: str | None) -> tuple[int, int, int]:
        slot = self.t.attr_slot(ref.attr)
        k = self.index.get(ref.var, -1)
        is_cur = ref.var == cur
        if ref.index is None or ref.index is A.Index.CURRENT:
            mode = M_CUR if is_cur else M_FIRSTB
        elif ref.index is A.Index.FIRST:
            mode = M_FIRST_OR_CUR if is_cur else M_FIRSTB
        else:
            mode = M_LASTB
        if k < 0 and mode != M_CUR:
            mode = M_NULL  # a negated variable other than the tested one is never bound
        return mode, k, slot

    def arrays(self) -> dict[str, np.ndarray]:
        t = self.t

        def arr(rows, width):
            return np.asarray(rows, dtype=np.int64).reshape(-1, width) if rows else np.zeros((0, width), np.int64)

        consts = arr(t.consts, 3)
        return {
            "ops": arr(t.ops, 4),
            "clauses": arr(t.clause_bounds, 2),
            "formulas": arr(t.formula_bounds, 2),
            "consts": consts,
            "aggs": arr(t.aggs, 2),
        }
