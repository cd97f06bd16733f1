"""Situation conditions evaluated over a whole batch at once, exactly as front/evaluate.py does per
event under two-valued logic (a comparison with null is false; null propagates through arithmetic;
division or modulo by zero is null).

Numeric columns (int64, truth values as 0/1, floats that are short decimals) are evaluated in NumPy on
exact int64 rationals; a result beyond int64 is an EventError naming the event, checked only where the
reference evaluates the expression (AND / OR short-circuit). A condition reading any other column (text,
mixed objects) is evaluated by the reference evaluator once per distinct combination of the values it
reads. Constructs outside this are refused by name at compile time (`check`).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd

from cepkit.optimized.tpstream.columns import SAFE, NumVec, numeric, raw
from cepkit.core.errors import EventError, Unsupported
from cepkit.front.evaluate import Env, as_number, compare_values, evaluate, truth
from cepkit.core.events import EventBatch
from cepkit.front.language import ast as A
from cepkit.front.tpstream.query import SituationDef
from cepkit.front.tpstream.reads import value_reader

ENGINE = "optimized"
INT64_MAX = (1 << 63) - 1
_CMP = {"=": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal, ">": np.greater,
        ">=": np.greater_equal}


def check(d: SituationDef, null_logic: str) -> None:
    """Unsupported (by construct, at its position) for what the evaluator cannot run exactly."""
    if null_logic != "two_valued":
        raise Unsupported(ENGINE, f"{null_logic.replace('_', '-')} null logic in TPStream conditions")
    _check(d.condition)


def _refuse(construct: str, node) -> Unsupported:
    pos = getattr(node, "pos", None)
    return Unsupported(ENGINE, construct, getattr(pos, "line", None) or None, getattr(pos, "column", None) or None)


def _check(e) -> None:
    if isinstance(e, A.Const):
        v = e.value
        if not isinstance(v, (bool, int, Fraction, str)):
            raise _refuse(f"the constant {v!r}", e)
        if isinstance(v, (int, Fraction)) and not isinstance(v, bool):
            f = Fraction(v)
            if abs(f.numerator) > INT64_MAX or f.denominator > INT64_MAX:
                raise _refuse(f"the constant {v!r} (beyond 64-bit integers)", e)
    elif isinstance(e, A.AttrRef):
        return
    elif isinstance(e, A.BinOp):
        for side in (e.left, e.right):
            if isinstance(side, A.Const) and isinstance(side.value, str):
                raise _refuse("arithmetic on a text constant", side)
        _check(e.left)
        _check(e.right)
    elif isinstance(e, (A.Neg, A.Not)):
        if isinstance(e, A.Neg) and isinstance(e.operand, A.Const) and isinstance(e.operand.value, str):
            raise _refuse("arithmetic on a text constant", e.operand)
        _check(e.operand)
    elif isinstance(e, A.Compare):
        _check(e.left)
        _check(e.right)
    elif isinstance(e, (A.And, A.Or)):
        for item in e.items:
            _check(item)
    else:
        raise _refuse(f"{type(e).__name__} in a TPStream condition", e)


def attributes(e) -> list[str]:
    """The attributes a condition reads, in order of first use."""
    return list(dict.fromkeys(x.attr for x in e.walk() if isinstance(x, A.AttrRef)))


def mask(d: SituationDef, batch: EventBatch, null_logic: str = "two_valued") -> np.ndarray:
    """Whether each event of the batch satisfies the situation's condition (a bool array)."""
    attrs = attributes(d.condition)
    cols = {a: numeric(raw(batch, a)) for a in attrs}
    if all(v is not None for v in cols.values()):
        ev = _Vectorized(cols, batch, len(batch))
        return ev.truth(ev.value(d.condition, np.ones(len(batch), bool)))
    return _per_distinct(d, batch, attrs, null_logic)


def _per_distinct(d: SituationDef, batch: EventBatch, attrs: list[str], null_logic: str) -> np.ndarray:
    """The reference evaluator once per distinct combination of the attribute values (first occurrence)."""
    parts = [pd.factorize(pd.Series(raw(batch, a), dtype=object), use_na_sentinel=False)[0].astype(np.int64)
             for a in attrs]
    _rows, first, codes = np.unique(np.stack(parts, axis=1), axis=0, return_index=True, return_inverse=True)
    value = value_reader(batch)
    held = np.zeros(len(first), bool)
    for k in np.argsort(first).tolist():  # in stream order: an error names the first event that raises it
        p = int(first[k])
        held[k] = truth(evaluate(d.condition, Env({"": (p,), d.name: (p,)}, value, null_logic=null_logic)))
    return held[codes.reshape(-1)]

class _Vectorized:
    """One condition over numeric columns; values are NumVec, truth values bool arrays."""

    def __init__(self, cols: dict[str, NumVec], batch: EventBatch, n: int):
        self.cols, self.batch, self.n = cols, batch, n

    # ------------------------------------------------------------------ leaves and conversions
    def value(self, e, active: np.ndarray):
        if isinstance(e, A.Const):
            v = e.value
            if isinstance(v, str):
                return v
            f = Fraction(int(v)) if isinstance(v, bool) else Fraction(v)
            return NumVec(np.full(self.n, f.numerator, np.int64),
                          None if f.denominator == 1 else np.full(self.n, f.denominator, np.int64))
        if isinstance(e, A.AttrRef):
            return self.cols[e.attr]
        if isinstance(e, A.Compare):
            return self.compare(e, active)
        if isinstance(e, (A.And, A.Or)):
            is_and = isinstance(e, A.And)
            out = np.full(self.n, is_and)
            for item in e.items:
                live = active & (out if is_and else ~out)
                t = self.truth(self.value(item, live))
                out = (out & t) if is_and else (out | t)
            return out
        if isinstance(e, A.Not):
            return ~self.truth(self.value(e.operand, active))
        if isinstance(e, A.Neg):
            x = self.num(self.value(e.operand, active))
            self.overflow(np.abs(x.n.astype(np.float64)) > SAFE, active, x.null, e)
            return NumVec(-x.n, x.d, x.null)
        x = self.num(self.value(e.left, active))
        y = self.num(self.value(e.right, active))
        return self.arithmetic(e, x, y, active)

    def num(self, v) -> NumVec:
        if isinstance(v, np.ndarray):   # a truth value reads as 0/1
            return NumVec(v.astype(np.int64))
        return v

    def truth(self, v) -> np.ndarray:
        if isinstance(v, np.ndarray):
            return v
        if isinstance(v, str):
            return np.full(self.n, bool(v))
        t = v.n != 0
        return t if v.null is None else t & ~v.null

    @staticmethod
    def _null(x: NumVec, y: NumVec) -> np.ndarray | None:
        if x.null is None:
            return y.null
        return x.null if y.null is None else x.null | y.null

    def overflow(self, bad: np.ndarray, active: np.ndarray, null, e) -> None:
        bad = bad & active
        if null is not None:
            bad &= ~null
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            attrs = attributes(e)
            raise EventError(f"a value beyond 64-bit integers while evaluating a condition on this event (it "
                             f"computes with {', '.join(attrs) or 'constants'}); the optimized engine works on 64-bit "
                             "integers, the reference engine is exact", int(self.batch.source_rows[i]),
                             attrs[0] if len(attrs) == 1 else None)

    def mul(self, a: np.ndarray, b: np.ndarray, active, null, e) -> np.ndarray:
        self.overflow(np.abs(a.astype(np.float64) * b.astype(np.float64)) > SAFE, active, null, e)
        return a * b

    def add(self, a: np.ndarray, b: np.ndarray, sign: int, active, null, e) -> np.ndarray:
        f = a.astype(np.float64) + sign * b.astype(np.float64)
        self.overflow(np.abs(f) > SAFE, active, null, e)
        return a + b if sign > 0 else a - b

    # ------------------------------------------------------------------ operators
    def arithmetic(self, e: A.BinOp, x: NumVec, y: NumVec, active) -> NumVec:
        null = self._null(x, y)
        one = np.ones(self.n, np.int64)
        xd = one if x.d is None else x.d
        yd = one if y.d is None else y.d
        if e.op in ("+", "-"):
            sign = 1 if e.op == "+" else -1
            if x.d is None and y.d is None:
                return NumVec(self.add(x.n, y.n, sign, active, null, e), None, null)
            n = self.add(self.mul(x.n, yd, active, null, e), self.mul(y.n, xd, active, null, e), sign, active, null, e)
            return _reduced(n, self.mul(xd, yd, active, null, e), null)
        if e.op == "*":
            n = self.mul(x.n, y.n, active, null, e)
            if x.d is None and y.d is None:
                return NumVec(n, None, null)
            return _reduced(n, self.mul(xd, yd, active, null, e), null)
        zero = y.n == 0
        null = zero if null is None else null | zero
        ys = np.where(zero, 1, y.n)  # a zero divisor gives null; keep the arithmetic defined
        if e.op == "/":
            n = self.mul(x.n, yd, active, null, e)
            d = self.mul(xd, ys, active, null, e)
            neg = d < 0
            return _reduced(np.where(neg, -n, n), np.where(neg, -d, d), null)
        if e.op == "%":
            a = self.mul(x.n, yd, active, null, e)
            b = self.mul(ys, xd, active, null, e)
            n = np.mod(a, b)
            if x.d is None and y.d is None:
                return NumVec(n, None, null)
            return _reduced(n, self.mul(xd, yd, active, null, e), null)
        raise _refuse(f"the operator {e.op}", e)

    def compare(self, e: A.Compare, active) -> np.ndarray:
        x, y = self.value(e.left, active), self.value(e.right, active)
        if isinstance(x, str) and isinstance(y, str):
            return np.full(self.n, compare_values(e.op, x, y))
        if isinstance(x, str) or isinstance(y, str):
            text = x if isinstance(x, str) else y
            other = self.num(y if isinstance(x, str) else x)
            number = as_number(text)
            if isinstance(number, str):   # text against a number: only != holds
                out = np.full(self.n, e.op == "!=")
                return out if other.null is None else out & ~other.null
            f = Fraction(number)
            const = NumVec(np.full(self.n, f.numerator, np.int64),
                           None if f.denominator == 1 else np.full(self.n, f.denominator, np.int64))
            x, y = (const, other) if isinstance(x, str) else (other, const)
        x, y = self.num(x), self.num(y)
        null = self._null(x, y)
        if x.d is None and y.d is None:
            out = _CMP[e.op](x.n, y.n)
        else:
            lhs = x.n if y.d is None else self.mul(x.n, y.d, active, null, e)
            rhs = y.n if x.d is None else self.mul(y.n, x.d, active, null, e)
            out = _CMP[e.op](lhs, rhs)
        return out if null is None else out & ~null


def _reduced(n: np.ndarray, d: np.ndarray, null) -> NumVec:
    g = np.gcd(n, d)
    g[g == 0] = 1
    return NumVec(n // g, d // g, null)
