"""The one AST of cepkit: patterns, windows, strategies, and the expression language.

Every node is a frozen dataclass. Source positions (`pos`) are kept for error messages and
excluded from equality, so two queries that mean the same thing compare equal.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from typing import Union

from cepkit.core.ast import (NOPOS, NULL_LOGICS, SASE1_CONVENTIONS, SASE_CONVENTIONS, SQL_CONVENTIONS,  # noqa: F401
                             TPSTREAM_CONVENTIONS, WINDOW_BOUNDS, Conventions, Node, NullLogic, Pos, WindowBoundKind,
                             pos_field)

_pos = pos_field


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
class Const(Node):
    value: Union[int, Fraction, str, bool]
    pos: Pos = _pos()


@dataclass(frozen=True)
class AttrRef(Node):
    """`var.attr`, `var[index].attr`; index is None for a singleton variable."""

    var: str
    attr: str
    index: Index | None = None
    pos: Pos = _pos()


@dataclass(frozen=True)
class LenRef(Node):
    """`a.LEN`: the number of elements of a completed Kleene closure."""

    var: str
    pos: Pos = _pos()


@dataclass(frozen=True)
class Agg(Node):
    """`func(var[scope].attr)`; func in avg, min, max, sum, count."""

    func: str
    var: str
    attr: str
    scope: AggScope
    pos: Pos = _pos()


@dataclass(frozen=True)
class BinOp(Node):
    """Arithmetic: + - * / % (exact; `/` is rational division, `%` is the modulo of floored division)."""

    op: str
    left: "Expr"
    right: "Expr"
    pos: Pos = _pos()


@dataclass(frozen=True)
class Neg(Node):
    operand: "Expr"
    pos: Pos = _pos()


@dataclass(frozen=True)
class Compare(Node):
    """op in = != < <= > >= ; a comparison with a null operand is false."""

    op: str
    left: "Expr"
    right: "Expr"
    pos: Pos = _pos()


@dataclass(frozen=True)
class And(Node):
    items: tuple["Expr", ...]
    pos: Pos = _pos()


@dataclass(frozen=True)
class Or(Node):
    items: tuple["Expr", ...]
    pos: Pos = _pos()


@dataclass(frozen=True)
class Not(Node):
    operand: "Expr"
    pos: Pos = _pos()


@dataclass(frozen=True)
class EquivTest(Node):
    """`[attr]`: every variable of the pattern has the same value of attr (also the partition key).
    `[attr = 'v']` (SASE RFID) also requires that value: every variable's attr equals `value`."""

    attr: str
    pos: Pos = _pos()
    value: "Const | None" = None


Expr = Union[Const, AttrRef, LenRef, Agg, BinOp, Neg, Compare, And, Or, Not, EquivTest]


# ----------------------------------------------------------------------------- patterns
@dataclass(frozen=True)
class Component(Node):
    """One leaf of a pattern: `Type var`, `Type+ var[]` (kleene) or `!(Type var)` (negated).
    `ANY(T1, T2) var` has event_type 'ANY' and the listed types in `any_of`."""

    event_type: str
    var: str
    kleene: bool = False
    negated: bool = False
    pos: Pos = _pos()
    any_of: tuple[str, ...] = ()

    @property
    def types(self) -> tuple[str, ...]:
        """The event types this component accepts."""
        return self.any_of or (self.event_type,)


@dataclass(frozen=True)
class Seq(Node):
    """SEQ(...): its items occur in the given order. Items are components or nested AND / OR / SEQ."""

    components: tuple["PatternNode", ...]
    pos: Pos = _pos()

    @property
    def positive(self) -> tuple[Component, ...]:
        return tuple(c for c in leaves(self) if not c.negated)


@dataclass(frozen=True)
class Conj(Node):
    """AND(...): every item occurs, in any order."""

    items: tuple["PatternNode", ...]
    pos: Pos = _pos()


@dataclass(frozen=True)
class Disj(Node):
    """OR(...): one of the items occurs (each alternative is matched on its own)."""

    items: tuple["PatternNode", ...]
    pos: Pos = _pos()


PatternNode = Union[Component, Seq, Conj, Disj]


def leaves(node: "PatternNode") -> tuple[Component, ...]:
    """Every component of a pattern, in text order."""
    return tuple(n for n in node.walk() if isinstance(n, Component))


def is_flat_seq(node: "PatternNode") -> bool:
    """A plain SASE+ pattern: SEQ of single-type components (what the NFA^b engine runs)."""
    return isinstance(node, Seq) and all(isinstance(c, Component) and not c.any_of for c in node.components)


class Strategy(Enum):
    STRICT_CONTIGUITY = "strict_contiguity"
    PARTITION_CONTIGUITY = "partition_contiguity"
    SKIP_TILL_NEXT_MATCH = "skip_till_next_match"
    SKIP_TILL_ANY_MATCH = "skip_till_any_match"


@dataclass(frozen=True)
class Window(Node):
    """WITHIN: `amount` in the query's unit; kind 'time' or 'events'. `inclusive` False means strict <.

    `inclusive` is the bound as the front end built it; the query's `conventions.window_bound` says the
    same (Query checks that they agree) and is what engines read."""

    amount: Union[int, Fraction]
    unit: str | None          # a key of TIME_UNITS for durations, None for raw ticks or events
    kind: str = "time"        # 'time' | 'events'
    inclusive: bool = False
    pos: Pos = _pos()


@dataclass(frozen=True)
class ReturnItem(Node):
    expr: Expr
    name: str
    pos: Pos = _pos()


@dataclass(frozen=True)
class Query(Node):
    """A SASE+ query. `where` holds the predicates; equivalence tests stay as EquivTest nodes."""

    pattern: "PatternNode"
    strategy: Strategy
    where: Expr | None = None
    window: Window | None = None
    returns: tuple[ReturnItem, ...] = ()
    strategy_defaulted: bool = False
    pos: Pos = _pos()
    dialect: str = "sase+"  # "sase+" (SIGMOD 2008 / lazy NFA papers), "rfid" (SASE, SIGMOD 2006: EVENT ...)
    #                         or "sase1" (the SASE 1.0 engine's behaviour; front/language/dialects.py)
    conventions: Conventions = SASE_CONVENTIONS

    def __post_init__(self) -> None:
        if self.window is not None and self.window.inclusive != (self.conventions.window_bound == "inclusive"):
            raise ValueError(f"the window ({'inclusive' if self.window.inclusive else 'strict'}) disagrees "
                             f"with the query's conventions ({self.conventions.window_bound})")
