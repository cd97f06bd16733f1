"""Exact evaluation of MATCH_RECOGNIZE expressions over a (partial) match: what SQL adds to the one
reference evaluator (cepkit.front.evaluate).

A match is a list of partition row positions with one label each. `cur` selects the RUNNING view
(the match up to and including its `cur`-th row); FINAL reads the whole match. This module evaluates
the SQL leaves (column references, PREV/NEXT/FIRST/LAST, CLASSIFIER, MATCH_NUMBER, aggregates, IS NULL)
and hands every other node (constants, comparisons, AND/OR/NOT, arithmetic) to
`cepkit.front.evaluate.reduce` under `Ctx.null_logic`, the query's convention: SQL's three-valued logic
unless the caller says otherwise (a comparison with null, and arithmetic with null, is null).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Sequence

from cepkit.front.evaluate import check_number, arithmetic, reduce, sql_truth
from cepkit.front.evaluate import compare as _compare
from cepkit.core.errors import EventError
from cepkit.front.sql import ast as S
Value = Any


@dataclass
class Ctx:
    rows: Sequence[Mapping[str, Value]]      # the partition, in ORDER BY order
    positions: Sequence[int]                  # partition positions of the match rows
    labels: Sequence[str]                     # the variable of each match row
    cur: int                                  # index into positions of the current row (-1: none)
    subsets: Mapping[str, tuple[str, ...]]
    match_number: int | None = None
    null_logic: str = "three_valued"          # the query's Conventions.null_logic

    def label_set(self, var: str | None) -> tuple[str, ...] | None:
        if var is None:
            return None
        return self.subsets.get(var, (var,))

    def visible(self, final: bool) -> int:
        return len(self.positions) if final else self.cur + 1

    def last_index(self, var: str | None, final: bool) -> int | None:
        """Match index of the last visible row labelled with var (any row for None)."""
        k = self.visible(final)
        names = self.label_set(var)
        for j in range(k - 1, -1, -1):
            if names is None or self.labels[j] in names:
                return j
        return None

    def indices(self, var: str | None, final: bool) -> list[int]:
        """Match indices (in the running or final view) of the rows labelled with var."""
        k = self.visible(final)
        names = self.label_set(var)
        if names is None:
            return list(range(k))
        return [j for j in range(k) if self.labels[j] in names]


def _var_of(e) -> str | None:
    """The one pattern variable an argument's column references use (None: universal)."""
    for n in e.walk():
        if isinstance(n, S.ColRef) and n.var is not None:
            return n.var
        if isinstance(n, S.Classifier) and n.var is not None:
            return n.var
    return None


def arith(op: str, x: Value, y: Value) -> Value:
    """SQL arithmetic: null in, null out; a non-number operand is an event error; else exact as everywhere."""
    return arithmetic(op, x, y, "three_valued")


def compare(op: str, x: Value, y: Value) -> bool | None:
    """SQL comparison: unknown (None) when either side is null, else the project's comparison."""
    return _compare(op, x, y, "three_valued")


def aggregate(func: str, values: list[Value], count_rows: int | None = None) -> Value:
    if count_rows is not None:
        return count_rows
    present = [v for v in values if v is not None]
    if func == "count":
        return len(present)
    if not present:
        return None
    for v in present:
        if func in ("sum", "avg"):
            check_number(v, func.upper())
    if func == "sum":
        return sum(present)
    if func == "avg":
        q = Fraction(sum(present), len(present))
        return q.numerator if q.denominator == 1 else q
    if len({isinstance(v, str) for v in present}) > 1:
        raise EventError(f"{func.upper()} over a mix of text and numbers")
    return min(present) if func == "min" else max(present)


_truthy = sql_truth   # a three-valued truth value (kept under its old name)


def evaluate(e, ctx: Ctx, final: bool = False, at: int | None = None) -> Value:
    """The value of `e`. `at` fixes a partition row (inside a navigation argument or an aggregate)."""
    if isinstance(e, S.ColRef):
        if at is not None:
            return ctx.rows[at].get(e.col) if 0 <= at < len(ctx.rows) else None
        j = ctx.last_index(e.var, final)
        return None if j is None else ctx.rows[ctx.positions[j]].get(e.col)
    if isinstance(e, S.Classifier):
        if at is not None:   # a row reached by navigation: its label if it is in the match (Trino: even
            for j, p in enumerate(ctx.positions):   # past the current row, RUNNING or not)
                if p == at:
                    return ctx.labels[j]
            return None
        j = ctx.last_index(e.var, final)
        return None if j is None else ctx.labels[j]
    if isinstance(e, S.MatchNumber):
        return ctx.match_number
    if isinstance(e, S.Nav):
        return _nav(e, ctx, final, at)
    if isinstance(e, S.SqlAgg):
        f = final or e.final
        idx = ctx.indices(e.var if e.arg is None else _var_of(e.arg), f)
        if e.arg is None:
            return len(idx)
        return aggregate(e.func, [evaluate(e.arg, ctx, f, ctx.positions[j]) for j in idx])
    if isinstance(e, S.IsNull):
        v = evaluate(e.operand, ctx, final, at)
        return (v is not None) if e.negated else (v is None)
    return reduce(e, lambda x: evaluate(x, ctx, final, at), ctx.null_logic)


def _logical_target(e: S.Nav, ctx: Ctx, final: bool) -> int | None:
    """Partition row of FIRST/LAST(arg, offset), or None when there is no such row in the match. FIRST
    counts from the match's first row over the whole match, RUNNING or not (Trino); RUNNING bounds LAST."""
    idx = ctx.indices(_var_of(e.arg), final or e.final or e.kind == "first")
    j = e.offset if e.kind == "first" else len(idx) - 1 - e.offset
    return ctx.positions[idx[j]] if 0 <= j < len(idx) else None


def _nav(e: S.Nav, ctx: Ctx, final: bool, at: int | None) -> Value:
    if at is not None:  # nested FIRST/LAST inside PREV/NEXT: the outer navigation already fixed the row
        return evaluate(e.arg, ctx, final, at)
    if e.kind in ("first", "last"):
        row = _logical_target(e, ctx, final)
        return None if row is None else evaluate(e.arg, ctx, final or e.final, row)
    inner = next((n for n in _navs(e.arg)), None)
    if inner is not None:
        row = _logical_target(inner, ctx, final)
    else:
        j = ctx.last_index(_var_of(e.arg), final)
        row = None if j is None else ctx.positions[j]
    if row is None:
        return None
    row = row - e.offset if e.kind == "prev" else row + e.offset
    if not 0 <= row < len(ctx.rows):
        return None
    return evaluate(e.arg, ctx, final, row)


def _navs(e):
    return (n for n in e.walk() if isinstance(n, S.Nav))


def holds(e, ctx: Ctx) -> bool:
    """A DEFINE condition holds only when it is true (null and false fail), under either null logic."""
    return sql_truth(evaluate(e, ctx)) is True
