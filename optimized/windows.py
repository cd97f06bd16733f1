"""Numba CPU baselines of the windowed operators for the gpu benchmarks (benchmarks/gpu_windows.py): the
same algorithms as the gpu kernels on int64 columns, with the benchmark workloads' conditions written
as Python functions (this is a baseline to measure against, not an engine: it compiles no query text)."""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def filter_threshold(v: np.ndarray, low: int, mod: int, rem: int) -> np.ndarray:
    """Positions where v > low AND v % mod != rem (Python's floored %), in order."""
    out = np.empty(len(v), dtype=np.int64)
    k = 0
    for i in range(len(v)):
        x = v[i]
        if x > low and x % mod != rem:
            out[k] = i
            k += 1
    return out[:k]


@njit(cache=True)
def window_sums(v: np.ndarray, start: np.ndarray, stop: np.ndarray):
    """Per window [start, stop): sum, min and max of v (int64; no nulls), recomputed per window."""
    k = len(start)
    s, mn, mx = np.zeros(k, np.int64), np.zeros(k, np.int64), np.zeros(k, np.int64)
    for w in range(k):
        acc, lo, hi = 0, np.iinfo(np.int64).max, np.iinfo(np.int64).min
        for i in range(start[w], stop[w]):
            x = v[i]
            acc += x
            lo = min(lo, x)
            hi = max(hi, x)
        s[w], mn[w], mx[w] = acc, lo, hi
    return s, mn, mx


@njit(cache=True)
def join_equal(probe_side: np.ndarray, own: np.ndarray, lo: np.ndarray, hi: np.ndarray, lv: np.ndarray,
               rv: np.ndarray):
    """(left, right) positions of L.v = R.v over each probe's active window range, in probe order."""
    n = 0
    for p in range(len(own)):
        for q in range(lo[p], hi[p]):
            if (lv[own[p]] == rv[q]) if probe_side[p] == 0 else (lv[q] == rv[own[p]]):
                n += 1
    out_l, out_r = np.empty(n, np.int64), np.empty(n, np.int64)
    k = 0
    for p in range(len(own)):
        for q in range(lo[p], hi[p]):
            if probe_side[p] == 0:
                if lv[own[p]] == rv[q]:
                    out_l[k], out_r[k] = own[p], q
                    k += 1
            elif lv[q] == rv[own[p]]:
                out_l[k], out_r[k] = q, own[p]
                k += 1
    return out_l, out_r
