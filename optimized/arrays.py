"""Growable NumPy arrays for Numba kernels: a copy with room for more, doubling."""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def grow(a, need):
    """`a` (1-D) with room for `need` items."""
    if need <= len(a):
        return a
    b = np.empty(max(need, 2 * len(a)), a.dtype)
    b[:len(a)] = a
    return b


@njit(cache=True)
def grow2(a, need):
    """`a` (2-D) with room for `need` rows."""
    if need <= a.shape[0]:
        return a
    b = np.empty((max(need, 2 * a.shape[0]), a.shape[1]), a.dtype)
    b[:a.shape[0]] = a
    return b
