"""Exact evaluation of the expression language over a partial match (ints, Fractions, strings, null).

Null (a missing value) propagates through arithmetic; a comparison with a null operand is false (true
under the SASE RFID dialect's missing-attribute rule, `Env.missing_true`); division or modulo by zero
gives null. Boolean logic is two-valued on top of that.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Mapping

from reference.language import ast as A

Value = Any


@dataclass(frozen=True)
class Env:
    """What a formula sees: bound events per variable and, optionally, the event being tested.

    `bound[var]` is the tuple of stream positions bound to var so far; `current` is the variable the
    event at `current_pos` is being tested for (its begin/take edge, or a negated variable).
    """

    bound: Mapping[str, tuple[int, ...]]
    value: Callable[[int, str], Value]
    current: str | None = None
    current_pos: int | None = None
    missing_true: bool = False  # SASE RFID rule: a comparison reading a missing (null) value is true


def _attr_pos(ref: A.AttrRef, env: Env) -> int | None:
    if ref.index is None or ref.index is A.Index.CURRENT:
        if ref.var == env.current:
            return env.current_pos
        events = env.bound.get(ref.var, ())
        return events[0] if events else None
    events = env.bound.get(ref.var, ())
    if ref.index is A.Index.FIRST:
        if events:
            return events[0]
        return env.current_pos if ref.var == env.current else None
    return events[-1] if events else None  # PREV and LAST: the last element selected so far


def aggregate(func: str, values: list[Value]) -> Value:
    """COUNT/SUM/AVG/MIN/MAX over the non-null values (null for an empty SUM/AVG/MIN/MAX)."""
    present = [v for v in values if v is not None]
    if func == "count":
        return len(present)
    if not present:
        return None
    if func == "sum":
        return sum(present)
    if func == "avg":
        return Fraction(sum(present), len(present))
    return min(present) if func == "min" else max(present)


def arithmetic(op: str, x: Value, y: Value) -> Value:
    if x is None or y is None:
        return None
    if op == "+":
        return x + y
    if op == "-":
        return x - y
    if op == "*":
        return x * y
    if y == 0:
        return None
    if op == "/":
        return Fraction(x, y) if isinstance(x, int) and isinstance(y, int) else x / y
    return x % y


def compare_values(op: str, x: Value, y: Value) -> bool:
    if x is None or y is None:
        return False
    if isinstance(x, str) != isinstance(y, str):
        x, y = as_number(x), as_number(y)  # '1' = 1: a quoted number compares as that number
        if isinstance(x, str) or isinstance(y, str):
            return op == "!="
    if op == "=":
        return x == y
    if op == "!=":
        return x != y
    if op == "<":
        return x < y
    if op == "<=":
        return x <= y
    if op == ">":
        return x > y
    return x >= y


def as_number(v: Value) -> Value:
    if isinstance(v, str) and not isinstance(v, bool):
        try:
            return Fraction(v.strip()) if v.strip() else v
        except (ValueError, ZeroDivisionError):
            return v
    return v


def evaluate(e: A.Expr, env: Env) -> Value:
    """The value of an expression; booleans for predicates."""
    if isinstance(e, A.Const):
        return e.value
    if isinstance(e, A.AttrRef):
        pos = _attr_pos(e, env)
        return None if pos is None else env.value(pos, e.attr)
    if isinstance(e, A.Compare):
        x, y = evaluate(e.left, env), evaluate(e.right, env)
        if env.missing_true and (x is None or y is None):
            return True
        return compare_values(e.op, x, y)
    if isinstance(e, A.And):
        return all(truth(evaluate(x, env)) for x in e.items)
    if isinstance(e, A.Or):
        return any(truth(evaluate(x, env)) for x in e.items)
    if isinstance(e, A.Not):
        return not truth(evaluate(e.operand, env))
    if isinstance(e, A.BinOp):
        return arithmetic(e.op, evaluate(e.left, env), evaluate(e.right, env))
    if isinstance(e, A.Neg):
        v = evaluate(e.operand, env)
        return None if v is None else -v
    if isinstance(e, A.Agg):
        return aggregate(e.func, [env.value(p, e.attr) for p in env.bound.get(e.var, ())])
    if isinstance(e, A.LenRef):
        return len(env.bound.get(e.var, ()))
    raise TypeError(f"cannot evaluate {e!r}")  # EquivTest is expanded by the compiler


def truth(v: Value) -> bool:
    """A predicate's truth value: null is false."""
    return bool(v) if v is not None else False
