"""Exact evaluation of the expression language (ints, Fractions, strings, null): the one reference
evaluator of every language, driven by the query's null logic (`cepkit.front.language.ast.Conventions`).

Null (a missing value) propagates through arithmetic; division or modulo by zero gives null; arithmetic
on text is an EventError. Comparisons, boolean logic and the numeric reading of truth values follow the
null logic:

- "two_valued" (SASE+, SASE 1.0, TPStream): a comparison with a null operand is false (true under the
  SASE RFID dialect's missing-attribute rule, `Env.missing_true`); AND/OR/NOT are ordinary boolean
  logic over each operand's truth (null false, numbers nonzero, text nonempty); a truth value in
  arithmetic reads as 0/1.
- "three_valued" (SQL): a comparison with a null operand is unknown (None); AND/OR/NOT are SQL's
  three-valued logic (Kleene's); truth values are not numbers (arithmetic on one is an EventError).
  A condition holds only when it is true.

`reduce` is that shared semantics for the shared nodes (Const, Compare, And, Or, Not, BinOp, Neg); each
language's evaluator handles its own leaves (SASE attribute references and aggregates here, SQL row
navigation in cepkit.reference.sql.exprs) and delegates every other node to it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Mapping

from cepkit.core.errors import EventError
from cepkit.front.language import ast as A

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
    null_logic: str = "two_valued"  # the query's Conventions.null_logic

    def sub(self, e: A.Expr) -> Value:
        """evaluate(e, self): how `reduce` evaluates a node's children (one bound method, not a closure
        per node)."""
        return evaluate(e, self)


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
    if func in ("sum", "avg"):
        if not {type(v) for v in present} <= _EXACT:  # exact numbers, the common case, need no check
            present = [_aggregated_number(v, func) for v in present]
    elif len({isinstance(v, str) for v in present}) > 1:
        raise EventError(f"{func.upper()} over text and numbers")
    if func == "sum":
        return sum(present)
    if func == "avg":
        return Fraction(sum(present), len(present))
    return min(present) if func == "min" else max(present)


_EXACT = {int, Fraction}


def _aggregated_number(v: Value, func: str) -> Value:
    """An exact number for SUM / AVG: EventError for text, a boolean, or a non-finite number (readers refuse
    those, core/events.py; an event built by hand may still hold one)."""
    check_number(v, func.upper())
    if isinstance(v, float):
        if not math.isfinite(v):
            raise EventError(f"non-finite value {v!r} in {func.upper()} (numbers must be finite)")
        return Fraction(repr(v))
    return v


def check_number(x: Value, what: str, booleans: bool = False) -> None:
    """EventError unless x is a number (a boolean counts as 0/1 when `booleans`)."""
    if isinstance(x, str) or (isinstance(x, bool) and not booleans):
        raise EventError(f"arithmetic on a non-number {x!r} in {what}")


def arithmetic(op: str, x: Value, y: Value, null_logic: str = "three_valued") -> Value:
    """Exact `x op y`: null in, null out; division or modulo by zero is null; text is an EventError, and so
    is a boolean under three-valued logic (its truth values are not numbers); under two-valued logic a
    boolean reads as 0/1."""
    if x is None or y is None:
        return None
    booleans = null_logic == "two_valued"
    check_number(x, op, booleans)
    check_number(y, op, booleans)
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


def negate(v: Value, null_logic: str = "three_valued") -> Value:
    if v is None:
        return None
    check_number(v, "unary minus", null_logic == "two_valued")
    return -v


def compare_values(op: str, x: Value, y: Value) -> bool:
    """`x op y` for two values; false when either is null (the two-valued rule)."""
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


def compare(op: str, x: Value, y: Value, null_logic: str = "two_valued", missing_true: bool = False) -> bool | None:
    """A comparison under a null logic: with a null operand, unknown (None) when three-valued, else
    false (true under the RFID missing-attribute rule)."""
    if x is None or y is None:
        if null_logic == "three_valued":
            return None
        return missing_true
    return compare_values(op, x, y)


def truth(v: Value) -> bool:
    """A predicate's truth value: null is false, a number true when nonzero, text when nonempty."""
    return bool(v) if v is not None else False


def sql_truth(v: Value) -> Value:
    """A three-valued truth value: None (unknown) stays None, booleans stay, anything else is bool(v)."""
    if v is None or isinstance(v, bool):
        return v
    return bool(v)


Sub = Callable[[Any], Value]


def reduce(e: Any, sub: Sub, null_logic: str = "two_valued", missing_true: bool = False) -> Value:
    """The value of a shared node `e` (Const, Compare, And, Or, Not, BinOp, Neg) under `null_logic`,
    `sub(child)` evaluating its children (in the caller's context). TypeError for any other node."""
    t = type(e)
    if t is A.Const:
        return e.value
    if t is A.Compare:
        return compare(e.op, sub(e.left), sub(e.right), null_logic, missing_true)
    if t is A.BinOp:
        return arithmetic(e.op, sub(e.left), sub(e.right), null_logic)
    if t is A.Neg:
        return negate(sub(e.operand), null_logic)
    if null_logic == "three_valued":
        if t is A.And or t is A.Or:
            vals = [sub(x) for x in e.items]     # every item is evaluated (an error in any is raised)
            if t is A.And:
                if any(v is False for v in vals):
                    return False
                return None if any(v is None for v in vals) else True
            if any(v is True for v in vals):
                return True
            return None if any(v is None for v in vals) else False
        if t is A.Not:
            v = sql_truth(sub(e.operand))
            return None if v is None else not v
    else:
        if t is A.And:
            return all(truth(sub(x)) for x in e.items)
        if t is A.Or:
            return any(truth(sub(x)) for x in e.items)
        if t is A.Not:
            return not truth(sub(e.operand))
    raise TypeError(f"cannot evaluate {e!r}")  # EquivTest is expanded by the compiler


def as_number(v: Value) -> Value:
    if isinstance(v, str) and not isinstance(v, bool):
        try:
            return Fraction(v.strip()) if v.strip() else v
        except (ValueError, ZeroDivisionError):
            return v
    return v


def evaluate(e: A.Expr, env: Env) -> Value:
    """The value of an expression; booleans (None: unknown, three-valued only) for predicates."""
    t = type(e)
    if t is A.AttrRef:
        pos = _attr_pos(e, env)
        return None if pos is None else env.value(pos, e.attr)
    if t is A.Agg:
        return aggregate(e.func, [env.value(p, e.attr) for p in env.bound.get(e.var, ())])
    if t is A.LenRef:
        return len(env.bound.get(e.var, ()))
    return reduce(e, env.sub, env.null_logic, env.missing_true)
