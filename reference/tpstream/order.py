"""Evaluation orders (thesis §5.6, getEvaluationOrder): from each stream, a join order over the others
that avoids cross products where the pattern allows, cheapest estimated selectivity first."""
from __future__ import annotations

from fractions import Fraction

from reference.tpstream import allen
from reference.tpstream.bind import Plan

Step = tuple[int, tuple[tuple[int, frozenset[str]], ...]]  # (stream, ((bound partner p, R with p R stream), ...))


def evaluation_order(plan: Plan, start: int) -> tuple[Step, ...]:
    n = len(plan.streams)
    bound = [start]
    steps: list[Step] = []
    while len(bound) < n:
        best = None
        for j in range(n):
            if j in bound:
                continue
            cons = tuple((p, rels) for p in bound for rels in plan.towards(p, j))
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
