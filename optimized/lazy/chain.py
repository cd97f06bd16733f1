"""The lazy chain NFA in Numba (spec/001 §4.10; reference/lazy/chain.py is the definition): per branch,
states follow the frequency order. Each event is first offered to the instances waiting at a state whose
variable it can bind (and to the start state), then stored in the buffers of the variables it qualifies
for (negated ones: by type). Entering state i searches variable i's buffer between the bound predecessors
and successors; an instance with no bound successor of variable i also waits there for it to come from
the stream. First-chance negations are checked on entering the first state where all they depend on is
bound; the others when the match is complete (optimized/lazy/negation.py).

S holds the arrays of the query and state: see `run`. Instances waiting: rows WT[k] = [branch, state,
positions...]. cnt[0] counts partial matches created (states 1..n-1 entered), cnt[1] clauses evaluated.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cepkit.optimized.lazy.common import INF, NONE, add_row, below, evict, expire, fits, holds_on, lower, push, qualify
from cepkit.optimized.lazy.negation import accept, fc_blocked, release


@njit(cache=True)
def _state_ok(b, i, m, CST, CHK, R, T, E, base, stk, cnt):
    """The non-unary checks first decidable at state i hold on m."""
    for k in range(CST[b, i, 0]):
        c = CST[b, i, 1 + k]
        if not holds_on(CHK[b, c, 0], m, CHK[b, c, 1], R, T, E, base, stk, cnt):
            return False
    return True


@njit(cache=True)
def _range(b, i, m, ORD, LO, HI, BUF, BS, BE, V):
    """The index range of state i's buffer between m's bound predecessors and successors of its variable."""
    lo = -1
    hi = INF
    for u in range(V):
        if LO[b, i] >> u & 1 and m[u] > lo:
            lo = m[u]
        if HI[b, i] >> u & 1 and m[u] < hi:
            hi = m[u]
    s = b * V + ORD[b, i]
    a = lower(BUF[s], BS[s], BE[s], lo)
    e = BE[s] if hi == INF else below(BUF[s], a, BE[s], hi)
    return a, e


@njit(cache=True)
def _advance(b, i0, m, p, now, npos, ORD, LO, HI, CST, CHK, FCS, PPM, NEG, nneg, TMN, KN, R, T, E, base, W,
             BUF, BS, BE, WT, nw, OUT, nout, PEND, npend, stk, cnt, fs, fa, fe):
    """The stream event at p taken at state i0 - 1 by m; if it fits and passes that state's checks, enter
    state i0 (depth-first over the buffered candidates of every later state)."""
    V = m.shape[0]
    B = npos.shape[0]
    n = npos[b]
    t = ORD[b, i0 - 1]
    for u in range(V):
        if LO[b, i0 - 1] >> u & 1 and m[u] >= p:
            return WT, nw, OUT, nout, PEND, npend
    m[t] = p
    if not (fits(W, E, base, m) and _state_ok(b, i0 - 1, m, CST, CHK, R, T, E, base, stk, cnt)):
        m[t] = NONE
        return WT, nw, OUT, nout, PEND, npend
    d = 0
    i = i0
    while True:
        # enter state i with m
        if i < n:
            cnt[0] += 1
        if FCS[b, i] == 0 or not fc_blocked(b, FCS[b, i], m, NEG, TMN, BUF, BS, BE, B * V, KN, W, E, base, R, T,
                                            stk, cnt):
            if i == n:
                OUT, nout, PEND, npend = accept(b, PPM[b], m, p, now, NEG, nneg, TMN, W, E, base, R, T, stk, cnt,
                                                OUT, nout, PEND, npend)
            else:
                a, e = _range(b, i, m, ORD, LO, HI, BUF, BS, BE, V)
                if HI[b, i] == 0:
                    WT = add_row(WT, nw, b, i, m)
                    nw += 1
                if a < e:
                    fs[d] = i
                    fa[d] = a
                    fe[d] = e
                    d += 1
        # next candidate of the deepest open state
        i = -1
        while d > 0:
            j = fs[d - 1]
            v = ORD[b, j]
            m[v] = NONE
            if fa[d - 1] >= fe[d - 1]:
                d -= 1
                continue
            y = BUF[b * V + v, fa[d - 1]]
            fa[d - 1] += 1
            used = False
            for u in range(V):
                if m[u] == y:
                    used = True
            if used:
                continue
            m[v] = y
            if fits(W, E, base, m) and _state_ok(b, j, m, CST, CHK, R, T, E, base, stk, cnt):
                i = j + 1
                break
        if i < 0:
            break
    m[t] = NONE
    return WT, nw, OUT, nout, PEND, npend


@njit(cache=True, nogil=True)
def run(start, end, now, base, E, W, TM, TMN, UN, inb, npos, ORD, LO, HI, CST, CHK, FCS, PPM, NEG, nneg, T,
        BUF, BS, BE, WT, nw, OUT, nout, PEND, npend, cnt, live_max):
    """Events start..end-1 (now: the end of the store); returns (next position, BUF, WT, nw, OUT, nout, PEND,
    npend). Stops early (after an event) once more than live_max instances wait or are held (< 0: never)."""
    B = npos.shape[0]
    V = UN.shape[1]
    KN = NEG.shape[1]
    R = np.zeros((1, 1, 3 + 3 * V), np.int64)
    stk = np.zeros((3, max(64, T[1, 2])), np.int64)
    m = np.full(V, NONE, np.int64)
    one = np.full(V, NONE, np.int64)
    fs = np.zeros(V + 1, np.int64)
    fa = np.zeros(V + 1, np.int64)
    fe = np.zeros(V + 1, np.int64)
    qual = np.zeros(B, np.int64)
    oldest = -1  # unknown: the first expire() call computes it
    p = start
    while p < end:
        if npend:
            OUT, nout, npend = release(p, PEND, npend, NEG, nneg, TMN, W, E, base, R, T, stk, cnt, OUT, nout, m)
        if p & 63 == 0:  # a buffered event out of p's window is never a candidate (fits() refuses it)
            evict(BUF, BS, BE, W, E, base, p)
        for b in range(B):
            qual[b] = qualify(b, p, TM, UN, inb, T, E, base, R, stk, cnt, one)
        # instances that left the window go; the rest are offered the event (not those it creates)
        nw, oldest = expire(WT, nw, W, E, base, p, oldest)
        alive = nw
        for r in range(-B, alive):  # the start state of each branch, then the waiting instances
            if r < 0:
                b = r + B
                i = 0
            else:
                b = WT[r, 0]
                i = WT[r, 1]
            if qual[b] >> ORD[b, i] & 1:
                if r < 0:
                    m[:] = NONE
                else:
                    m[:] = WT[r, 2:]
                if FCS[b, i + 1] == 0:  # fast path: the next state completes the match or has no candidate
                    ok = True
                    for u in range(V):
                        if LO[b, i] >> u & 1 and m[u] >= p:
                            ok = False
                    if not ok:
                        continue
                    m[ORD[b, i]] = p
                    last = i + 1 == npos[b]
                    a = e = 0
                    if not last:
                        a, e = _range(b, i + 1, m, ORD, LO, HI, BUF, BS, BE, V)
                    if last or a == e:
                        if not (fits(W, E, base, m) and _state_ok(b, i, m, CST, CHK, R, T, E, base, stk, cnt)):
                            continue
                        if last:
                            OUT, nout, PEND, npend = accept(b, PPM[b], m, p, now, NEG, nneg, TMN, W, E, base, R, T,
                                                            stk, cnt, OUT, nout, PEND, npend)
                        else:
                            cnt[0] += 1
                            if HI[b, i + 1] == 0:
                                WT = add_row(WT, nw, b, i + 1, m)
                                nw += 1
                        continue
                    m[ORD[b, i]] = NONE
                WT, nw, OUT, nout, PEND, npend = _advance(b, i + 1, m, p, now, npos, ORD, LO, HI, CST, CHK, FCS, PPM,
                                                          NEG, nneg, TMN, KN, R, T, E, base, W, BUF, BS, BE, WT, nw,
                                                          OUT, nout, PEND, npend, stk, cnt, fs, fa, fe)
        code = E[0][p - base]
        for b in range(B):
            for v in range(V):
                if qual[b] >> v & 1:
                    BUF = push(BUF, BS, BE, b * V + v, p)
            for k in range(nneg[b]):
                if TMN[NEG[b, k, 0], code]:
                    BUF = push(BUF, BS, BE, B * V + b * KN + k, p)
        p += 1
        if 0 <= live_max < nw + npend:
            break
    return p, BUF, WT, nw, OUT, nout, PEND, npend


