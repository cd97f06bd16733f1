"""Matches as columns: bindings split per component, put in the reference's order, and gathered as ids."""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def split_components(comps, offs, n):
    """co[i, c]: where component c's positions start in match i's range of the flat bindings (components
    ascend within a match); co[i, n] is the end of the range."""
    m = offs.shape[0] - 1
    co = np.empty((m, n + 1), np.int64)
    for i in range(m):
        x = offs[i]
        hi = offs[i + 1]
        for c in range(n):
            while x < hi and comps[x] < c:
                x += 1
            co[i, c] = x
        co[i, n] = hi
    return co


@njit(cache=True, inline="always")
def _binding_less(poss, co, n, i, j):
    """The reference's order of two matches: their position tuples per component, lexicographically."""
    for c in range(n):
        a, ae = co[i, c], co[i, c + 1]
        b, be = co[j, c], co[j, c + 1]
        while a < ae and b < be:
            if poss[a] != poss[b]:
                return poss[a] < poss[b]
            a += 1
            b += 1
        if a < ae or b < be:
            return a == ae  # a proper prefix sorts first
    return False


@njit(cache=True)
def _merge_sort(idx, lo, hi, tmp, poss, co, n):
    """Stable sort of idx[lo:hi] by `_binding_less` (bottom-up merge sort)."""
    width = 1
    size = hi - lo
    src = idx
    dst = tmp
    swapped = False
    while width < size:
        k = lo
        while k < hi:
            mid = min(k + width, hi)
            end = min(k + 2 * width, hi)
            a, b, o = k, mid, k
            while a < mid and b < end:
                if _binding_less(poss, co, n, src[b], src[a]):
                    dst[o] = src[b]
                    b += 1
                else:
                    dst[o] = src[a]
                    a += 1
                o += 1
            while a < mid:
                dst[o] = src[a]
                a += 1
                o += 1
            while b < end:
                dst[o] = src[b]
                b += 1
                o += 1
            k = end
        src, dst = dst, src
        swapped = not swapped
        width *= 2
    if swapped:
        idx[lo:hi] = tmp[lo:hi]


@njit(cache=True)
def order_matches(ev, released, poss, co, n):
    """The reference's order of the matches of `out` rows (event, node, released) after materialize:
    per event, held matches it released in their order, then the rest sorted (stably) by bindings."""
    m = ev.shape[0]
    idx = np.arange(m)
    tmp = np.empty(m, np.int64)
    i = 0
    while i < m:
        k = i
        while k < m and ev[k] == ev[i] and released[k] == released[i]:
            k += 1
        if released[i] != 1 and k - i > 1:
            _merge_sort(idx, i, k, tmp, poss, co, n)
        i = k
    return idx


@njit(cache=True)
def sort_bindings(idx, poss, co, n):
    """idx stably sorted by bindings (a copy)."""
    out = idx.copy()
    if out.shape[0] > 1:
        _merge_sort(out, 0, out.shape[0], np.empty(out.shape[0], np.int64), poss, co, n)
    return out


@njit(cache=True)
def gather_component_ids(poss, co, perm, c, ids, base):
    """(offsets, ids) of component c over the matches perm, in that order (count, then fill); a position
    maps to ids[position - base] (the store's integer ids, or the positions themselves)."""
    m = perm.shape[0]
    offsets = np.empty(m + 1, np.int64)
    offsets[0] = 0
    for r in range(m):
        i = perm[r]
        offsets[r + 1] = offsets[r] + co[i, c + 1] - co[i, c]
    out = np.empty(offsets[m], np.int64)
    for r in range(m):
        i = perm[r]
        o = offsets[r]
        for x in range(co[i, c], co[i, c + 1]):
            out[o] = ids[poss[x] - base]
            o += 1
    return offsets, out

