"""The eager NFA in Numba (spec/001 §3; reference/pattern/eager.py is the definition): every event is
applied to every instance in arrival order. An event may be taken by a variable of the instance's branch
whose pattern predecessors are all bound and whose successors are not; each instance also survives by
ignoring it (it stays in place: the instances that leave the window are compacted out, new ones appended).
The checks that become decidable with the new binding are evaluated then; a complete match has its
negations decided (optimized/lazy/negation.py).

Instances: rows I[k] = [branch, bound mask, positions...]. cnt[0] counts partial matches created, cnt[1]
clauses evaluated.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cepkit.optimized.lazy.common import NONE, add_row, expire, fits, holds_on
from cepkit.optimized.lazy.negation import accept, release


@njit(cache=True)
def _step(b, m, have, cand, p, now, inb, pred, succ, CHK, nchk, NEG, nneg, TMN, ALL, R, T, E, base, W, I, ni, OUT,
          nout, PEND, npend, stk, cnt):
    """Every take of the event at p by instance m (bound mask `have`) of branch b, by the variables in
    `cand` (unbound, of p's type): new instances appended to I, matches to OUT."""
    V = m.shape[0]
    for v in range(V):
        if not cand >> v & 1:
            continue
        if pred[b, v] & have != pred[b, v] or succ[b, v] & have:
            continue
        m[v] = p
        bound = have | (1 << v)
        ok = fits(W, E, base, m)
        if ok:
            for c in range(nchk[b]):
                needs = CHK[b, c, 2]
                if needs >> v & 1 and needs & bound == needs:
                    if not holds_on(CHK[b, c, 0], m, CHK[b, c, 1], R, T, E, base, stk, cnt):
                        ok = False
                        break
        if ok:
            if bound == inb[b]:
                OUT, nout, PEND, npend = accept(b, ALL[b], m, p, now, NEG, nneg, TMN, W, E, base, R, T, stk, cnt,
                                                OUT, nout, PEND, npend)
            else:
                cnt[0] += 1
                I = add_row(I, ni, b, bound, m)
                ni += 1
        m[v] = NONE
    return I, ni, OUT, nout, PEND, npend


@njit(cache=True, nogil=True)
def run(start, end, now, base, E, W, TM, TMN, inb, pred, succ, CHK, nchk, NEG, nneg, ALL, T, I, ni, OUT, nout, PEND,
        npend, cnt, live_max):
    """Events start..end-1 (now: the end of the store); returns (next position, I, ni, OUT, nout, PEND,
    npend). Stops after an event once more than live_max instances live or are held (< 0: never)."""
    B = inb.shape[0]
    V = TM.shape[0]
    R = np.zeros((1, 1, 3 + 3 * V), np.int64)
    stk = np.zeros((3, max(64, T[1, 2])), np.int64)
    m = np.full(V, NONE, np.int64)
    oldest = -1  # unknown: the first expire() call computes it
    p = start
    while p < end:
        if npend:
            OUT, nout, npend = release(p, PEND, npend, NEG, nneg, TMN, W, E, base, R, T, stk, cnt, OUT, nout, m)
        code = E[0][p - base]
        tmask = 0
        for v in range(V):
            if TM[v, code]:
                tmask |= 1 << v
        ni, oldest = expire(I, ni, W, E, base, p, oldest)  # timeout: no later event fits either
        old = ni
        if tmask:
            for b in range(B):
                if tmask & inb[b]:
                    m[:] = NONE
                    I, ni, OUT, nout, PEND, npend = _step(b, m, 0, tmask & inb[b], p, now, inb, pred, succ, CHK, nchk,
                                                          NEG, nneg, TMN, ALL, R, T, E, base, W, I, ni, OUT, nout,
                                                          PEND, npend, stk, cnt)
            for r in range(old):
                b = I[r, 0]
                cand = tmask & inb[b] & ~I[r, 1]
                if cand:
                    m[:] = I[r, 2:]
                    I, ni, OUT, nout, PEND, npend = _step(b, m, I[r, 1], cand, p, now, inb, pred, succ, CHK, nchk,
                                                          NEG, nneg, TMN, ALL, R, T, E, base, W, I, ni, OUT, nout,
                                                          PEND, npend, stk, cnt)
        p += 1
        if 0 <= live_max < ni + npend:
            break
    return p, I, ni, OUT, nout, PEND, npend
