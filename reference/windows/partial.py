"""Partial aggregates: combinable summaries (count, non-null count, sum, min, max) of a set of values."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterable

from cepkit.core.errors import EventError


@dataclass(frozen=True)
class Partial:
    count: int = 0          # events
    n: int = 0              # non-null values
    sum: Any = 0
    min: Any = None
    max: Any = None

    def __add__(self, other: "Partial") -> "Partial":
        return Partial(self.count + other.count, self.n + other.n, self.sum + other.sum,
                       _pick(min, self.min, other.min), _pick(max, self.max, other.max))


def _pick(f, a, b):
    if a is None:
        return b
    if b is None:
        return a
    return f(a, b)


EMPTY = Partial()


def of_values(values: Iterable[Any]) -> Partial:
    p = EMPTY
    for v in values:
        p = p + of_value(v)
    return p


def of_value(v: Any) -> Partial:
    if v is None:
        return Partial(1, 0, 0, None, None)
    if isinstance(v, (str, bool)):
        raise EventError(f"cannot aggregate the non-number {v!r}")
    return Partial(1, 1, v, v, v)


def finalize(p: Partial, func: str) -> Any:
    """The value of `func` for the values summarized by p (A10 a: sum 0, count 0, others null when empty)."""
    if func == "count":
        return p.count
    if func == "sum":
        return p.sum
    if p.n == 0:
        return None
    if func == "avg":
        q = Fraction(p.sum) / p.n
        return q.numerator if q.denominator == 1 else q
    return p.min if func == "min" else p.max
