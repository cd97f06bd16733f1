"""Checked int64 arithmetic for generated fences and transfers: cepkit.optimized.values' add64 / sub64 / mul64
without Numba-level inlining (LLVM inlines them; Numba's inline="always" made each AFA compile take seconds)."""
from __future__ import annotations

from numba import njit

from cepkit.optimized.values import SAFE


@njit(cache=True)
def add64(a, b):
    if abs(float(a) + float(b)) > SAFE:
        raise OverflowError("a sum beyond 64-bit integers")
    return a + b


@njit(cache=True)
def sub64(a, b):
    if abs(float(a) - float(b)) > SAFE:
        raise OverflowError("a difference beyond 64-bit integers")
    return a - b


@njit(cache=True)
def mul64(a, b):
    if abs(float(a) * float(b)) > SAFE:
        raise OverflowError("a product beyond 64-bit integers")
    return a * b
