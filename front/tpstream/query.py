"""TPStream query nodes: durations, situation definitions, temporal constraints, RETURN aggregates.

Conditions are expressions of the project's AST (`cepkit.front.language.ast`); an attribute written
bare (`speed`) or qualified by its own situation (`B.speed`) reads the event being tested.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Union

from cepkit.core.ast import Node
from cepkit.core.errors import QueryError, option_usage
from cepkit.front.language import ast as A
from cepkit.core.units import NANOS

Amount = Union[int, Fraction]
RETURN_FUNCS = ("first", "last", "count", "sum", "avg", "min", "max")


def _pos() -> A.Pos:
    return field(default=A.NOPOS, compare=False, repr=False)


@dataclass(frozen=True)
class Duration(Node):
    """`<number> [unit]`: a unit key of NANOS, or None for plain timestamp ticks."""

    amount: Amount
    unit: str | None = None
    pos: A.Pos = _pos()

    def ticks(self, ts_unit: str | None) -> Amount:
        """The duration in the stream's timestamp ticks; QueryError when the units cannot agree."""
        where = (self.pos.line or None, self.pos.column or None)
        if self.unit is None:
            if ts_unit is not None:
                raise QueryError(f"duration {self.amount} has no time unit, but the timestamps are in "
                                 f"{ts_unit}; write the unit, e.g. {self.amount} seconds", *where)
            return self.amount
        if ts_unit is None:
            raise QueryError(f"duration {self.amount} {self.unit} needs the unit of the event timestamps "
                             f"({option_usage('ts_unit', 's|ms|...')}); or write {self.amount} without a unit "
                             "to mean ticks",
                             *where)
        size = Fraction(self.amount) * NANOS[self.unit] / NANOS[ts_unit]
        return int(size) if size.denominator == 1 else size

    def nanos(self) -> Fraction | None:
        return None if self.unit is None else Fraction(self.amount) * NANOS[self.unit]


@dataclass(frozen=True)
class SituationDef(Node):
    """`name AS condition [AT LEAST d | AT MOST d | BETWEEN d AND d]` (bounds inclusive)."""

    name: str
    condition: A.Expr
    at_least: Duration | None = None
    at_most: Duration | None = None
    pos: A.Pos = _pos()


@dataclass(frozen=True)
class Constraint(Node):
    """`left r1;r2;... right`: a disjunction of Allen relations (canonical names), `left R right`."""

    left: str
    relations: frozenset[str]
    right: str
    pos: A.Pos = _pos()
    right_pos: A.Pos = _pos()


@dataclass(frozen=True)
class ReturnAgg(Node):
    """`func(situation.attr) AS name` over the events inside the situation."""

    func: str
    situation: str
    attr: str
    name: str
    pos: A.Pos = _pos()


@dataclass(frozen=True)
class TPQuery(Node):
    source: str
    partition_by: tuple[str, ...]
    definitions: tuple[SituationDef, ...]
    pattern: tuple[Constraint, ...]
    within: Duration
    returns: tuple[ReturnAgg, ...] = ()
    pos: A.Pos = _pos()
    conventions: A.Conventions = A.TPSTREAM_CONVENTIONS   # two-valued conditions; WITHIN inclusive

    @property
    def streams(self) -> tuple[str, ...]:
        """The pattern's situation names, in order of first use in PATTERN."""
        seen: list[str] = []
        for c in self.pattern:
            for n in (c.left, c.right):
                if n not in seen:
                    seen.append(n)
        return tuple(seen)

    def definition(self, name: str) -> SituationDef:
        return next(d for d in self.definitions if d.name == name)
