"""Exact rational arithmetic and comparison on int64 (numerator, denominator > 0) pairs, in Numba.

Mirrors front/evaluate.py for numbers: `/` is rational division, `%` the modulo of floored
division, a comparison with a null operand is false, text equals only text with the same code, and
text against a number is unequal (the store refuses text that reads as a number). Every sum,
difference and product is checked: a result beyond int64 raises OverflowError (the engine then names
the event).
"""
from __future__ import annotations

from numba import njit

NUM, NULL, STR = 0, 1, 2
# Overflow is judged on the float result (LLVM may fold exact wrap-around checks away): magnitudes up to
# SAFE are exact in int64; larger results are refused, including the rare ones between SAFE and 2**63.
SAFE = 9.0e18


@njit(cache=True, inline="always")
def add64(a, b):
    if abs(float(a) + float(b)) > SAFE:
        raise OverflowError("a sum beyond 64-bit integers")
    return a + b


@njit(cache=True, inline="always")
def sub64(a, b):
    if abs(float(a) - float(b)) > SAFE:
        raise OverflowError("a difference beyond 64-bit integers")
    return a - b


@njit(cache=True, inline="always")
def mul64(a, b):
    if abs(float(a) * float(b)) > SAFE:
        raise OverflowError("a product beyond 64-bit integers")
    return a * b


@njit(cache=True)
def gcd(a, b):
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
    g = gcd(n, d)
    if g > 1:
        return n // g, d // g
    return n, d


@njit(cache=True)
def rat_add(an, ad, bn, bd):
    if ad == 1 and bd == 1:
        return add64(an, bn), 1
    return _norm(add64(mul64(an, bd), mul64(bn, ad)), mul64(ad, bd))


@njit(cache=True)
def rat_sub(an, ad, bn, bd):
    if ad == 1 and bd == 1:
        return sub64(an, bn), 1
    return _norm(sub64(mul64(an, bd), mul64(bn, ad)), mul64(ad, bd))


@njit(cache=True)
def rat_mul(an, ad, bn, bd):
    if ad == 1 and bd == 1:
        return mul64(an, bn), 1
    return _norm(mul64(an, bn), mul64(ad, bd))


@njit(cache=True)
def rat_div(an, ad, bn, bd):
    """a / b for b != 0."""
    return _norm(mul64(an, bd), mul64(ad, bn))


@njit(cache=True)
def rat_mod(an, ad, bn, bd):
    """a % b (floored, sign of b) for b != 0: (an*bd mod bn*ad) / (ad*bd)."""
    if ad == 1 and bd == 1:
        return an % bn, 1  # Numba's integer % is Python's floored modulo
    return _norm(mul64(an, bd) % mul64(bn, ad), mul64(ad, bd))


@njit(cache=True)
def rat_less(an, ad, bn, bd):
    if ad == 1 and bd == 1:
        return an < bn
    return mul64(an, bd) < mul64(bn, ad)


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


@njit(cache=True)
def agg_add(dst, o, vn, vd):
    """Add the rational vn/vd to the aggregate slots dst[o:o+7]: sum (num, den), count, min, max."""
    if dst[o + 2] == 0:
        dst[o] = vn
        dst[o + 1] = vd
        dst[o + 3] = vn
        dst[o + 4] = vd
        dst[o + 5] = vn
        dst[o + 6] = vd
    else:
        rn, rd = rat_add(dst[o], dst[o + 1], vn, vd)
        dst[o] = rn
        dst[o + 1] = rd
        if rat_less(vn, vd, dst[o + 3], dst[o + 4]):
            dst[o + 3] = vn
            dst[o + 4] = vd
        if rat_less(dst[o + 5], dst[o + 6], vn, vd):
            dst[o + 5] = vn
            dst[o + 6] = vd
    dst[o + 2] += 1
