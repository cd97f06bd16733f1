"""The tree NFA in Numba (spec/001 §5; reference/lazy/tree.py is the definition): each instance chooses
its next variable from its own buffer counts. An instance's buffer of unbound variable v is the branch's
buffer of v after the instance's cut for v, less the events the instance binds (what the reference keeps
per instance, without the copies). After an event is stored, an instance whose every unbound variable
has a buffered event takes its rarest one (fewest events, ties by text order): it spawns a child per
candidate that passes the ordering filters, the window and the checks, evaluated at once, and moves its
cut for that variable to the current event. Negations are decided on complete matches (post-processing).

Instances: rows TI[k] = [branch, -, positions (V), cuts (V)]. cnt[0] counts partial matches created.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cepkit.optimized.lazy.common import INF, NONE, bound_mask, evict, first_of, fits, holds_on, inside, lower, push, qualify
from cepkit.optimized.lazy.negation import accept, release


@njit(cache=True)
def _count(BUF, BS, BE, s, cut, inst, V):
    """Events of buffer s after cut that the instance does not bind."""
    a = lower(BUF[s], BS[s], BE[s], cut)
    k = BE[s] - a
    for u in range(V):
        x = inst[u]
        if x > cut:
            j = lower(BUF[s], a, BE[s], x - 1)
            if j < BE[s] and BUF[s, j] == x:
                k -= 1
    return k


@njit(cache=True)
def _expire(TI, n, W, E, base, p, oldest, V):
    """Instances whose events no longer fit a window with p are dropped (roots stay); returns (n, oldest)."""
    if W[0] == 0 or n == 0:
        return n, -1
    if oldest >= 0 and inside(W, E, base, oldest, p):
        return n, oldest
    k = 0
    oldest = INF
    for r in range(n):
        f = first_of(TI[r, 2: 2 + V])
        if f == INF or inside(W, E, base, f, p):
            if k != r:
                TI[k] = TI[r]
            k += 1
            if f < oldest:
                oldest = f
    return k, (-1 if oldest == INF else oldest)


@njit(cache=True)
def _grow(TI, n):
    if n == TI.shape[0]:
        grown = np.empty((2 * TI.shape[0], TI.shape[1]), np.int64)
        grown[:n] = TI
        return grown
    return TI


@njit(cache=True, nogil=True)
def run(start, end, now, base, E, W, TM, TMN, UN, inb, text, pred, succ, CHK, nchk, NEG, nneg, ALL, T, BUF, BS, BE,
        TI, nt, OUT, nout, PEND, npend, cnt, live_max):
    """Events start..end-1 (now: the end of the store); returns (next position, BUF, TI, nt, OUT, nout, PEND,
    npend)."""
    B = inb.shape[0]
    V = UN.shape[1]
    R = np.zeros((1, 1, 3 + 3 * V), np.int64)
    stk = np.zeros((3, max(64, T[1, 2])), np.int64)
    one = np.full(V, NONE, np.int64)
    m = np.full(V, NONE, np.int64)
    oldest = -1  # unknown: the first _expire() call computes it
    p = start
    while p < end:
        if npend:
            OUT, nout, npend = release(p, PEND, npend, NEG, nneg, TMN, W, E, base, R, T, stk, cnt, OUT, nout, m)
        evict(BUF, BS, BE, W, E, base, p)
        for b in range(B):  # store first (spec/001 §10 A11)
            q = qualify(b, p, TM, UN, inb, T, E, base, R, stk, cnt, one)
            for v in range(V):
                if q >> v & 1:
                    BUF = push(BUF, BS, BE, b * V + v, p)
        nt, oldest = _expire(TI, nt, W, E, base, p, oldest, V)
        r = 0
        while r < nt:  # children are appended and evaluated in turn
            b = TI[r, 0]
            inst = TI[r, 2: 2 + V]
            have = bound_mask(inst)
            best = -1
            bestn = INF
            ne = True
            for v in range(V):
                if not (inb[b] >> v & 1) or have >> v & 1:
                    continue
                c = _count(BUF, BS, BE, b * V + v, TI[r, 2 + V + v], inst, V)
                if c == 0:
                    ne = False
                    break
                if c < bestn or (c == bestn and text[b, v] < text[b, best]):
                    best = v
                    bestn = c
            if not ne:
                r += 1
                continue
            lo = -1
            hi = INF
            for u in range(V):
                if pred[b, best] >> u & 1 and inst[u] >= 0 and inst[u] > lo:
                    lo = inst[u]
                if succ[b, best] >> u & 1 and inst[u] >= 0 and inst[u] < hi:
                    hi = inst[u]
            s = b * V + best
            bound = have | (1 << best)
            a = lower(BUF[s], BS[s], BE[s], TI[r, 2 + V + best])
            e = BE[s]
            TI[r, 2 + V + best] = p  # none of these can be taken by this instance again
            for j in range(a, e):
                y = BUF[s, j]
                if not (lo < y < hi):
                    continue
                used = False
                for u in range(V):
                    if TI[r, 2 + u] == y:
                        used = True
                if used:
                    continue
                m[:] = TI[r, 2: 2 + V]
                m[best] = y
                if not fits(W, E, base, m):
                    continue
                ok = True
                for c in range(nchk[b]):
                    needs = CHK[b, c, 2]
                    if CHK[b, c, 3] == 0 and needs >> best & 1 and needs & bound == needs:
                        if not holds_on(CHK[b, c, 0], m, CHK[b, c, 1], R, T, E, base, stk, cnt):
                            ok = False
                            break
                if not ok:
                    continue
                if bound == inb[b]:
                    OUT, nout, PEND, npend = accept(b, ALL[b], m, p, now, NEG, nneg, TMN, W, E, base, R, T, stk, cnt,
                                                    OUT, nout, PEND, npend)
                else:
                    cnt[0] += 1
                    TI = _grow(TI, nt)
                    TI[nt] = TI[r]
                    TI[nt, 2: 2 + V] = m
                    nt += 1
            r += 1
        p += 1
        if 0 <= live_max < nt + npend:
            break
    return p, BUF, TI, nt, OUT, nout, PEND, npend
