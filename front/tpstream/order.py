"""Evaluation orders (thesis §5.6, getEvaluationOrder): from each stream, a join order over the others
that avoids cross products where the pattern allows, cheapest estimated selectivity first. Front end:
it reads only the pattern (the number of streams and the constraints `(i, relations, j)`)."""
from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from cepkit.front.tpstream import allen

Step = tuple[int, tuple[tuple[int, frozenset[str]], ...]]  # (stream, ((bound partner p, R with p R stream), ...))
Constraints = Sequence[tuple[int, frozenset[str], int]]   # (i, relations, j): S_i R S_j


def towards(constraints: Constraints, known: int, other: int) -> list[frozenset[str]]:
    """Every constraint between two streams, as relation sets R with `S_known R S_other`."""
    out = []
    for i, rels, j in constraints:
        if (i, j) == (known, other):
            out.append(rels)
        elif (i, j) == (other, known):
            out.append(frozenset(allen.INVERSE[r] for r in rels))
    return out


def evaluation_order(plan, start: int) -> tuple[Step, ...]:
    """The join order from stream `start` for a plan with `streams` and `constraints` (bind.Plan)."""
    return pattern_order(len(plan.streams), plan.constraints, start)


def pattern_order(n: int, constraints: Constraints, start: int) -> tuple[Step, ...]:
    """The join order from stream `start` over streams 0..n-1 under the constraints."""
    bound = [start]
    steps: list[Step] = []
    while len(bound) < n:
        best = None
        for j in range(n):
            if j in bound:
                continue
            cons = tuple((p, rels) for p in bound for rels in towards(constraints, p, j))
            sel = Fraction(1)
            for _p, rels in cons:
                sel *= min(Fraction(1), sum((allen.SELECTIVITY[r] for r in rels), Fraction(0)))
            rank = (0 if cons else 1, sel, j)
            if best is None or rank < best[0]:
                best = (rank, j, cons)
        _rank, j, cons = best
        bound.append(j)
        steps.append((j, cons))
    return tuple(steps)
