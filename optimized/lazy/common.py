"""Numba helpers every lazy / eager kernel shares: the window, checks on an assignment, one-event
qualification, and the per-(branch, variable) buffers of qualifying stream positions.

W = [has window, by position, bound]: events at positions first <= p lie in one window iff their span
(positions, or timestamps) is <= bound. E = (types, ts, numerators, denominators, tags) of the store from
position `base` on. An assignment m holds a stream position per global variable, -1 where unbound.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cepkit.optimized.nfab import formulas as K
from cepkit.optimized.nfab.layout import HDR

NONE = -1
INF = np.iinfo(np.int64).max


@njit(cache=True, inline="always")
def inside(W, E, base, first, p):
    """Whether positions first <= p fit in one window."""
    if W[0] == 0:
        return True
    if W[1] == 1:
        return p - first <= W[2]
    return E[1][p - base] - E[1][first - base] <= W[2]


@njit(cache=True)
def fits(W, E, base, m):
    """Whether m's bound events lie in one window."""
    if W[0] == 0:
        return True
    lo = INF
    hi = -1
    for v in range(m.shape[0]):
        x = m[v]
        if x >= 0:
            if x < lo:
                lo = x
            if x > hi:
                hi = x
    return hi < 0 or inside(W, E, base, lo, hi)


@njit(cache=True)
def first_of(m):
    lo = INF
    for v in range(m.shape[0]):
        if 0 <= m[v] < lo:
            lo = m[v]
    return lo


@njit(cache=True)
def bound_mask(m):
    mask = 0
    for v in range(m.shape[0]):
        if m[v] >= 0:
            mask |= 1 << v
    return mask


@njit(cache=True)
def holds_on(fid, m, cur, R, T, E, base, stk, cnt):
    """Whether formula fid holds with m's variables bound and the event of variable `cur` tested (each
    clause evaluated counts in cnt[1])."""
    return holds_at(fid, m, m[cur], R, T, E, base, stk, cnt)


@njit(cache=True)
def holds_at(fid, m, p, R, T, E, base, stk, cnt):
    """Whether formula fid holds with m's variables bound and the event at p tested."""
    V = m.shape[0]
    for v in range(V):
        o = HDR + 3 * v
        if m[v] >= 0:
            R[0, 0, o] = m[v]
            R[0, 0, o + 1] = m[v]
            R[0, 0, o + 2] = 1
        else:
            R[0, 0, o + 2] = 0
    return K.holds(fid, R, 0, 0, p, T, E, base, V, stk, cnt)


@njit(cache=True)
def qualify(b, p, TM, UN, inb, T, E, base, R, stk, cnt, one):
    """The mask of branch b's variables the event at p can bind: its type, and its one-event filter."""
    V = UN.shape[1]
    code = E[0][p - base]
    mask = 0
    for v in range(V):
        if not (inb[b] >> v & 1) or not TM[v, code]:
            continue
        if UN[b, v] >= 0:
            one[:] = NONE
            one[v] = p
            if not holds_on(UN[b, v], one, v, R, T, E, base, stk, cnt):
                continue
        mask |= 1 << v
    return mask


@njit(cache=True)
def lower(buf, a, e, x):
    """First index in buf[a:e] (sorted) whose value is > x."""
    while a < e:
        mid = (a + e) >> 1
        if buf[mid] <= x:
            a = mid + 1
        else:
            e = mid
    return a


@njit(cache=True)
def below(buf, a, e, x):
    """First index in buf[a:e] (sorted) whose value is >= x."""
    while a < e:
        mid = (a + e) >> 1
        if buf[mid] < x:
            a = mid + 1
        else:
            e = mid
    return a


@njit(cache=True)
def evict(BUF, BS, BE, W, E, base, p):
    """Drop from every buffer the positions that cannot share a window with p."""
    if W[0] == 0:
        return
    for s in range(BUF.shape[0]):
        a = BS[s]
        while a < BE[s] and not inside(W, E, base, BUF[s, a], p):
            a += 1
        BS[s] = a


@njit(cache=True)
def push(BUF, BS, BE, s, p):
    """Append p to buffer s; returns the buffer matrix (moved down or grown when full)."""
    if BE[s] == BUF.shape[1]:
        if BS[s] > BUF.shape[1] // 2:
            n = BE[s] - BS[s]
            BUF[s, :n] = BUF[s, BS[s]:BE[s]]
            BS[s] = 0
            BE[s] = n
        else:
            grown = np.full((BUF.shape[0], 2 * BUF.shape[1]), NONE, np.int64)
            grown[:, : BUF.shape[1]] = BUF
            BUF = grown
    BUF[s, BE[s]] = p
    BE[s] += 1
    return BUF


@njit(cache=True)
def add_row(A, n, head0, head1, m):
    """Row n of A = [head0, head1, m...] (A grown when full); returns A."""
    if n == A.shape[0]:
        grown = np.empty((2 * A.shape[0], A.shape[1]), np.int64)
        grown[:n] = A
        A = grown
    A[n, 0] = head0
    A[n, 1] = head1
    A[n, 2: 2 + m.shape[0]] = m
    return A


@njit(cache=True)
def expire(A, n, W, E, base, p, oldest):
    """Rows of A[:n] (positions from column 2) whose events no longer fit a window with p are dropped,
    keeping order; skipped while `oldest` (a lower bound of their first positions, -1: unknown) still fits.
    Returns (n, oldest). Rows added later start no earlier than the one they extend, or at p."""
    if W[0] == 0 or n == 0:
        return n, -1
    if oldest >= 0 and inside(W, E, base, oldest, p):
        return n, oldest
    k = 0
    oldest = INF
    for r in range(n):
        f = first_of(A[r, 2:])
        if f == INF or inside(W, E, base, f, p):
            if k != r:
                A[k] = A[r]
            k += 1
            if f < oldest:
                oldest = f
    return k, (-1 if oldest == INF else oldest)
