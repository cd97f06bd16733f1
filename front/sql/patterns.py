"""Structural facts about row patterns: variables, nullability, PERMUTE expansion."""
from __future__ import annotations

from itertools import permutations

from cepkit.front.sql import ast as S


def variables(p: S.Pattern) -> list[S.PVar]:
    """Every variable occurrence, left to right."""
    return [v for v in p.walk() if isinstance(v, S.PVar)]


def nullable(p: S.Pattern) -> bool:
    """True when the pattern can match zero rows."""
    if isinstance(p, S.PVar):
        return False
    if isinstance(p, (S.PEmpty, S.PAnchor)):
        return True
    if isinstance(p, (S.PConcat, S.PPermute)):
        return all(nullable(i) for i in p.items)
    if isinstance(p, S.PAlt):
        return any(nullable(i) for i in p.items)
    if isinstance(p, S.PQuant):
        return p.low == 0 or nullable(p.item)
    if isinstance(p, S.PExclude):
        return nullable(p.item)
    raise TypeError(p)


def expand_permute(p: S.PPermute) -> S.PAlt:
    """PERMUTE(x1..xn) as the alternation of every order, in lexicographic order of item positions."""
    return S.PAlt(tuple(S.PConcat(tuple(p.items[i] for i in order), p.pos)
                        for order in permutations(range(len(p.items)))), p.pos)
