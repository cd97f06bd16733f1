"""Work counters every pattern engine keeps, so benchmarks can show the work an evaluation order saves."""
from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass
class Counters:
    """`partial_matches`: incomplete partial matches (runs, instances, stack entries) created;
    `predicate_evaluations`: WHERE clauses evaluated (each clause on each candidate counts once)."""

    partial_matches: int = 0
    predicate_evaluations: int = 0

    def as_dict(self) -> dict[str, int]:
        return asdict(self)
