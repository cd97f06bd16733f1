"""Run rows (layout.py) and what the run loop does to them: the window test, copying and extending a row,
partition and type checks, the stamped hash tables that deduplicate runs and nodes, and buffer sizes."""
from __future__ import annotations

import numpy as np
from numba import njit

from cepkit.optimized.nfab.layout import AGGW, HDR, NULL, Q_HASWIN, Q_MERGE, Q_NOSHARE, Q_WINDEN, Q_WINNUM, Q_WINPOS, \
    Q_WINSTRICT
from cepkit.optimized.values import agg_add


@njit(cache=True, inline="always")
def inside(Q, ets, base, first, p):
    """Whether the event at p lies in the window of a run whose first event is at `first`."""
    if Q[Q_HASWIN] == 0:
        return True
    if Q[Q_WINPOS] == 1:
        span = p - first
    else:
        span = ets[p - base] - ets[first - base]
    if Q[Q_WINSTRICT] == 1:
        return span * Q[Q_WINDEN] < Q[Q_WINNUM]
    return span * Q[Q_WINDEN] <= Q[Q_WINNUM]


@njit(cache=True, inline="always")
def inside_back(Q, ets, base, last, p):
    """Whether the event at p (before `last`) lies in the window that ends at `last`."""
    if Q[Q_WINPOS] == 1:
        span = last - p
    else:
        span = ets[last - base] - ets[p - base]
    if Q[Q_WINSTRICT] == 1:
        return span * Q[Q_WINDEN] < Q[Q_WINNUM]
    return span * Q[Q_WINDEN] <= Q[Q_WINNUM]


@njit(cache=True)
def grow_zeros(a, need):
    """`a` (2-D) with room for `need` rows (at least doubling), new rows zero."""
    if need <= a.shape[0]:
        return a
    cap = max(need, 2 * a.shape[0], 16)
    b = np.zeros((cap, a.shape[1]), dtype=a.dtype)
    b[: a.shape[0]] = a
    return b


@njit(cache=True, inline="always")
def hash_slot(key, mask):
    """The home slot of an int64 key in a table of mask + 1 slots."""
    h = (key * np.int64(-7046029254386353131)) ^ (key >> 29)
    return h & mask


@njit(cache=True, inline="always")
def table_find(keys, stamps, stamp, key):
    """Slot of key in the stamped table: (slot, found)."""
    mask = keys.shape[0] - 1
    i = hash_slot(key, mask)
    while True:
        if stamps[i] != stamp:
            return i, False
        if keys[i] == key:
            return i, True
        i = (i + 1) & mask


@njit(cache=True, inline="always")
def _rat_eq(an, ad, at, bn, bd, bt):
    return at != NULL and bt != NULL and at == bt and an == bn and ad == bd

@njit(cache=True, inline="always")
def type_ok(E, base, p, code):
    """Whether the event at p has the type `code`."""
    return E[0][p - base] == code


@njit(cache=True, inline="always")
def same_partition(part, E, base, R, pl, ix, p):
    """Whether the event at p has the run's partition-attribute values (none null)."""
    anchor = R[pl, ix, HDR] - base
    q = p - base
    vn, vd, vt = E[2], E[3], E[4]
    for i in range(part.shape[0]):
        a = part[i]
        if vt[a, q] == NULL or not _rat_eq(vn[a, q], vd[a, q], vt[a, q], vn[a, anchor], vd[a, anchor], vt[a, anchor]):
            return False
    return True


@njit(cache=True)
def copy_row(R, dpl, dix, spl, six, j, phase, node):
    """Row (dpl, dix) = row (spl, six) at state (j, phase) with buffer node `node`."""
    for x in range(R.shape[2]):
        R[dpl, dix, x] = R[spl, six, x]
    R[dpl, dix, 0] = j
    R[dpl, dix, 1] = phase
    R[dpl, dix, 2] = node


@njit(cache=True)
def extend_run(R, dpl, dix, spl, six, j, phase, node, comp, p, begin, n, aggs, E, base):
    """Row (dpl, dix) = row (spl, six) with the event at p added to component comp (begin: first element)."""
    copy_row(R, dpl, dix, spl, six, j, phase, node)
    dst = R[dpl, dix]
    o = HDR + 3 * comp
    if begin:
        dst[o] = p
        dst[o + 1] = p
        dst[o + 2] = 1
        if comp == 0:
            dst[dst.shape[0] - 1] = p
    else:
        dst[o + 1] = p
        dst[o + 2] += 1
    q = p - base
    oa = aggs[1, 0]
    for s in range(aggs[1, 1]):
        if aggs[oa + s, 0] != comp:
            continue
        a = aggs[oa + s, 1]
        o = HDR + 3 * n + AGGW * s
        if begin:
            dst[o] = 0
            dst[o + 1] = 1
            dst[o + 2] = 0
        t = E[4][a, q]
        if t == NULL:
            continue
        agg_add(dst, o, E[2][a, q], E[3][a, q])



@njit(cache=True, inline="always")
def claim_run(rkeys, rstamp, stamp, node, phase):
    """True the first time (node, phase) is pushed in this event."""
    key = node * 2 + phase
    slot, found = table_find(rkeys, rstamp, stamp, key)
    if found:
        return False
    rkeys[slot] = key
    rstamp[slot] = stamp
    return True


@njit(cache=True)
def pow2(x):
    """The least power of two >= x, at least 16."""
    s = 16
    while s < x:
        s *= 2
    return s

@njit(cache=True)
def needs(Q, R, cur, nruns, npend, nnodes, n):
    """(rows per plane, buffer nodes) that processing one more event may need."""
    rows = max(4 * nruns + 8, npend + 2 * nruns + 8)
    nodes = nnodes + 2 * nruns + 4
    if Q[Q_MERGE] == 1:
        nodes += 4 * nruns + 8  # a merge node per merged row
    if Q[Q_NOSHARE] == 1:
        for r in range(nruns):
            m = 1
            for k in range(n):
                m += R[cur, r, HDR + 3 * k + 2]
            nodes += 2 * m
    return rows, nodes


@njit(cache=True)
def grow3(R, rows):
    """The run matrix with room for `rows` rows per plane (at least doubling)."""
    if rows <= R.shape[1]:
        return R
    S = np.zeros((R.shape[0], max(rows, 2 * R.shape[1]), R.shape[2]), np.int64)
    S[:, : R.shape[1], :] = R
    return S

