"""Numba source for an AFA's fences and transfers, from the expression AST (front/afa/expr.py).

The shared nodes (constants, arithmetic, comparisons, AND / OR / NOT under two-valued logic) are emitted by
optimized/codegen.py `Emitter`; this module adds the AFA's leaves: `e.<attr>` (a slot of the event rows
E), `r.<field>` (a field of the node rows R) and `p.<name>` (a constant). Values
are tagged exact rationals (cepkit.optimized.values: NUM / NULL / STR, numerator, denominator); text is a code in
the program's text dictionary (`Texts`), so it compares for equality exactly.

The generated function `fire(a, ev, E, src, dst, R, C)` evaluates arc `a`'s fence on event row `ev` of E (-1
for an epsilon-arc) and node `src`'s register (a row of R); when it holds, it writes the transferred register
into node `dst` (normalized) and returns 1, else 0. Constructs it cannot run exactly are refused by name.

Constants (literals and `p.<name>`) are data: each occurrence reads its own element of the kernel's scalars S
past the kernel's own (S[CONSTANTS + k]: a number's numerator, then its denominator for a fraction, a text's
code, a truth value as 1 / 0), which the program fills (optimized/afa/state.py); `C` is the address of S
(optimized/afa/constants.py). The source depends on the AFA's shape (its arcs' expressions, which constants
are fractions, text, truth values or null, the order its event attributes are first read in), never on a
constant's value, an attribute's, register field's, arc's or state's name, or the window: an AFA that
differs only in those loads the cached `fire` (optimized/cache.py keys modules by source).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

from numba import types

from cepkit.optimized.bytecode import BIN_OPS, CMP_OPS, INT64_MAX, NULL, NUM, STR, numeric_text
from cepkit.optimized.codegen import Emitter, Val
from cepkit.core.errors import Unsupported
from cepkit.front.language import ast as A

ENGINE = "optimized"
_I64 = types.Array(types.int64, 2, "C")
# the signature every generated `fire` has: the kernel calls it as a first-class function (compiled once)
FIRE_SIG = types.int64(types.int64, types.int64, _I64, types.int64, types.int64, _I64, types.int64)
CONSTANTS = 16   # S[:CONSTANTS] are the kernel's scalars (kernel.py names them), the AFA's constants follow
HEAD = 3    # node rows: StartLE, MinRE, state, then (tag, numerator, denominator) per register field
EHEAD = 5   # event rows: LE, RE, payload hash, seq, whether seq is given, then (tag, num, den) per slot


def refuse(construct: str, node: Any = None, line: Any = None, column: Any = None) -> Unsupported:
    pos = getattr(node, "pos", None)
    if pos is not None and getattr(pos, "line", 0):
        line, column = (line or 1) + pos.line - 1, pos.column if pos.line > 1 else (column or 1) + pos.column - 1
    return Unsupported(ENGINE, construct, line or None, column or None)


class Texts:
    """Text values as codes: one dictionary per program, constants first (their codes are data, in S)."""

    def __init__(self) -> None:
        self.values: list[str] = []
        self.codes: dict[str, int] = {}

    def code(self, s: str) -> int:
        c = self.codes.get(s)
        if c is None:
            c = self.codes[s] = len(self.values)
            self.values.append(s)
        return c


class AfaEmitter(Emitter):
    """Emits the body of `fire`, one arc at a time."""

    def __init__(self, slots: dict[str, int], schema: tuple[str, ...], params: dict, texts: Texts,
                 constants: list[int] | None = None):
        super().__init__({}, 0, "two_valued")
        self.slots = slots
        self.schema = schema
        self.params = params
        self.texts = texts
        self.constants = [] if constants is None else constants   # S[CONSTANTS:], in the order read
        self.where: tuple[Any, Any] = (None, None)

    def constant(self, value: int) -> str:
        """The source reading a new element of S holding the int64 `value` (each occurrence its own)."""
        self.constants.append(value)
        return f"peek(C, {CONSTANTS + len(self.constants) - 1})"

    def refuse(self, construct: str, node: Any) -> Unsupported:
        return refuse(construct, node, *self.where)

    def expr(self, e: Any, ind: int) -> Val:
        if isinstance(e, A.Const):
            return self.const(e.value, e)
        if isinstance(e, A.BinOp):
            x, y = self.number(e.left, ind), self.number(e.right, ind)
            return self.binop(BIN_OPS[e.op], x, y, ind)
        if isinstance(e, A.Neg):
            x = self.number(e.operand, ind)
            return Val(x.t, f"sub64(0, {x.n})", x.d)
        if isinstance(e, A.Compare):
            x, y = self.expr(e.left, ind), self.expr(e.right, ind)
            if x.b is not None or y.b is not None:
                raise self.refuse("a comparison of truth values", e)
            if e.op not in ("=", "!=") and STR in (self.static_tag(e.left), self.static_tag(e.right)):
                raise self.refuse("an ordering comparison of text", e)
            return self.compare(CMP_OPS[e.op], x, y, ind)
        if isinstance(e, (A.And, A.Or)):
            return self.logic(isinstance(e, A.And), [self.boolean(x, ind) for x in e.items], ind)
        if isinstance(e, A.Not):
            return self.negation(self.boolean(e.operand, ind), ind)
        if isinstance(e, A.AttrRef):
            return self.leaf(e, ind)
        raise self.refuse(f"{type(e).__name__} in an AFA expression", e)

    def static_tag(self, e: Any) -> int | None:
        if isinstance(e, A.Const) and isinstance(e.value, str) and numeric_text(e.value) is None:
            return STR
        if isinstance(e, A.AttrRef) and e.var == "p" and isinstance(self.params.get(e.attr), str):
            return STR if numeric_text(self.params[e.attr]) is None else None
        return None

    def boolean(self, e: Any, ind: int) -> Val:
        v = self.expr(e, ind)
        if v.b is None:
            raise self.refuse("a value used as a truth value", e)
        return v

    def number(self, e: Any, ind: int) -> Val:
        v = self.expr(e, ind)
        if v.b is not None:
            raise self.refuse("arithmetic on a truth value", e)
        if self.static_tag(e) == STR:
            raise self.refuse("arithmetic on text", e)
        return v

    def const(self, value: Any, node: Any) -> Val:
        """A constant as data (elements of S); its kind (number, fraction, text, truth value, null) is the source's."""
        if isinstance(value, bool):
            return Val(b=f"({self.constant(1 if value else 0)} != 0)")
        if value is None:
            return Val(str(NULL), "0")
        if isinstance(value, str):
            num = numeric_text(value)   # text that reads as a number is that number
            if num is None:
                return Val(str(STR), self.constant(self.texts.code(value)))
            value = num
        if not isinstance(value, (int, Fraction)):
            raise self.refuse(f"the constant {value!r}", node)
        value = Fraction(value)
        if abs(value.numerator) > INT64_MAX or value.denominator > INT64_MAX:
            raise self.refuse(f"the constant {value} (beyond 64-bit integers)", node)
        n = self.constant(value.numerator)
        if value.denominator == 1:
            return Val(str(NUM), n)   # denominator "1": the integer fast paths (Val.one) stay
        return Val(str(NUM), n, self.constant(value.denominator))

    def leaf(self, e: A.AttrRef, ind: int) -> Val:
        if e.var == "p":
            return self.const(self.params[e.attr], e)
        t, n, d = self.tmp("t"), self.tmp(), self.tmp("d")
        if e.var == "e":
            row, A, c = "ev", "E", EHEAD + 3 * self.slots.setdefault(e.attr, len(self.slots))
        else:
            row, A, c = "src", "R", HEAD + 3 * self.schema.index(e.attr)
        self.emit(f"{t} = {A}[{row}, {c}]", ind)
        self.emit(f"{n} = {A}[{row}, {c + 1}]", ind)
        self.emit(f"{d} = {A}[{row}, {c + 2}]", ind)
        return Val(t, n, d)

    # ------------------------------------------------------------------ one arc
    def arc(self, a: int, fence: Any, assign: dict, ind: int) -> None:
        self.emit(f"if a == {a}:", ind)
        ind += 1
        if fence is not None:
            c = self.holds(self.boolean(fence, ind), ind)
            self.emit(f"if not {c}:", ind)
            self.emit("return 0", ind + 1)
        out = []
        for k, f in enumerate(self.schema):
            x = assign.get(f)
            if x is None:
                out.append(None)
                continue
            v = self.expr(x, ind)
            if v.b is not None:
                raise self.refuse("a truth value as a register value", x)
            out.append(v)
        for k, v in enumerate(out):
            c = HEAD + 3 * k
            if v is None:
                for x in range(c, c + 3):
                    self.emit(f"R[dst, {x}] = R[src, {x}]", ind)
            else:
                self.emit(f"store(R, dst, {c}, {v.t}, {v.n}, {v.d})", ind)
        self.emit("return 1", ind)


HEADER = '''"""Generated by optimized/afa/exprgen.py for the AFAs of one shape; do not edit.

Constants are data (S[CONSTANTS:], at address C), names are slots: every AFA of this shape shares this module.
"""
from numba import njit

from cepkit.optimized.afa.arith import add64, mul64, sub64
from cepkit.optimized.afa.constants import peek
from cepkit.optimized.afa.exprgen import FIRE_SIG
from cepkit.optimized.afa.registers import store

'''


def fire_source(afa: Any, texts: Texts, slots: dict[str, int], arcs: list, constants: list[int] | None = None) -> str:
    """The module source of `fire` for the AFA's arcs (in `arcs` order); the constants it reads are appended
    to `constants` (they go to S[CONSTANTS:]), the event attributes it reads to `slots`."""
    schema = tuple(afa.schema or ())
    em = AfaEmitter(slots, schema, {}, texts, constants)
    em.emit("@njit(FIRE_SIG, cache=True)", 0)
    em.emit("def fire(a, ev, E, src, dst, R, C):", 0)
    for k, arc in enumerate(arcs):
        text = arc.text or {}
        em.params = text.get("params") or {}
        em.where = (text.get("line"), text.get("column"))
        if (arc.fence is not None and text.get("fence_expr") is None) or \
                (arc.transfer is not None and not text.get("transfer_expr")):
            raise refuse(f"arc '{arc.name}' built in Python (fences and transfers must be expressions)")
        em.arc(k, text.get("fence_expr"), text.get("transfer_expr") or {}, 1)
    em.emit("return 0", 1)
    return HEADER + "\n".join(em.lines) + "\n"
