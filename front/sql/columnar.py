"""A condition over whole columns at once, under SQL's three-valued logic: a subquery's WHERE over the
input table (front/sql/source.py), with no Python work per row.

A value is (values, null): a NumPy array (int64, bool, or object for text, exact fractions and integers
past 64 bits; float columns become their exact values) and a boolean mask of the nulls. Constants, column references, comparisons, AND / OR / NOT, IS [NOT]
NULL, and + - * on numbers; anything else (a pattern function, division) is refused at parse time by
`check` (QueryError with position).
"""
from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any, Callable

import numpy as np
import pandas as pd

from cepkit.core.errors import EventError, QueryError
from cepkit.core.events import exact
from cepkit.front.language import ast as A
from cepkit.front.sql import ast as S

Column = tuple[np.ndarray, np.ndarray]
_OPS = {"=": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal, ">": np.greater,
        ">=": np.greater_equal}
_ARITH = {"+": np.add, "-": np.subtract, "*": np.multiply}
_EXACT = np.frompyfunc(exact, 1, 1)


def check(e: Any, clause: str) -> None:
    """QueryError (with position) for a node a columnar condition cannot evaluate."""
    pos = getattr(e, "pos", A.NOPOS)
    if isinstance(e, (S.Nav, S.SqlAgg, S.Classifier, S.MatchNumber)):
        raise QueryError(f"{clause} cannot use navigation, aggregates or pattern functions (they belong in "
                         "MEASURES and DEFINE)", pos.line or None, pos.column or None)
    if isinstance(e, A.BinOp) and e.op not in _ARITH:
        raise QueryError(f"'{e.op}' is not supported in {clause} (+, - and * are)", pos.line or None,
                         pos.column or None)
    for c in e.children():
        check(c, clause)


def evaluate(e: Any, column: Callable[[S.ColRef], Any], n: int, clause: str) -> Column:
    """(values, null) of `e` over n rows; `column(ref)` gives a column's values (NaN / None for null), or
    its (values, null). `clause` is what an EventError calls the expression's place ("the outer SELECT")."""
    if isinstance(e, A.Const):
        v = e.value
        if v is None:
            return np.zeros(n, np.int64), np.ones(n, np.bool_)
        arr = np.empty(n, object)
        arr[:] = [v] * n if n else []
        return _narrow(arr, v), np.zeros(n, np.bool_)
    if isinstance(e, S.ColRef):
        got = column(e)
        if isinstance(got, tuple):   # (values, null) given by the caller
            return got
        values = np.asarray(got)
        if values.dtype.kind == "f":   # floats compare and compute as the exact values the reference reads
            null = np.isnan(values)
            return _EXACT(np.where(null, 0.0, values)).astype(object), null
        if values.dtype == object:
            return values, np.asarray(pd.isna(values), np.bool_)
        return values, np.zeros(len(values), np.bool_)
    if isinstance(e, S.IsNull):
        _, null = evaluate(e.operand, column, n, clause)
        return (~null if e.negated else null), np.zeros(n, np.bool_)
    if isinstance(e, A.Not):
        v, null = evaluate(e.operand, column, n, clause)
        return ~_truth(v, null, clause), null
    if isinstance(e, (A.And, A.Or)):
        parts = [evaluate(x, column, n, clause) for x in e.items]
        trues = [_truth(v, null, clause) & ~null for v, null in parts]
        falses = [~_truth(v, null, clause) & ~null for v, null in parts]
        if isinstance(e, A.And):
            false = np.logical_or.reduce(falses)
            true = np.logical_and.reduce(trues)
        else:
            true = np.logical_or.reduce(trues)
            false = np.logical_and.reduce(falses)
        return true, ~(true | false)
    if isinstance(e, A.Neg):
        v, null = evaluate(e.operand, column, n, clause)
        _number(v, null, "-", clause, e)
        return np.negative(np.where(null, 0, v) if v.dtype != object else _fill(v, null)), null
    if isinstance(e, A.BinOp):
        (a, an), (b, bn) = evaluate(e.left, column, n, clause), evaluate(e.right, column, n, clause)
        _number(a, an, e.op, clause, e)
        _number(b, bn, e.op, clause, e)
        null = an | bn
        return _arith(e.op, _fill(a, null), _fill(b, null)), null
    if isinstance(e, A.Compare):
        (a, an), (b, bn) = evaluate(e.left, column, n, clause), evaluate(e.right, column, n, clause)
        null = an | bn
        try:
            out = _OPS[e.op](_fill(a, null), _fill(b, null))
        except TypeError:
            raise EventError(f"{clause}{_at(e)} compares text with a number ({e.op})") from None
        return np.asarray(out, np.bool_), null
    raise TypeError(e)   # check() refuses every other node at parse time


def _arith(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a op b exactly: int64 where no result leaves 64 bits, else Python integers (as the reference)."""
    if a.dtype.kind in "iu" and b.dtype.kind in "iu":
        a, b = a.astype(np.int64), b.astype(np.int64)
        with np.errstate(over="ignore"):
            r = _ARITH[op](a, b)
        if op == "+":
            over = ((a ^ r) & (b ^ r)) < 0
        elif op == "-":
            over = ((a ^ b) & (a ^ r)) < 0
        else:
            safe = np.where(a == 0, 1, a)
            over = (a != 0) & ((r // safe != b) | ((a == -1) & (b == np.iinfo(np.int64).min)))
        if not over.any():
            return r
        a, b = a.astype(object), b.astype(object)
    return _ARITH[op](a, b)


def _truth(v: np.ndarray, null: np.ndarray, clause: str) -> np.ndarray:
    if v.dtype != np.bool_:
        if v.dtype == object and _kind(v, null) in ("boolean", "empty"):
            return np.asarray(_fill(v, null), np.bool_)
        raise EventError(f"a condition of {clause} is not true or false")
    return v


def _number(v: np.ndarray, null: np.ndarray, op: str, clause: str, node: Any) -> None:
    if v.dtype.kind in "iuf":
        return
    if v.dtype == object and _kind(v, null) in ("number", "empty"):
        return
    raise EventError(f"'{op}' in {clause}{_at(node)} needs numbers")


def _at(node: Any) -> str:
    """Where a node is in the query, for an EventError: ' (line L, column C of the query)', or ''."""
    pos = getattr(node, "pos", A.NOPOS)
    return f" (line {pos.line}, column {pos.column} of the query)" if pos.line else ""


def _kind(v: np.ndarray, null: np.ndarray) -> str:
    """What an object column holds besides its nulls: 'number' (exact ints and Fractions, floats, in any mix:
    a decimal column such as 90.5, 80, 70 holds both), 'string', 'boolean', 'empty' or 'mixed'."""
    present = v[~null]
    if not len(present):
        return "empty"
    kinds = {_KINDS.get(type(x)) or _kind_of(x) for x in present}
    return kinds.pop() if len(kinds) == 1 else "mixed"


def _kind_of(x: Any) -> str:
    if isinstance(x, (bool, np.bool_)):
        return "boolean"
    if isinstance(x, (int, np.integer, float, np.floating, Fraction, Decimal)):
        return "number"
    return "string" if isinstance(x, str) else "mixed"


_KINDS = {int: "number", Fraction: "number", float: "number", str: "string", bool: "boolean"}


def _fill(v: np.ndarray, null: np.ndarray) -> np.ndarray:
    """The values with nulls replaced by a value of the column's kind (their results are masked)."""
    if not null.any():
        return v
    if v.dtype == object:
        kind = _kind(v, null)
        filler = "" if kind == "string" else False if kind == "boolean" else 0
        out = v.copy()
        out[null] = filler
        return out
    return np.where(null, np.zeros(1, v.dtype), v)


def _narrow(arr: np.ndarray, v: Any) -> np.ndarray:
    """A constant column in the NumPy type its value has (int64, bool), else object."""
    if isinstance(v, bool):
        return arr.astype(np.bool_)
    if isinstance(v, int) and -(1 << 63) <= v < (1 << 63):
        return arr.astype(np.int64)
    return arr
