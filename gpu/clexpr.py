"""OpenCL C generation from the expression AST (cepkit.front.language.ast + cepkit.front.sql.ast), exact as the
reference: the query's null logic, exact comparison of int64 with float64, text as sorted dictionary
codes, int64 + - * % and unary minus with overflow detection, constants folded by the reference.

The null logic is the query's convention (`Conventions.null_logic`, read once when the code is
generated): under "three_valued" (SQL) a generated truth value is a C int 0 false, 1 true, 2 unknown;
under "two_valued" (SASE, TPStream; cepkit.front.evaluate's two-valued rules) it is 0 or 1: a comparison
with a null is false, AND/OR/NOT take their operands' truth (null false, numbers nonzero, text
nonempty). Leaf references (column references, navigation, ...) are the caller's: `resolve(node)`
returns their Operand or raises Unsupported. Everything that cannot be generated exactly raises
cepkit.errors.Unsupported at compile time.
"""
from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

from cepkit.core.errors import Unsupported
from cepkit.front.evaluate import as_number
from cepkit.front.language import ast as A
from cepkit.front.sql import ast as S
from cepkit.reference.sql.exprs import Ctx, evaluate

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "=", "!=": "!="}

PRELUDE = r"""
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* cepkit: three-valued logic (0 false, 1 true, 2 unknown), exact comparisons, checked int64 arithmetic */
int cepkit_and(int a, int b) { return (a == 0 || b == 0) ? 0 : ((a == 1 && b == 1) ? 1 : 2); }
int cepkit_or(int a, int b) { return (a == 1 || b == 1) ? 1 : ((a == 0 && b == 0) ? 0 : 2); }
int cepkit_not(int a) { return a == 2 ? 2 : 1 - a; }
int cepkit_truth(int null_, int v) { return null_ ? 2 : (v != 0); }
int cepkit_cmp_ll(long a, long b) { return (a > b) - (a < b); }
int cepkit_cmp_dd(double a, double b) { return (a > b) - (a < b); }
/* exact sign of a - b for an int64 a and a (non-NaN) float64 b */
int cepkit_cmp_ld(long a, double b) {
    if (b >= 0x1p63) return -1;
    if (b < -0x1p63) return 1;
    long t = (long)b;
    if (a != t) return a < t ? -1 : 1;
    double f = b - (double)t;
    return f > 0.0 ? -1 : (f < 0.0 ? 1 : 0);
}
long cepkit_add(long a, long b, int ok, __global int *err) {
    long r = (long)((ulong)a + (ulong)b);
    if (ok && ((a ^ r) & (b ^ r)) < 0) *err = 1;
    return r;
}
long cepkit_sub(long a, long b, int ok, __global int *err) {
    long r = (long)((ulong)a - (ulong)b);
    if (ok && ((a ^ b) & (a ^ r)) < 0) *err = 1;
    return r;
}
long cepkit_mul(long a, long b, int ok, __global int *err) {
    long lo = (long)((ulong)a * (ulong)b);
    long hi = mul_hi(a, b);
    if (ok && hi != (lo >> 63)) *err = 1;
    return lo;
}
long cepkit_neg(long a, int ok, __global int *err) {
    if (ok && a == LONG_MIN) *err = 1;
    return (long)(0UL - (ulong)a);
}
/* the sign of a/b - c/d (b, d nonzero) from exact 128-bit products: no overflow */
int cepkit_cmp_q(long a, long b, long c, long d) {
    long h1 = mul_hi(a, d), h2 = mul_hi(c, b);
    ulong l1 = (ulong)a * (ulong)d, l2 = (ulong)c * (ulong)b;
    int s = h1 != h2 ? (h1 < h2 ? -1 : 1) : (l1 != l2 ? (l1 < l2 ? -1 : 1) : 0);
    return ((b < 0) != (d < 0)) ? -s : s;
}
/* Python's % (floored); b == 0 is null and handled by the caller */
long cepkit_mod(long a, long b) {
    if (b == 0 || b == -1) return 0;
    long r = a % b;
    return (r != 0 && ((r ^ b) < 0)) ? r + b : r;
}
"""


@dataclass(frozen=True)
class Operand:
    """What a value becomes in C: `code` of `kind` 'long' | 'double' | 'code' (an index into the sorted
    `dictionary`) | 'ratio' (the exact quotient code / `den` of two int64 values, from '/'); `null` is a
    C expression true when the value is null (None: never null). `exact` (double only): the same value
    as an int64 quotient (a decimal column scaled by 10**k, or a decimal constant), for arithmetic.
    `number` (text only): the text read as a number (null where it is not one; None: no text of the
    column is a number), for text/number comparisons; `boolean`: a truth value or boolean column
    (no arithmetic on it, as the reference)."""

    code: str
    kind: str
    null: str | None = None
    dictionary: tuple[str, ...] | None = None
    number: "Operand | None" = None
    boolean: bool = False
    den: str | None = None
    exact: "Operand | None" = None


Resolve = Callable[[Any], Operand]
_CONST = object()


class _Gen:
    def __init__(self, resolve: Resolve, engine: str, null_logic: str = "three_valued"):
        if null_logic not in A.NULL_LOGICS:
            raise ValueError(f"null_logic must be one of {A.NULL_LOGICS}, not {null_logic!r}")
        self.resolve, self.engine = resolve, engine
        self.two_valued = null_logic == "two_valued"
        self.null_logic = null_logic

    def refuse(self, construct: str, node) -> Unsupported:
        pos = getattr(node, "pos", A.NOPOS)
        return Unsupported(self.engine, construct, pos.line or None, pos.column or None)

    # ------------------------------------------------------------------ constants
    def const(self, e):
        """The exact value of a subtree without leaf references (folded by the reference), else _CONST."""
        if isinstance(e, A.Const):
            return e.value
        if isinstance(e, (A.Compare, A.And, A.Or, A.Not, S.IsNull, A.BinOp, A.Neg)):
            kids = e.children()
            if all(self.const(k) is not _CONST for k in kids):
                return evaluate(e, Ctx([], (), (), -1, {}, null_logic=self.null_logic))
        return _CONST

    # ------------------------------------------------------------------ truth values
    def truth(self, e, item: str | None = None) -> str:
        """C int expression of e's truth value under the null logic (three_valued here, two_valued in
        `truth2`)."""
        if self.two_valued:
            return self.truth2(e)
        return self.truth3(e, item)

    def truth2(self, e) -> str:
        """C int expression, 0 or 1, as cepkit.front.evaluate's two-valued logic: a comparison with a null is
        false, NOT negates that, AND/OR take their items' truth (null false, numbers nonzero, text
        nonempty). Comparisons themselves are the three-valued ones, 1 only when TRUE."""
        c = self.const(e)
        if c is not _CONST:
            return "1" if c is not None and bool(c) else "0"
        if isinstance(e, (A.And, A.Or)):
            op = " && " if isinstance(e, A.And) else " || "
            return "(" + op.join(self.truth2(x) for x in e.items) + ")"
        if isinstance(e, A.Not):
            return f"(!{self.truth2(e.operand)})"
        if isinstance(e, A.Compare):
            for side in (e.left, e.right):
                if isinstance(side, (A.Compare, A.And, A.Or, A.Not)):
                    raise self.refuse("comparisons of conditions", side)
            return f"({self.compare(e)} == 1)"
        if isinstance(e, S.IsNull):
            return self.truth3(e)
        v = self.value(e)
        present = f"!({v.null})" if v.null else "1"
        if v.kind == "code":
            empty = (v.dictionary or ()).index("") if "" in (v.dictionary or ()) else None
            return present if empty is None else f"({present} && ({v.code}) != {empty})"
        zero = "0.0" if v.kind == "double" else "0"
        return f"({present} && ({v.code}) != {zero})"

    def truth3(self, e, item: str | None = None) -> str:
        """C int expression: 0 false, 1 true, 2 unknown. As the reference: a condition (and NOT's operand)
        is SQL-truthy (a number is true when nonzero, text when nonempty); an AND/OR item that is not a
        truth value is read as it is, so a non-null number or text counts as true in AND, false in OR."""
        c = self.const(e)
        if c is not _CONST:
            if c is None:
                return "2"
            if item == "and":
                return "0" if c is False else "1"
            if item == "or":
                return "1" if c is True else "0"
            return "1" if c else "0"
        if isinstance(e, (A.And, A.Or)):
            kind = "and" if isinstance(e, A.And) else "or"
            # a balanced tree of the (associative) Kleene AND / OR: a chain of n items nests log2(n)
            # calls, within OpenCL C's bracket-nesting limit (256 in clang)
            parts = [self.truth3(it, kind) for it in e.items]
            while len(parts) > 1:
                pairs = [f"cepkit_{kind}({a}, {b})" for a, b in zip(parts[::2], parts[1::2])]
                parts = pairs + parts[len(pairs) * 2:]
            return parts[0]
        if isinstance(e, A.Not):
            return f"cepkit_not({self.truth3(e.operand)})"
        if isinstance(e, S.IsNull):
            null = self.null_of(e.operand)
            return f"(({null}) ? {0 if e.negated else 1} : {1 if e.negated else 0})"
        if isinstance(e, A.Compare):
            return self.compare(e)
        v = self.value(e)
        null = v.null or 0
        if v.boolean:
            return f"cepkit_truth({null}, {v.code})"
        if item is not None:
            return f"(({null}) ? 2 : {int(item == 'and')})"
        if v.kind == "code":
            empty = bool(v.dictionary) and v.dictionary[0] == ""   # '' sorts first
            return f"cepkit_truth({null}, ({v.code}) != 0)" if empty else f"(({null}) ? 2 : 1)"
        return f"cepkit_truth({null}, ({v.code}) != 0)"

    def null_of(self, e) -> str:
        c = self.const(e)
        if c is not _CONST:
            return "1" if c is None else "0"
        if isinstance(e, (A.Compare, A.And, A.Or, A.Not, S.IsNull)):
            return f"({self.truth(e)} == 2)"
        return self.value(e).null or "0"

    # ------------------------------------------------------------------ values
    def value(self, e) -> Operand:
        c = self.const(e)
        if c is not _CONST:
            return self.const_operand(c, e)
        if isinstance(e, (A.Compare, A.And, A.Or, A.Not, S.IsNull)):
            t = self.truth(e)
            return Operand(f"({t} == 1)", "long", f"({t} == 2)", boolean=True)
        if isinstance(e, A.BinOp):
            return self.arith(e)
        if isinstance(e, A.Neg):
            v = self.numeric(e.operand, "unary minus")
            return self.negate(v)
        if isinstance(e, (S.SqlAgg, A.Agg)):
            raise self.refuse("aggregates in conditions", e)
        if isinstance(e, A.EquivTest):
            raise self.refuse("equivalence tests", e)
        return self.resolve(e)

    def negate(self, v: Operand) -> Operand:
        if v.kind == "double":   # exact: the decimal of -d is minus the decimal of d
            return Operand(f"(-({v.code}))", "double", v.null, exact=v.exact and self.negate(v.exact))
        return Operand(f"cepkit_neg({v.code}, !({v.null or 0}), cepkit_err)", v.kind, v.null, den=v.den)

    def const_operand(self, c, node) -> Operand:
        if c is None:
            return Operand("0L", "long", "1")
        if isinstance(c, bool):
            return Operand("1L" if c else "0L", "long", boolean=True)
        if isinstance(c, int):
            if not INT64_MIN <= c <= INT64_MAX:
                raise self.refuse("integer constants beyond int64", node)
            return Operand(_long(c), "long")
        if isinstance(c, Fraction):
            d = _float(c)
            fits = INT64_MIN <= c.numerator <= INT64_MAX and c.denominator <= INT64_MAX
            exact = Operand(_long(c.numerator), "ratio", den=_long(c.denominator)) if fits else None
            if exact_float(d) != c:
                if exact is None:
                    raise self.refuse("a number neither float64 nor an int64 quotient holds exactly", node)
                return exact
            return Operand(_double(d), "double", exact=exact)
        raise self.refuse("text constants outside comparisons", node)

    def numeric(self, e, what: str) -> Operand:
        v = self.value(e)
        if v.kind == "code":
            raise self.refuse(f"text in {what}", e)
        if v.boolean:
            raise self.refuse(f"a boolean in {what}", e)
        return v

    def arith(self, e: A.BinOp) -> Operand:
        a, b = self.numeric(e.left, f"'{e.op}'"), self.numeric(e.right, f"'{e.op}'")
        null = _or(a.null, b.null)
        if e.op in "/%":     # division by zero is null
            k = self.const(e.right)
            if k is not _CONST and k == 0:
                return Operand("0L", "long", "1")
            null = _or(null, f"(({b.code}) == 0)" if k is _CONST else None)
        ok = f"!({null or 0})"
        if a.kind == "long" and b.kind == "long":
            if e.op == "/":  # exact: kept as numerator and denominator
                return Operand(a.code, "ratio", null, den=b.code)
            if e.op == "%":
                return Operand(f"cepkit_mod({a.code}, {b.code})", "long", null)
            fn = {"+": "cepkit_add", "-": "cepkit_sub", "*": "cepkit_mul"}[e.op]
            return Operand(f"{fn}({a.code}, {b.code}, {ok}, cepkit_err)", "long", null)
        if e.op == "%":
            raise self.refuse("'%' on non-integers", e)
        x, y = self.rational(a, e.left), self.rational(b, e.right)

        def mul(p: str, q: str) -> str:
            lp, lq = _literal(p), _literal(q)
            if lp is not None and lq is not None:
                if not INT64_MIN <= lp * lq <= INT64_MAX:
                    raise self.refuse("decimal scales beyond int64", e)
                return _long(lp * lq)
            if lp == 1 or lq == 1:
                return q if lp == 1 else p
            return f"cepkit_mul({p}, {q}, {ok}, cepkit_err)"

        if e.op == "*":
            return Operand(mul(x.code, y.code), "ratio", null, den=mul(x.den, y.den))
        if e.op == "/":
            return Operand(mul(x.code, y.den), "ratio", null, den=mul(x.den, y.code))
        fn = "cepkit_add" if e.op == "+" else "cepkit_sub"
        if x.den == y.den:
            return Operand(f"{fn}({x.code}, {y.code}, {ok}, cepkit_err)", "ratio", null, den=x.den)
        num = f"{fn}({mul(x.code, y.den)}, {mul(y.code, x.den)}, {ok}, cepkit_err)"
        return Operand(num, "ratio", null, den=mul(x.den, y.den))

    def rational(self, v: Operand, node) -> Operand:
        """v as an int64 quotient (a long over 1; a float64 through its exact decimal form)."""
        if v.kind == "ratio":
            return v
        if v.kind == "long":
            return Operand(v.code, "ratio", v.null, den="(1L)")
        if v.exact is None:
            raise self.refuse("arithmetic on float64 values without a common int64 decimal scale", node)
        return v.exact

    # ------------------------------------------------------------------ comparisons
    def compare(self, e: A.Compare) -> str:
        op = e.op
        lc, rc = self.const(e.left), self.const(e.right)
        if lc is not _CONST:
            return self.compare_const(FLIP[op], self.value(e.right), lc, e)
        if rc is not _CONST:
            return self.compare_const(op, self.value(e.left), rc, e)
        a, b = self.value(e.left), self.value(e.right)
        null = _or(a.null, b.null)
        if a.kind == "code" and b.kind == "code":
            if a.dictionary != b.dictionary:
                raise self.refuse("comparing text columns that do not share a dictionary", e)
            body = f"(({a.code}) {_c(op)} ({b.code}))"
        elif a.kind == "code" or b.kind == "code":
            if a.kind != "code":
                a, b, op = b, a, FLIP[op]
            body = (str(int(op == "!=")) if a.number is None else  # no text of the column reads as a number
                    f"(({a.number.null or 0}) ? {int(op == '!=')} : ({self.cmp(a.number, b, e)} {_c(op)} 0))")
        else:
            body = f"({self.cmp(a, b, e)} {_c(op)} 0)"
        return f"(({null}) ? 2 : {body})" if null else body

    def compare_const(self, op: str, v: Operand, c, node) -> str:
        """`v op c` for an operand v and an exact constant c."""
        if c is None:
            return "2"
        c = int(c) if isinstance(c, bool) else c
        if isinstance(c, str) and v.kind == "code":
            body = _text_vs_const(op, v, c)
        elif isinstance(c, str):
            num = as_number(c)     # a quoted number compares as that number; other text only differs
            body = str(int(op == "!=")) if isinstance(num, str) else self.vs_number(op, v, num, node)
        elif v.kind == "code":
            n = v.number
            body = (str(int(op == "!=")) if n is None else
                    f"(({n.null or 0}) ? {int(op == '!=')} : {self.vs_number(op, Operand(n.code, n.kind), c, node)})")
        else:
            body = self.vs_number(op, v, c, node)
        return f"(({v.null}) ? 2 : {body})" if v.null else body

    def vs_number(self, op: str, v: Operand, q, node) -> str:
        """`v op q` for a numeric operand v and an exact number q."""
        if v.kind != "ratio":
            return _num_vs_const(op, v, q)
        q = Fraction(q)
        if not (INT64_MIN <= q.numerator <= INT64_MAX and q.denominator <= INT64_MAX):
            raise self.refuse("comparing a quotient with a number beyond int64", node)
        return f"(cepkit_cmp_q({v.code}, {v.den}, {_long(q.numerator)}, {_long(q.denominator)}) {_c(op)} 0)"

    def cmp(self, a: Operand, b: Operand, node) -> str:
        """C int: the sign of a - b for two numeric operands."""
        if a.kind == "ratio" or b.kind == "ratio":
            a, b = self.rational(a, node), self.rational(b, node)
            return f"cepkit_cmp_q({a.code}, {a.den}, {b.code}, {b.den})"
        return _cmp(a, b)


def _or(a: str | None, b: str | None) -> str | None:
    if a and b:
        return f"(({a}) || ({b}))"
    return a or b


def _c(op: str) -> str:
    return "==" if op == "=" else op


def _cmp(a: Operand, b: Operand) -> str:
    """C int: the sign of a - b for two numeric operands (long or double)."""
    if a.kind == "long" and b.kind == "long":
        return f"cepkit_cmp_ll({a.code}, {b.code})"
    if a.kind == "double" and b.kind == "double":
        return f"cepkit_cmp_dd({a.code}, {b.code})"
    if a.kind == "long":
        return f"cepkit_cmp_ld({a.code}, {b.code})"
    return f"(-cepkit_cmp_ld({b.code}, {a.code}))"


def _literal(code: str) -> int | None:
    """The value of a C integer literal written by _long, else None."""
    body = code[1:-2] if code.startswith("(") and code.endswith("L)") else ""
    return int(body) if body.lstrip("-").isdigit() else None


def _long(c: int) -> str:
    return "(-9223372036854775807L - 1L)" if c == INT64_MIN else f"({c}L)"


def _float(q) -> float:
    try:
        return float(q)
    except OverflowError:
        return math.inf if q > 0 else -math.inf


def exact_float(d: float):
    """The reference's exact value of a float64 (cepkit.core.events: integral floats are ints, others
    read back from their shortest repr)."""
    if math.isinf(d):
        return d
    return int(d) if d.is_integer() else Fraction(repr(d))


def _double(d: float) -> str:
    if math.isinf(d):
        return "INFINITY" if d > 0 else "(-INFINITY)"
    return f"({d.hex()})"


def _floor_le(q) -> tuple[int, bool]:
    f = math.floor(q)
    return f, f == q


def _num_vs_const(op: str, v: Operand, q) -> str:
    """`v op q` for a numeric operand v (long or double) and an exact number q, by thresholds."""
    if v.kind == "long":
        f, integral = _floor_le(q)
        le = _le_long(v.code, f)                       # v <= q
        lt = _le_long(v.code, f - 1 if integral else f)  # v < q
        eq = f"(({v.code}) == {_long(f)})" if integral and INT64_MIN <= f <= INT64_MAX else "0"
    else:
        lo = _float(q)
        while exact_float(lo) > q:
            lo = math.nextafter(lo, -math.inf)
        while lo != math.inf and exact_float(math.nextafter(lo, math.inf)) <= q:
            lo = math.nextafter(lo, math.inf)
        hit = exact_float(lo) == q
        le = f"(({v.code}) <= {_double(lo)})"
        lt = f"(({v.code}) < {_double(lo)})" if hit else le
        eq = f"(({v.code}) == {_double(lo)})" if hit else "0"
    return {"<=": le, "<": lt, ">": f"(!{le})", ">=": f"(!{lt})", "=": eq, "!=": f"(!{eq})"}[op]


def _le_long(code: str, k: int) -> str:
    if k >= INT64_MAX:
        return "1"
    if k < INT64_MIN:
        return "0"
    return f"(({code}) <= {_long(k)})"


def _text_vs_const(op: str, v: Operand, c: str) -> str:
    """`v op c` for dictionary codes v (sorted dictionary) and a text constant c."""
    d = v.dictionary or ()
    lo = bisect.bisect_left(d, c)
    found = lo < len(d) and d[lo] == c
    hi = lo + 1 if found else lo            # codes < lo are < c; codes >= hi are > c
    eq = f"(({v.code}) == {lo})" if found else "0"
    return {"<": f"(({v.code}) < {lo})", "<=": f"(({v.code}) < {hi})", ">": f"(({v.code}) >= {hi})",
            ">=": f"(({v.code}) >= {lo})", "=": eq, "!=": f"(!{eq})"}[op]


def _logic(conventions: A.Conventions | None) -> str:
    return A.SQL_CONVENTIONS.null_logic if conventions is None else conventions.null_logic


def predicate(expr, resolve: Resolve, engine: str = "gpu", conventions: A.Conventions | None = None) -> str:
    """C int expression: 1 when `expr` holds for the resolved operands under the query's conventions
    (None: SQL's) — TRUE; false, and unknown, give 0."""
    gen = _Gen(resolve, engine, _logic(conventions))
    t = gen.truth(expr)
    return t if gen.two_valued else f"({t} == 1)"


def truth(expr, resolve: Resolve, engine: str = "gpu", conventions: A.Conventions | None = None) -> str:
    """C int expression of `expr`'s truth value: 0 false, 1 true, 2 unknown (three-valued, the default
    and SQL's); 0 or 1 under a two-valued query."""
    return _Gen(resolve, engine, _logic(conventions)).truth(expr)


def value(expr, resolve: Resolve, engine: str = "gpu", conventions: A.Conventions | None = None) -> Operand:
    """The Operand computing `expr` (a number, a dictionary code, or a truth value as 0/1 with null)."""
    return _Gen(resolve, engine, _logic(conventions)).value(expr)


__all__ = ["Operand", "PRELUDE", "predicate", "truth", "value"]
