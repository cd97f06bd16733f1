"""The eager NFA in Numba (spec/001 §3; reference/pattern/eager.py is the definition): every event is
applied to every instance in arrival order. An event may be taken by a variable of the instance's branch
whose pattern predecessors are all bound and whose successors are not; each instance also survives by
ignoring it. The checks that become decidable with the new binding are evaluated then.

Instances: rows I[k] = [branch, -, positions...]. cnt[0] counts partial matches created, cnt[1] clauses.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from optimized.lazy.common import NONE, add_row, bound_mask, first_of, fits, holds_on, inside


@njit(cache=True)
def _step(b, m, p, TM, inb, pred, succ, CHK, nchk, R, T, E, base, W, NI, nn, OUT, nout, stk, cnt):
    """Every take of the event at p by instance m of branch b (new instances into NI, matches into OUT)."""
    V = m.shape[0]
    code = E[0][p - base]
    have = bound_mask(m)
    for v in range(V):
        if not (inb[b] >> v & 1) or have >> v & 1 or not TM[v, code]:
            continue
        if pred[b, v] & have != pred[b, v] or succ[b, v] & have:
            continue
        m[v] = p
        now = have | (1 << v)
        ok = fits(W, E, base, m)
        if ok:
            for c in range(nchk[b]):
                needs = CHK[b, c, 2]
                if needs >> v & 1 and needs & now == needs:
                    if not holds_on(CHK[b, c, 0], m, CHK[b, c, 1], R, T, E, base, stk, cnt):
                        ok = False
                        break
        if ok:
            if now == inb[b]:
                OUT = add_row(OUT, nout, b, 0, m)
                nout += 1
            else:
                cnt[0] += 1
                NI = add_row(NI, nn, b, 0, m)
                nn += 1
        m[v] = NONE
    return NI, nn, OUT, nout


@njit(cache=True)
def run(start, end, base, E, W, TM, inb, pred, succ, CHK, nchk, T, I, ni, NI, OUT, nout, cnt, live_max):
    """Events start..end-1; returns (next position, I, ni, NI, OUT, nout) with I the live instances (NI the
    spare array they alternate with). Stops after an event once more than live_max instances live."""
    B = inb.shape[0]
    V = TM.shape[0]
    R = np.zeros((1, 1, 3 + 3 * V), np.int64)
    stk = np.zeros((3, max(64, T[1, 2])), np.int64)
    m = np.full(V, NONE, np.int64)
    p = start
    while p < end:
        nn = 0
        for b in range(B):
            m[:] = NONE
            NI, nn, OUT, nout = _step(b, m, p, TM, inb, pred, succ, CHK, nchk, R, T, E, base, W, NI, nn, OUT, nout,
                                      stk, cnt)
        for r in range(ni):
            m[:] = I[r, 2:]
            if W[0] != 0 and not inside(W, E, base, first_of(m), p):
                continue  # timeout: no later event fits either
            NI = add_row(NI, nn, I[r, 0], 0, m)
            nn += 1
            NI, nn, OUT, nout = _step(I[r, 0], m, p, TM, inb, pred, succ, CHK, nchk, R, T, E, base, W, NI, nn, OUT,
                                      nout, stk, cnt)
        I, NI = NI, I
        ni = nn
        p += 1
        if 0 <= live_max < ni:
            break
    return p, I, ni, NI, OUT, nout
