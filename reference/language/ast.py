"""The one AST of cepkit: patterns, windows, strategies, and the expression language.

Every node is a frozen dataclass. Source positions (`pos`) are kept for error messages and
excluded from equality, so two queries that mean the same thing compare equal.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from fractions import Fraction
from typing import Union


@dataclass(frozen=True)
class Pos:
    line: int
    column: int


NOPOS = Pos(0, 0)


def _pos() -> Pos:
    return field(default=NOPOS, compare=False, repr=False)


# ----------------------------------------------------------------------------- expressions
class Index(Enum):
    """Which element of a Kleene variable an attribute reference reads."""

    FIRST = "1"        # a[1]
    CURRENT = "i"      # a[i]: the event being considered for the closure (i >= 2)
    PREV = "i-1"       # a[i-1]: the previously selected element
    LAST = "a.LEN"     # a[a.LEN]: the last element of the completed closure


class AggScope(Enum):
    """Which elements of a Kleene variable an aggregate ranges over."""

    PREFIX = "..i-1"   # a[..i-1]: every element selected before the current one
    ALL = "all"        # a[] / a[..a.LEN]: the whole completed closure


@dataclass(frozen=True)
class Const:
    value: Union[int, Fraction, str, bool]
    pos: Pos = _pos()


@dataclass(frozen=True)
class AttrRef:
    """`var.attr`, `var[index].attr`; index is None for a singleton variable."""

    var: str
    attr: str
    index: Index | None = None
    pos: Pos = _pos()


@dataclass(frozen=True)
class LenRef:
    """`a.LEN`: the number of elements of a completed Kleene closure."""

    var: str
    pos: Pos = _pos()


@dataclass(frozen=True)
class Agg:
    """`func(var[scope].attr)`; func in avg, min, max, sum, count."""

    func: str
    var: str
    attr: str
    scope: AggScope
    pos: Pos = _pos()


@dataclass(frozen=True)
class BinOp:
    """Arithmetic: + - * / % (exact; `/` is rational division, `%` is the modulo of floored division)."""

    op: str
    left: "Expr"
    right: "Expr"
    pos: Pos = _pos()


@dataclass(frozen=True)
class Neg:
    operand: "Expr"
    pos: Pos = _pos()


@dataclass(frozen=True)
class Compare:
    """op in = != < <= > >= ; a comparison with a null operand is false."""

    op: str
    left: "Expr"
    right: "Expr"
    pos: Pos = _pos()


@dataclass(frozen=True)
class And:
    items: tuple["Expr", ...]
    pos: Pos = _pos()


@dataclass(frozen=True)
class Or:
    items: tuple["Expr", ...]
    pos: Pos = _pos()


@dataclass(frozen=True)
class Not:
    operand: "Expr"
    pos: Pos = _pos()


@dataclass(frozen=True)
class EquivTest:
    """`[attr]`: every variable of the pattern has the same value of attr (also the partition key)."""

    attr: str
    pos: Pos = _pos()


Expr = Union[Const, AttrRef, LenRef, Agg, BinOp, Neg, Compare, And, Or, Not, EquivTest]


# ----------------------------------------------------------------------------- patterns
@dataclass(frozen=True)
class Component:
    """One component of SEQ: `Type var`, `Type+ var[]` (kleene) or `!(Type var)` (negated)."""

    event_type: str
    var: str
    kleene: bool = False
    negated: bool = False
    pos: Pos = _pos()


@dataclass(frozen=True)
class Seq:
    components: tuple[Component, ...]
    pos: Pos = _pos()

    @property
    def positive(self) -> tuple[Component, ...]:
        return tuple(c for c in self.components if not c.negated)


class Strategy(Enum):
    STRICT_CONTIGUITY = "strict_contiguity"
    PARTITION_CONTIGUITY = "partition_contiguity"
    SKIP_TILL_NEXT_MATCH = "skip_till_next_match"
    SKIP_TILL_ANY_MATCH = "skip_till_any_match"


@dataclass(frozen=True)
class Window:
    """WITHIN: `amount` in the query's unit; kind 'time' or 'events'. `inclusive` False means strict <."""

    amount: Union[int, Fraction]
    unit: str | None          # a key of TIME_UNITS for durations, None for raw ticks or events
    kind: str = "time"        # 'time' | 'events'
    inclusive: bool = False
    pos: Pos = _pos()


@dataclass(frozen=True)
class ReturnItem:
    expr: Expr
    name: str
    pos: Pos = _pos()


@dataclass(frozen=True)
class Query:
    """A SASE+ query. `where` holds the predicates; equivalence tests stay as EquivTest nodes."""

    pattern: Seq
    strategy: Strategy
    where: Expr | None = None
    window: Window | None = None
    returns: tuple[ReturnItem, ...] = ()
    strategy_defaulted: bool = False
    pos: Pos = _pos()
