"""Negation in Numba, as reference/pattern/program.py decides it: a candidate match is blocked by an event
y of a negated variable's types strictly between its bound predecessors and successors (by position), not
one of its events, inside one window with it, for which the negation's clauses hold. A negation with no
positive after it (open-ended) can still be violated later: the match is held until an event leaves its
window (released then) or blocks it (dropped), or until the end of the stream.

NEG[b, k] = [negated variable, formula, predecessor mask, successor mask, open-ended]. Matches go to OUT
rows [branch, order key, positions...]: the order key is 2 * (event position) + 1 for a match confirmed
at that event, 2 * (event position) for one released there (released ones come first, as in the
reference), so sorting rows by key, then last position, then bindings gives the reference's output order.
"""
from __future__ import annotations

from numba import njit

from cepkit.optimized.lazy.common import INF, add_row, first_of, holds_at, inside


@njit(cache=True)
def blocks(b, k, m, y, NEG, TMN, W, E, base, R, T, stk, cnt):
    """Whether the event at y is a forbidden event of negation k of branch b for the (partial) match m."""
    if not TMN[NEG[b, k, 0], E[0][y - base]]:
        return False
    V = m.shape[0]
    lo = -1
    hi = INF
    for u in range(V):
        if m[u] >= 0:
            if NEG[b, k, 2] >> u & 1 and m[u] > lo:
                lo = m[u]
            if NEG[b, k, 3] >> u & 1 and m[u] < hi:
                hi = m[u]
            if m[u] == y:
                return False
    if not (lo < y < hi):
        return False
    lo_p = y
    hi_p = y
    for u in range(V):
        if m[u] >= 0:
            lo_p = min(lo_p, m[u])
            hi_p = max(hi_p, m[u])
    if not inside(W, E, base, lo_p, hi_p):
        return False
    return holds_at(NEG[b, k, 1], m, y, R, T, E, base, stk, cnt)


@njit(cache=True)
def verdict(b, sel, m, now, NEG, nneg, TMN, W, E, base, R, T, stk, cnt):
    """1: the negations in `sel` (a mask of b's) hold on m; 0: an event up to position now-1 blocks it;
    2: wait (an open-ended one may still be violated)."""
    V = m.shape[0]
    wait = False
    for k in range(nneg[b]):
        if not sel >> k & 1:
            continue
        lo = -1
        hi = INF
        for u in range(V):
            if m[u] >= 0:
                if NEG[b, k, 2] >> u & 1 and m[u] > lo:
                    lo = m[u]
                if NEG[b, k, 3] >> u & 1 and m[u] < hi:
                    hi = m[u]
        stop = min(hi, now)
        for y in range(max(lo + 1, base), stop):
            if blocks(b, k, m, y, NEG, TMN, W, E, base, R, T, stk, cnt):
                return 0
        if NEG[b, k, 4]:
            wait = True
    return 2 if wait else 1


@njit(cache=True)
def accept(b, sel, m, p, now, NEG, nneg, TMN, W, E, base, R, T, stk, cnt, OUT, nout, PEND, npend):
    """A candidate match m found at event p: confirmed into OUT, held in PEND, or dropped."""
    v = verdict(b, sel, m, now, NEG, nneg, TMN, W, E, base, R, T, stk, cnt) if sel else 1
    if v == 1:
        OUT = add_row(OUT, nout, b, 2 * p + 1, m)
        nout += 1
    elif v == 2:
        PEND = add_row(PEND, npend, b, sel, m)
        npend += 1
    return OUT, nout, PEND, npend


@njit(cache=True)
def release(p, PEND, npend, NEG, nneg, TMN, W, E, base, R, T, stk, cnt, OUT, nout, m):
    """Held matches at event p: released when p leaves their window, dropped when p blocks one of their
    open-ended negations, kept otherwise (in order)."""
    k = 0
    V = m.shape[0]
    for r in range(npend):
        b = PEND[r, 0]
        m[:] = PEND[r, 2: 2 + V]
        if W[0] != 0 and not inside(W, E, base, first_of(m), p):
            OUT = add_row(OUT, nout, b, 2 * p, m)
            nout += 1
            continue
        hit = False
        for j in range(nneg[b]):
            if NEG[b, j, 4] and blocks(b, j, m, p, NEG, TMN, W, E, base, R, T, stk, cnt):
                hit = True
                break
        if not hit:
            if k != r:
                PEND[k] = PEND[r]
            k += 1
    return OUT, nout, k


@njit(cache=True)
def fc_blocked(b, sel, m, NEG, TMN, BUF, BS, BE, slot0, K, W, E, base, R, T, stk, cnt):
    """First-chance: whether a buffered event of one of the negations in `sel` blocks the partial match m
    (negation k's events are buffer slot0 + b * K + k)."""
    for k in range(K):
        if not sel >> k & 1:
            continue
        s = slot0 + b * K + k
        for j in range(BS[s], BE[s]):
            if blocks(b, k, m, BUF[s, j], NEG, TMN, W, E, base, R, T, stk, cnt):
                return True
    return False
