"""Kleene closure in Numba: the eager NFA (reference/pattern/eager.py is the definition) over assignments
whose variables may bind several events.

A row holds one assignment of variable length: [branch, key, len per global variable (0: unbound), then
the positions of variable 0, of variable 1, ...] (each variable's positions in stream order). Row arrays
are widened (more position columns) when an assignment outgrows them. WHERE checks are evaluated as the
reference does (PatternProgram.check): BEGIN on the first element with the variables earlier in text
order bound, TAKE on every element from the 2nd on with the closure's prefix bound, PROCEED on the whole
closure; the run row R read by the shared evaluator (cepkit.optimized.nfab.formulas.holds) gets first / last / length
and the aggregate accumulators of every bound variable.

KIND[b, c]: 0 BEGIN, 1 TAKE, 2 PROCEED; KL[b]: the mask of branch b's Kleene variables.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cepkit.optimized.lazy.common import INF, below, evict, inside, lower, push, qualify
from cepkit.optimized.nfab import formulas as K
from cepkit.optimized.nfab.layout import AGGW, HDR
from cepkit.optimized.values import agg_add

NUMV = 0


@njit(cache=True)
def total(row, V):
    t = 0
    for v in range(V):
        t += row[2 + v]
    return t


@njit(cache=True)
def offset(row, V, v):
    o = 2 + V
    for u in range(v):
        o += row[2 + u]
    return o


@njit(cache=True)
def span(row, V):
    """(first, last) position of the row's events ((INF, -1) when none)."""
    lo = INF
    hi = -1
    o = 2 + V
    for k in range(o, o + total(row, V)):
        x = row[k]
        if x < lo:
            lo = x
        if x > hi:
            hi = x
    return lo, hi


@njit(cache=True)
def fits_row(W, E, base, row, V):
    lo, hi = span(row, V)
    return hi < 0 or inside(W, E, base, lo, hi)


@njit(cache=True)
def widen(A, width):
    """A with at least `width` columns (doubled)."""
    if A.shape[1] >= width:
        return A
    w = A.shape[1]
    while w < width:
        w *= 2
    grown = np.full((A.shape[0], w), -1, np.int64)
    grown[:, : A.shape[1]] = A
    return grown


@njit(cache=True)
def put(A, n, row, key):
    """Row n of A = row (with A's key column set to key); grows A (rows, columns) as needed."""
    V_used = row.shape[0]
    if n == A.shape[0]:
        grown = np.full((2 * A.shape[0], A.shape[1]), -1, np.int64)
        grown[:n] = A
        A = grown
    if A.shape[1] < V_used:
        A = widen(A, V_used)
    A[n, :V_used] = row
    A[n, 1] = key
    return A


@njit(cache=True)
def append(row, V, v, p, out):
    """out = row with p appended to variable v (out must have a column more than the row uses)."""
    t = total(row, V)
    o = offset(row, V, v) + row[2 + v]
    out[:o] = row[:o]
    out[o] = p
    out[o + 1: 2 + V + t + 1] = row[o: 2 + V + t]
    out[2 + v] = row[2 + v] + 1


@njit(cache=True)
def bind_var(R, row, V, v, count, T, E, base):
    """Variable v of R bound to the first `count` events of the row's closure (0: unbound)."""
    o = HDR + 3 * v
    if count == 0:
        R[0, 0, o + 2] = 0
    else:
        s = offset(row, V, v)
        R[0, 0, o] = row[s]
        R[0, 0, o + 1] = row[s + count - 1]
        R[0, 0, o + 2] = count
    oa = T[1, 0]
    for g in range(T[1, 1]):
        if T[oa + g, 0] != v:
            continue
        a = T[oa + g, 1]
        d = HDR + 3 * V + AGGW * g
        R[0, 0, d] = 0
        R[0, 0, d + 1] = 1
        R[0, 0, d + 2] = 0
        if count == 0:
            continue
        s = offset(row, V, v)
        for k in range(s, s + count):
            q = row[k] - base
            if E[4][a, q] != 1:  # not NULL
                agg_add(R[0, 0], d, E[2][a, q], E[3][a, q])


@njit(cache=True)
def check(b, c, row, V, CHK, KIND, TEXT, R, T, E, base, stk, cnt):
    """Whether check c of branch b holds on the row's assignment (PatternProgram.check)."""
    fid = CHK[b, c, 0]
    var = CHK[b, c, 1]
    j = TEXT[b, var]
    for u in range(V):
        count = row[2 + u] if u != var and TEXT[b, u] >= 0 and TEXT[b, u] < j else row[2 + u] * 0
        bind_var(R, row, V, u, count, T, E, base)  # one signature (no literal 0)
    s = offset(row, V, var)
    n = row[2 + var]
    kind = KIND[b, c]
    a, e = 0, 1                      # BEGIN: the first element, the variable itself unbound
    if kind == 1:                    # TAKE: every element from the 2nd on, with the closure's prefix bound
        a, e = 1, n
    for i in range(a, e):            # one call site of the evaluator (its code is large)
        q = row[s]
        if kind == 1:
            bind_var(R, row, V, var, i, T, E, base)
            q = row[s + i]
        elif kind == 2:              # PROCEED: the whole closure
            bind_var(R, row, V, var, n, T, E, base)
            q = row[s + n - 1]
        if not K.holds(fid, R, 0, 0, q, T, E, base, V, stk, cnt):
            return False
    return True


@njit(cache=True)
def _closed(b, have, KL, succ, V):
    """Kleene variables (bound) that can take no more events: a successor is bound."""
    c = 0
    for v in range(V):
        if KL[b] >> v & 1 and have >> v & 1 and succ[b, v] & have:
            c |= 1 << v
    return c


@njit(cache=True)
def _ready(b, c, have, closed, CHK, KIND, KL):
    needs = CHK[b, c, 2]
    if needs & have != needs:
        return False
    opn = needs & KL[b] & ~closed
    return opn == 0 or (KIND[b, c] == 0 and opn == 1 << CHK[b, c, 1])


@njit(cache=True)
def bound_mask(row, V):
    m = 0
    for v in range(V):
        if row[2 + v] > 0:
            m |= 1 << v
    return m


@njit(cache=True)
def _step(b, row, p, now, TM, inb, pred, succ, KL, CHK, KIND, nchk, TEXT, NEG, nneg, TMN, ALL, R, T, E, base, W, I,
          ni, OUT, nout, PEND, npend, stk, cnt, out):
    """Every take of the event at p by the instance `row` of branch b (reference EagerProgram._step)."""
    V = TM.shape[0]
    code = E[0][p - base]
    have = bound_mask(row, V)
    closed_before = _closed(b, have, KL, succ, V)
    for v in range(V):
        if not (inb[b] >> v & 1) or not TM[v, code]:
            continue
        if have >> v & 1 and (not (KL[b] >> v & 1) or closed_before >> v & 1):
            continue
        if pred[b, v] & have != pred[b, v] or succ[b, v] & have:
            continue
        append(row, V, v, p, out)
        if not fits_row(W, E, base, out, V):
            continue
        have2 = have | (1 << v)
        closed = _closed(b, have2, KL, succ, V)
        complete = have2 == inb[b]
        ok = True
        for c in range(nchk[b]):
            was = _ready(b, c, have, closed_before, CHK, KIND, KL) and not (CHK[b, c, 2] >> v & 1)
            ready = _ready(b, c, have2, closed, CHK, KIND, KL)
            if ready and not was and not check(b, c, out, V, CHK, KIND, TEXT, R, T, E, base, stk, cnt):
                ok = False
                break
        if not ok:
            continue
        used = 2 + V + total(out, V)
        if complete:
            good = True
            for c in range(nchk[b]):
                if not _ready(b, c, have2, closed, CHK, KIND, KL):
                    if not check(b, c, out, V, CHK, KIND, TEXT, R, T, E, base, stk, cnt):
                        good = False
                        break
            if good:
                OUT, nout, PEND, npend = kaccept(b, ALL[b], out[:used], V, p, now, NEG, nneg, TMN, W, E, base, R, T,
                                                 stk, cnt, OUT, nout, PEND, npend)
            if KL[b] & ~closed & inb[b]:
                I = put(I, ni, out[:used], 0)
                ni += 1
        else:
            cnt[0] += 1
            I = put(I, ni, out[:used], 0)
            ni += 1
    return I, ni, OUT, nout, PEND, npend


@njit(cache=True, inline="always")
def _past(n, npend, nout, cnt):
    """Whether the instances and held matches, with the matches the event in process completed (OUT rows from
    cnt[2] on), are past the budget cnt[5] (< 0: none): one event can enumerate 2^k subsets. Sets cnt[3]."""
    if 0 <= cnt[5] < n + npend + nout - cnt[2]:
        cnt[3] = 1
        return True
    return False


@njit(cache=True, inline="always")
def _subsets_past(c, cnt):
    """Whether the 2^c subsets of c buffered Kleene candidates, the instances the lazy buffer stands for, are
    past the budget cnt[5] (< 0: none; past 62 candidates always: the masks are int64). Sets cnt[3] (stopped
    inside the event) and cnt[6] (the instances, at most 2^62)."""
    if c > 62 or (0 <= cnt[5] < (1 << c)):
        cnt[3] = 1
        cnt[6] = (1 << 62) if c > 62 else (1 << c)
        return True
    return False


@njit(cache=True, nogil=True)
def eager_run(start, end, now, base, E, W, TM, TMN, inb, pred, succ, KL, CHK, KIND, nchk, TEXT, NEG, nneg, ALL, T, I,
              ni, OUT, nout, PEND, npend, cnt, live_max):
    """Events start..end-1; returns (next position, I, ni, OUT, nout). Matches go to OUT rows with key
    2 * position + 1 (the event that completed them). Stops after an event once more than live_max
    instances live (< 0: never)."""
    B = inb.shape[0]
    V = TM.shape[0]
    nagg = T[1, 1]
    R = np.zeros((1, 1, HDR + 3 * V + AGGW * nagg + 1), np.int64)
    stk = np.zeros((3, max(64, T[1, 2])), np.int64)
    p = start
    while p < end:
        if npend:
            OUT, nout, npend = krelease(p, V, PEND, npend, NEG, nneg, TMN, W, E, base, R, T, stk, cnt, OUT, nout)
        width = max(I.shape[1], OUT.shape[1]) + 1
        row = np.full(width, 0, np.int64)
        out = np.full(width + 1, 0, np.int64)
        # timeout: instances whose first event no longer shares a window with p go (order kept)
        k = 0
        for r in range(ni):
            lo, hi = span(I[r], V)
            if W[0] == 0 or inside(W, E, base, lo, p):
                if k != r:
                    I[k] = I[r]
                k += 1
        ni = k
        old = ni
        cnt[2] = nout
        code = E[0][p - base]
        any_type = False
        for v in range(V):
            if TM[v, code]:
                any_type = True
        if any_type:
            for b in range(B):
                row[:] = 0
                row[0] = b
                if out.shape[0] < 2 + V + 1:
                    out = np.full(2 + V + 2, 0, np.int64)
                I, ni, OUT, nout, PEND, npend = _step(b, row, p, now, TM, inb, pred, succ, KL, CHK, KIND, nchk, TEXT,
                                                      NEG, nneg, TMN, ALL, R, T, E, base, W, I, ni, OUT, nout, PEND,
                                                      npend, stk, cnt, out)
            for r in range(old):
                if row.shape[0] < I.shape[1] + 1:
                    row = np.full(I.shape[1] + 1, 0, np.int64)
                    out = np.full(I.shape[1] + 2, 0, np.int64)
                row[:] = 0
                row[: I.shape[1]] = I[r]
                I, ni, OUT, nout, PEND, npend = _step(I[r, 0], row, p, now, TM, inb, pred, succ, KL, CHK, KIND, nchk,
                                                      TEXT, NEG, nneg, TMN, ALL, R, T, E, base, W, I, ni, OUT, nout,
                                                      PEND, npend, stk, cnt, out)
                if _past(ni, npend, nout, cnt):
                    break
        if cnt[3] == 1:  # stopped inside the event: the engine raises ResourceLimit
            break
        p += 1
        if 0 <= live_max < ni + npend or 0 <= cnt[4] <= nout:  # the budget, or the matches wanted (cnt[4])
            break
    return p, I, ni, OUT, nout, PEND, npend


# ---------------------------------------------------------------------------------------- the chain NFA
@njit(cache=True)
def _first_last(row, V, v):
    s = offset(row, V, v)
    return row[s], row[s + row[2 + v] - 1]


@njit(cache=True)
def _cands(b, i, row, V, hi_cap, ORD, LO, HI, BUF, BS, BE):
    """State i's buffered candidates between the row's bound predecessors and successors of its variable
    (and below hi_cap), not already bound by the row."""
    lo = -1
    hi = hi_cap
    for u in range(V):
        if row[2 + u] == 0:
            continue
        f, la = _first_last(row, V, u)
        if LO[b, i] >> u & 1 and la > lo:
            lo = la
        if HI[b, i] >> u & 1 and f < hi:
            hi = f
    s = b * V + ORD[b, i]
    a = lower(BUF[s], BS[s], BE[s], lo)
    e = BE[s] if hi == INF else below(BUF[s], a, BE[s], hi)
    out = np.empty(max(0, e - a), np.int64)
    n = 0
    t = total(row, V)
    for k in range(a, e):
        y = BUF[s, k]
        used = False
        for j in range(2 + V, 2 + V + t):
            if row[j] == y:
                used = True
                break
        if not used:
            out[n] = y
            n += 1
    return out[:n]


@njit(cache=True)
def set_var(row, V, v, ps, out):
    """out = row (v unbound) with v bound to the positions ps."""
    t = total(row, V)
    o = offset(row, V, v)
    k = ps.shape[0]
    out[:o] = row[:o]
    out[o: o + k] = ps
    out[o + k: 2 + V + t + k] = row[o: 2 + V + t]
    out[2 + v] = k


@njit(cache=True)
def _bind(b, i, row, ps, p, now, npos, ORD, LO, HI, CST, CHK, KIND, TEXT, KL, FCS, PPM, NEG, nneg, TMN, R, T, E, base,
          W, BUF, BS, BE, WT, nw, OUT, nout, PEND, npend, stk, cnt):
    """The row with state i's variable bound to ps: if it fits and passes state i's checks, state i + 1 is
    entered (reference _bind_and_advance, then _advance)."""
    V = TEXT.shape[1]
    new = np.empty(2 + V + total(row, V) + ps.shape[0], np.int64)
    set_var(row, V, ORD[b, i], ps, new)
    if not fits_row(W, E, base, new, V):
        return WT, nw, OUT, nout, PEND, npend
    for k in range(CST[b, i, 0]):
        if not check(b, CST[b, i, 1 + k], new, V, CHK, KIND, TEXT, R, T, E, base, stk, cnt):
            return WT, nw, OUT, nout, PEND, npend
    # enter state i + 1
    j = i + 1
    n = npos[b]
    if j < n:
        cnt[0] += 1
    if FCS[b, j] != 0 and kfc_blocked(b, FCS[b, j], new, V, NEG, TMN, BUF, BS, BE, npos.shape[0] * V, NEG.shape[1], W,
                                      E, base, R, T, stk, cnt):
        return WT, nw, OUT, nout, PEND, npend
    if j == n:
        OUT, nout, PEND, npend = kaccept(b, PPM[b], new, V, p, now, NEG, nneg, TMN, W, E, base, R, T, stk, cnt, OUT,
                                         nout, PEND, npend)
        return WT, nw, OUT, nout, PEND, npend
    cands = _cands(b, j, new, V, max(p, INF), ORD, LO, HI, BUF, BS, BE)  # not a literal: one signature
    c = cands.shape[0]
    if KL[b] >> ORD[b, j] & 1:
        if _subsets_past(c, cnt):
            return WT, nw, OUT, nout, PEND, npend
        for mask in range(1, 1 << c):
            k = 0
            for x in range(c):
                if mask >> x & 1:
                    k += 1
            sub = np.empty(k, np.int64)
            k = 0
            for x in range(c):
                if mask >> x & 1:
                    sub[k] = cands[x]
                    k += 1
            WT, nw, OUT, nout, PEND, npend = _bind(b, j, new, sub, p, now, npos, ORD, LO, HI, CST, CHK, KIND, TEXT, KL,
                                                   FCS, PPM, NEG, nneg, TMN, R, T, E, base, W, BUF, BS, BE, WT, nw,
                                                   OUT, nout, PEND, npend, stk, cnt)
            if cnt[3] == 1 or _past(nw, npend, nout, cnt):
                return WT, nw, OUT, nout, PEND, npend
    else:
        one = np.empty(1, np.int64)
        for x in range(c):
            one[0] = cands[x]
            WT, nw, OUT, nout, PEND, npend = _bind(b, j, new, one, p, now, npos, ORD, LO, HI, CST, CHK, KIND, TEXT, KL,
                                                   FCS, PPM, NEG, nneg, TMN, R, T, E, base, W, BUF, BS, BE, WT, nw,
                                                   OUT, nout, PEND, npend, stk, cnt)
    if HI[b, j] == 0:
        WT = put(WT, nw, new, j)
        nw += 1
    return WT, nw, OUT, nout, PEND, npend


@njit(cache=True, nogil=True)
def chain_run(start, end, now, base, E, W, TM, TMN, UN, inb, npos, ORD, LO, HI, CST, CHK, KIND, TEXT, KL, FCS, PPM, NEG,
              nneg, T, BUF, BS, BE, WT, nw, OUT, nout, PEND, npend, cnt, live_max):
    """The lazy chain NFA (reference/lazy/chain.py) over variable-length rows, events start..end-1; waiting
    instances are rows [branch, state, lens, positions...]. Returns (next position, BUF, WT, nw, OUT, nout)."""
    B = npos.shape[0]
    V = UN.shape[1]
    nagg = T[1, 1]
    R = np.zeros((1, 1, HDR + 3 * V + AGGW * nagg + 1), np.int64)
    stk = np.zeros((3, max(64, T[1, 2])), np.int64)
    one = np.full(V, -1, np.int64)
    qual = np.zeros(B, np.int64)
    empty = np.zeros(2 + V, np.int64)
    KN = NEG.shape[1]
    p = start
    while p < end:
        if npend:
            OUT, nout, npend = krelease(p, V, PEND, npend, NEG, nneg, TMN, W, E, base, R, T, stk, cnt, OUT, nout)
        evict(BUF, BS, BE, W, E, base, p)
        for b in range(B):
            qual[b] = qualify(b, p, TM, UN, inb, T, E, base, R, stk, cnt, one)
        k = nw * 0  # int64, not a literal (one signature of _bind)
        for r in range(nw):  # instances that left the window go
            lo, hi = span(WT[r], V)
            if W[0] == 0 or inside(W, E, base, lo, p):
                if k != r:
                    WT[k] = WT[r]
                k += 1
        nw = k
        alive = nw
        cnt[2] = nout
        for r in range(-B, alive):  # the start state of each branch, then the waiting instances
            if r < 0:
                b = r + B
                i = 0
                row = empty.copy()
                row[0] = b
            else:
                b = WT[r, 0]
                i = WT[r, 1]
                row = WT[r, : 2 + V + total(WT[r], V)].copy()
            v = ORD[b, i]
            if not qual[b] >> v & 1:
                continue
            lo = -1
            for u in range(V):
                if LO[b, i] >> u & 1 and row[2 + u] > 0:
                    f, la = _first_last(row, V, u)
                    if la > lo:
                        lo = la
            if not lo < p:
                continue
            if KL[b] >> v & 1:
                cands = _cands(b, i, row, V, p, ORD, LO, HI, BUF, BS, BE)
                c = cands.shape[0]
                if _subsets_past(c, cnt):
                    break
                for mask in range(0, 1 << c):
                    kk = 1
                    for x in range(c):
                        if mask >> x & 1:
                            kk += 1
                    sub = np.empty(kk, np.int64)
                    kk = 0
                    for x in range(c):
                        if mask >> x & 1:
                            sub[kk] = cands[x]
                            kk += 1
                    sub[kk] = p
                    WT, nw, OUT, nout, PEND, npend = _bind(b, i, row, sub, p, now, npos, ORD, LO, HI, CST, CHK, KIND, TEXT,
                                                           KL, FCS, PPM, NEG, nneg, TMN, R, T, E, base, W, BUF, BS, BE, WT,
                                                           nw, OUT, nout, PEND, npend, stk, cnt)
                    if cnt[3] == 1 or _past(nw, npend, nout, cnt):
                        break
            else:
                sub = np.empty(1, np.int64)
                sub[0] = p
                WT, nw, OUT, nout, PEND, npend = _bind(b, i, row, sub, p, now, npos, ORD, LO, HI, CST, CHK, KIND, TEXT,
                                                       KL, FCS, PPM, NEG, nneg, TMN, R, T, E, base, W, BUF, BS, BE, WT,
                                                       nw, OUT, nout, PEND, npend, stk, cnt)
            if cnt[3] == 1 or _past(nw, npend, nout, cnt):
                break
        if cnt[3] == 1:  # stopped inside the event: the engine raises ResourceLimit
            break
        for b in range(B):
            for v in range(V):
                if qual[b] >> v & 1:
                    BUF = push(BUF, BS, BE, b * V + v, p)
            for k in range(nneg[b]):
                if TMN[NEG[b, k, 0], E[0][p - base]]:
                    BUF = push(BUF, BS, BE, B * V + b * KN + k, p)
        p += 1
        if 0 <= live_max < nw + npend or 0 <= cnt[4] <= nout:  # the budget, or the matches wanted (cnt[4])
            break
    return p, BUF, WT, nw, OUT, nout, PEND, npend


# ---------------------------------------------------------------------------------------- negation
@njit(cache=True)
def kblocks(b, k, row, V, y, NEG, TMN, W, E, base, R, T, stk, cnt):
    """Whether the event at y is a forbidden event of negation k of branch b for the row (reference
    PatternProgram.blocks: strictly between the bound predecessors' last and successors' first events, not
    one of the row's events, in one window with them, and the negation's clauses hold with every bound
    variable's closure)."""
    if not TMN[NEG[b, k, 0], E[0][y - base]]:
        return False
    lo = -1
    hi = INF
    for u in range(V):
        if row[2 + u] == 0:
            continue
        f, la = _first_last(row, V, u)
        if NEG[b, k, 2] >> u & 1 and la > lo:
            lo = la
        if NEG[b, k, 3] >> u & 1 and f < hi:
            hi = f
    if not (lo < y < hi):
        return False
    o = 2 + V
    for j in range(o, o + total(row, V)):
        if row[j] == y:
            return False
    first, last = span(row, V)
    if y < first:
        first = y
    if y > last:
        last = y
    if not inside(W, E, base, first, last):
        return False
    for u in range(V):
        bind_var(R, row, V, u, row[2 + u], T, E, base)
    return K.holds(NEG[b, k, 1], R, 0, 0, y, T, E, base, V, stk, cnt)


@njit(cache=True)
def kverdict(b, sel, row, V, now, NEG, nneg, TMN, W, E, base, R, T, stk, cnt):
    """1: the negations in `sel` hold on the row; 0: an event up to position now-1 blocks it; 2: wait."""
    wait = False
    for k in range(nneg[b]):
        if not sel >> k & 1:
            continue
        lo = -1
        hi = INF
        for u in range(V):
            if row[2 + u] == 0:
                continue
            f, la = _first_last(row, V, u)
            if NEG[b, k, 2] >> u & 1 and la > lo:
                lo = la
            if NEG[b, k, 3] >> u & 1 and f < hi:
                hi = f
        stop = min(hi, now)
        for y in range(max(lo + 1, base), stop):
            if kblocks(b, k, row, V, y, NEG, TMN, W, E, base, R, T, stk, cnt):
                return 0
        if NEG[b, k, 4]:
            wait = True
    return 2 if wait else 1


@njit(cache=True)
def kaccept(b, sel, row, V, p, now, NEG, nneg, TMN, W, E, base, R, T, stk, cnt, OUT, nout, PEND, npend):
    """A candidate match found at event p: confirmed into OUT (key 2p + 1), held in PEND (key: sel), or
    dropped."""
    v = kverdict(b, sel, row, V, now, NEG, nneg, TMN, W, E, base, R, T, stk, cnt) if sel else 1
    if v == 1:
        OUT = put(OUT, nout, row, 2 * p + 1)
        nout += 1
    elif v == 2:
        PEND = put(PEND, npend, row, sel)
        npend += 1
    return OUT, nout, PEND, npend


@njit(cache=True)
def krelease(p, V, PEND, npend, NEG, nneg, TMN, W, E, base, R, T, stk, cnt, OUT, nout):
    """Held rows at event p: released (key 2p) when p leaves their window, dropped when p blocks one of
    their open-ended negations, kept otherwise (in order)."""
    k = 0
    for r in range(npend):
        b = PEND[r, 0]
        row = PEND[r, : 2 + V + total(PEND[r], V)].copy()
        first, last = span(row, V)
        if W[0] != 0 and not inside(W, E, base, first, p):
            OUT = put(OUT, nout, row, 2 * p)
            nout += 1
            continue
        hit = False
        for j in range(nneg[b]):
            if NEG[b, j, 4] and kblocks(b, j, row, V, p, NEG, TMN, W, E, base, R, T, stk, cnt):
                hit = True
                break
        if not hit:
            if k != r:
                PEND[k] = PEND[r]
            k += 1
    return OUT, nout, k


@njit(cache=True)
def kfc_blocked(b, sel, row, V, NEG, TMN, BUF, BS, BE, slot0, KN, W, E, base, R, T, stk, cnt):
    """First-chance: whether a buffered event of one of the negations in `sel` blocks the row."""
    for k in range(KN):
        if not sel >> k & 1:
            continue
        s = slot0 + b * KN + k
        for j in range(BS[s], BE[s]):
            if kblocks(b, k, row, V, BUF[s, j], NEG, TMN, W, E, base, R, T, stk, cnt):
                return True
    return False
