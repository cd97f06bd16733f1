"""Register values: tagged exact rationals stored normalized (denominator > 0, lowest terms)."""
from __future__ import annotations

from numba import njit

from cepkit.optimized.values import NULL, gcd


@njit(cache=True)
def store(R, row, c, t, n, d):
    """Write value (t, n, d) into columns c, c + 1, c + 2 (a register field) of node `row`, normalized."""
    if t == NULL:
        n = 0
        d = 1
    elif d != 1:
        if d < 0:
            n = -n
            d = -d
        g = gcd(n, d)
        if g > 1:
            n //= g
            d //= g
    R[row, c] = t
    R[row, c + 1] = n
    R[row, c + 2] = d
