"""Exact rational arithmetic and comparison on int64 (numerator, denominator > 0) pairs, in Numba.

Mirrors reference/evaluate.py for numbers: `/` is rational division, `%` the modulo of floored
division, a comparison with a null operand is false, text equals only text with the same code, and
text against a number is unequal (the store refuses text that reads as a number).
"""
from __future__ import annotations

from numba import njit

NUM, NULL, STR = 0, 1, 2


@njit(cache=True)
def _gcd(a, b):
    if a < 0:
        a = -a
    while b:
        a, b = b, a % b
    return a


@njit(cache=True)
def _norm(n, d):
    if d == 1:
        return n, d
    if d < 0:
        n = -n
        d = -d
    g = _gcd(n, d)
    if g > 1:
        return n // g, d // g
    return n, d


@njit(cache=True)
def rat_add(an, ad, bn, bd):
    if ad == 1 and bd == 1:
        return an + bn, 1
    return _norm(an * bd + bn * ad, ad * bd)


@njit(cache=True)
def rat_sub(an, ad, bn, bd):
    if ad == 1 and bd == 1:
        return an - bn, 1
    return _norm(an * bd - bn * ad, ad * bd)


@njit(cache=True)
def rat_mul(an, ad, bn, bd):
    if ad == 1 and bd == 1:
        return an * bn, 1
    return _norm(an * bn, ad * bd)


@njit(cache=True)
def rat_div(an, ad, bn, bd):
    """a / b for b != 0."""
    return _norm(an * bd, ad * bn)


@njit(cache=True)
def rat_mod(an, ad, bn, bd):
    """a % b (floored, sign of b) for b != 0: (an*bd mod bn*ad) / (ad*bd)."""
    if ad == 1 and bd == 1:
        return an % bn, 1  # Numba's integer % is Python's floored modulo
    return _norm((an * bd) % (bn * ad), ad * bd)


@njit(cache=True)
def rat_less(an, ad, bn, bd):
    if ad == 1 and bd == 1:
        return an < bn
    return an * bd < bn * ad


@njit(cache=True)
def cmp_vals(op, at, an, ad, bt, bn, bd):
    """Comparison op (0 =, 1 !=, 2 <, 3 <=, 4 >, 5 >=) of two tagged values."""
    if at == NULL or bt == NULL:
        return False
    if at != bt:  # text against a number
        return op == 1
    if at == STR:
        if op == 0:
            return an == bn
        return an != bn  # ordering on text is refused at compile time
    if op == 0:
        return an == bn and ad == bd
    if op == 1:
        return an != bn or ad != bd
    if op == 2:
        return rat_less(an, ad, bn, bd)
    if op == 3:
        return not rat_less(bn, bd, an, ad)
    if op == 4:
        return rat_less(bn, bd, an, ad)
    return not rat_less(an, ad, bn, bd)
