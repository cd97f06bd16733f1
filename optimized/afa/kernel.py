"""Algorithm 1's node layout (spec/003 §5 with the errata of §5.9) over typed arrays, and what every layout shares
(the state's columns, the checks, punctuation, output rows), compiled once by Numba.

State (optimized/afa/state.py): the entries K, ordered by LE (the paper's time-ordered index: a sorted array,
binary-searched; an in-order event is appended), each an event row and the range of its pmatch nodes in the
node pool, ordered by StartLE; the node pool R (StartLE, MinRE, state, register); the event store E; the
output rows O since the last hand-over; the output punctuations P; and the scalars S. A node list is a
contiguous range of the pool: removing the nodes a late event invalidates cuts a prefix off the range;
PropagateInsert writes a new range (the derived nodes, then the kept ones). Punctuations drop the entries
before the cover and, when the pool or the store holds mostly garbage, compact them.

Rows are packed (few arrays: every array argument costs reference counting on each call): an event row is
LE, RE, payload hash, then (tag, numerator, denominator) per attribute slot; a node row StartLE, MinRE,
state, then (tag, numerator, denominator) per register field; an output row sign, LE, RE, then the register.

The element loop over this layout and AFA+ignore's (ignorable.py) is one: optimized/afa/loop.py `run`. Each
element is checked before it changes anything; the first one that breaks the protocol stops the batch with
its status (ERR_*) and position, the state and the output being those after the elements before it (the
reference's atomicity per element). Fences and transfers are the generated `fire` (optimized/afa/exprgen.py),
called as a first-class function.
"""
from __future__ import annotations

import numpy as np
from numba import njit, types

from cepkit.optimized.afa.constants import address
from cepkit.optimized.afa.exprgen import CONSTANTS, FIRE_SIG, HEAD
from cepkit.optimized.arrays import grow2

INF = np.iinfo(np.int64).max       # an RE that never ends; MinRE of a node that consumed nothing
MINF = np.iinfo(np.int64).min      # t_e, t_p and max LE before any element
INSERT, RETRACT, PUNCTUATE = 0, 1, 2
REDIFF = 4   # not an input element: re-derive the lists an explicit arc lifetime touches (row: lo, hi, closed)
OK, ERR_BELOW, ERR_EMPTY, ERR_DUPLICATE, ERR_NEVER = 0, 1, 2, 3, 4
ERR_NO_SEQ, ERR_SEQ_USED, ERR_SEQ_ORDER, ERR_RETRACT_SEQ = 5, 6, 7, 8   # AFA+O (reference/afa/seqop.py)
ERR_RELEASED_EMPTY = 9   # Cleanse: a buffered insertion with an empty lifetime, released by a punctuation
BASIC, SEQ, CLEANSE = 0, 1, 2   # the flavours the kernel runs
# the scalars in S
(N_ENT, N_EV, N_NODE, N_OUT, T_E, T_P, MAX_LE, N_START, N_PUNCT, STATUS, AT, WORK, Q_HEAD, Q_TAIL, AUX,
 N_RESV) = range(16)
assert N_RESV + 1 == CONSTANTS   # S[CONSTANTS:]: the AFA's constants, read by `fire` (optimized/afa/exprgen.py)
# arc lifetimes (dynamic patterns): LT[arc] = lo, lo_open, hi, hi_closed
LT_LO, LT_LO_OPEN, LT_HI, LT_HI_CLOSED = 0, 1, 2, 3
# columns of the entries K, event rows, node rows and output rows
K_KEY, K_EV, K_OFF, K_CNT, K_SEQ = 0, 1, 2, 3, 4
E_LE, E_RE, E_HASH, E_SEQ, E_HAS_SEQ = 0, 1, 2, 3, 4
N_S, N_M, N_Q = 0, 1, 2
O_SIGN, O_LE, O_RE = 0, 1, 2

# explicit signatures: `fire` is a first-class function, so the kernel compiles once for every AFA
FN = types.FunctionType(FIRE_SIG)
VEC = types.Array(types.int64, 1, "C")
MAT = types.Array(types.int64, 2, "C")
INIT_SIG = types.void(FN, VEC, MAT, MAT, types.int64, VEC, VEC, VEC, VEC, MAT, types.int64)


@njit(cache=True)
def copy_row(A, i, B, j, lo):
    """A[i, lo:] = B[j, lo:] without slicing (no array views in the hot loop)."""
    for x in range(lo, A.shape[1]):
        A[i, x] = B[j, x]


@njit(cache=True)
def bisect_left(K, n, t):
    """The first entry position with key >= t."""
    if n == 0 or K[n - 1, K_KEY] < t:
        return n
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) >> 1
        if K[mid, K_KEY] < t:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True, inline="always")
def punctuate(S, K, P, t):
    """A punctuation at t: t_e and t_p advance; where t_p moved, it is recorded in P (with the output rows
    before it) and the entries before the cover (the latest entry with LE < t_p) are dropped, the cover
    keeping its node list only. Returns P (possibly grown) and whether t_p moved (then the caller may
    compact its tables)."""
    if t > S[T_E]:
        S[T_E] = t
    tp = S[T_E]
    if tp <= S[T_P]:
        return P, False
    S[T_P] = tp
    if S[N_PUNCT] + 1 > P.shape[0]:
        P = grow2(P, S[N_PUNCT] + 1)
    P[S[N_PUNCT], 0] = tp
    P[S[N_PUNCT], 1] = S[N_OUT]   # the output rows before it
    S[N_PUNCT] += 1
    n_ent = S[N_ENT]
    c = bisect_left(K, n_ent, tp) - 1   # the cover
    if c > 0:
        for i in range(c, n_ent):
            for x in range(5):
                K[i - c, x] = K[i, x]
        S[N_ENT] = n_ent - c
    if c >= 0:
        K[0, K_EV] = -1
    return P, True


@njit(cache=True, inline="always")
def check_element(kind, K, n_ent, i, present, E, X, xb):
    """OK, or why an insertion or retraction (event row xb of X, entry position i, `present` whether an
    entry with its LE is there) breaks the protocol: an empty lifetime, a second event at one LE, a
    retraction of an event that was never inserted (or no longer is, or differs from it)."""
    if kind == INSERT:
        if not X[xb, E_LE] < X[xb, E_RE]:
            return ERR_EMPTY
        if present:
            return ERR_DUPLICATE
        return OK
    if not present or K[i, K_EV] < 0:
        return ERR_NEVER
    e = K[i, K_EV]
    for x in range(1, E.shape[1]):   # RE, the payload hash and the attributes
        if E[e, x] != X[xb, x]:
            return ERR_NEVER
    return OK


@njit(cache=True, inline="always")
def output_row(O, o, sign, le, R, j, W):
    """Output row o: sign, LE, RE (node j's MinRE) and node j's register."""
    O[o, O_SIGN] = sign
    O[o, O_LE] = le
    O[o, O_RE] = R[j, N_M]
    for x in range(HEAD, W):
        O[o, x] = R[j, x]


@njit(cache=True)
def alive(LT, a, t):
    """Whether arc a's lifetime contains t (spec/003 §6)."""
    if LT[a, LT_LO_OPEN] == 1:
        if not t > LT[a, LT_LO]:
            return False
    elif not t >= LT[a, LT_LO]:
        return False
    if LT[a, LT_HI_CLOSED] == 1:
        return t <= LT[a, LT_HI]
    return t < LT[a, LT_HI]


@njit(cache=True)
def close_eps(fire, S, R, E, first, eps_ptr, eps_arc, dst, branch, LT, dyn, le):
    """Add the epsilon-closure of the nodes from `first` on (one node per path), breadth first; with `dyn`,
    only the arcs whose lifetime contains le."""
    j = first
    while j < S[N_NODE]:
        q = R[j, N_Q]
        for x in range(eps_ptr[q], eps_ptr[q + 1]):
            a = eps_arc[x]
            if dyn == 1 and not alive(LT, a, le):
                continue
            d = S[N_NODE]
            S[WORK] += 1
            if fire(branch[a], -1, E, j, d, R, address(S)) == 1:
                R[d, N_S] = R[j, N_S]
                R[d, N_M] = R[j, N_M]
                R[d, N_Q] = dst[a]
                S[N_NODE] = d + 1
        j += 1


@njit(INIT_SIG, cache=True)
def init_starts(fire, S, R, E, start, eps_ptr, eps_arc, dst, branch, LT, dyn):
    """The start node and its epsilon-closure: pool rows 0..n_start-1 (recomputed per event under dynamic
    patterns, whose epsilon-arcs have lifetimes)."""
    R[0, N_S] = 0
    R[0, N_M] = INF
    R[0, N_Q] = start
    S[N_NODE] = 1
    close_eps(fire, S, R, E, 0, eps_ptr, eps_arc, dst, branch, LT, dyn, 0)
    S[N_START] = S[N_NODE]


@njit(cache=True)
def compact(S, K, R, E):
    """Copy the live node ranges and event rows to fresh arrays (after punctuations dropped entries)."""
    n_ent = S[N_ENT]
    live = S[N_RESV]
    for i in range(n_ent):
        live += K[i, K_CNT]
    R2 = np.empty((max(2 * live, 1024), R.shape[1]), np.int64)
    w = S[N_RESV]
    R2[:w] = R[:w]
    E2 = np.empty((max(2 * n_ent, 1024), E.shape[1]), np.int64)
    v = 0
    for i in range(n_ent):
        off, cnt = K[i, K_OFF], K[i, K_CNT]
        R2[w:w + cnt] = R[off:off + cnt]
        K[i, K_OFF] = w
        w += cnt
        e = K[i, K_EV]
        if e >= 0:
            copy_row(E2, v, E, e, 0)
            K[i, K_EV] = v
            v += 1
    S[N_NODE] = w
    S[N_EV] = v
    return R2, E2


@njit(cache=True)
def rediff(fire, S, K, R, E, O, lo, beyond, closed, ev_ptr, ev_arc, eps_ptr, eps_arc, dst, final, fan, branch, LT,
           dyn):
    """The reference's `_rediff` (explicit arc lifetimes): recompute the node lists from the first entry with
    LE >= lo with the current arcs, emitting the difference of their final (register, MinRE) multisets at
    each entry (retractions, then insertions); stop at the first entry past `beyond` (> beyond, or
    >= beyond when not `closed`) whose list is unchanged. Returns R and O (grown when needed)."""
    W = R.shape[1]
    n_ent = S[N_ENT]
    i = bisect_left(K, n_ent, lo)
    plo, phi = 0, 0
    if i > 0:
        plo, phi = K[i - 1, K_OFF], K[i - 1, K_OFF] + K[i - 1, K_CNT]
    while i < n_ent:
        k = K[i, K_KEY]
        e = K[i, K_EV]
        re = E[e, E_RE]
        keep = S[N_NODE]
        S[N_NODE] = 1
        close_eps(fire, S, R, E, 0, eps_ptr, eps_arc, dst, branch, LT, dyn, k)
        ns = S[N_NODE]
        S[N_START] = ns
        S[N_NODE] = keep
        for j in range(ns):
            R[j, N_S] = k
        need = S[N_NODE] + (phi - plo + ns) * fan
        if need > R.shape[0]:
            R = grow2(R, need)
        base = S[N_NODE]
        for src in range(2):
            a0, a1 = (plo, phi) if src == 0 else (0, ns)
            for p in range(a0, a1):
                m = R[p, N_M]
                if m <= k:
                    continue
                q = R[p, N_Q]
                for x in range(ev_ptr[q], ev_ptr[q + 1]):
                    a = ev_arc[x]
                    if dyn == 1 and not alive(LT, a, k):
                        continue
                    d = S[N_NODE]
                    S[WORK] += 1
                    if fire(branch[a], e, E, p, d, R, address(S)) == 1:
                        R[d, N_S] = R[p, N_S]
                        R[d, N_M] = m if m < re else re
                        R[d, N_Q] = dst[a]
                        S[N_NODE] = d + 1
                        if eps_ptr[dst[a] + 1] > eps_ptr[dst[a]]:
                            close_eps(fire, S, R, E, d, eps_ptr, eps_arc, dst, branch, LT, dyn, k)
        top = S[N_NODE]
        old, cnt = K[i, K_OFF], K[i, K_CNT]
        past = k > beyond or (k == beyond and closed == 0)
        if past and top - base == cnt:
            same = True
            for x in range(cnt):
                for c in range(W):
                    if R[old + x, c] != R[base + x, c]:
                        same = False
                        break
                if not same:
                    break
            if same:
                S[N_NODE] = base
                return R, O
        # the difference of the final (register, MinRE) multisets: match equal rows pairwise
        if S[N_OUT] + cnt + (top - base) > O.shape[0]:
            O = grow2(O, S[N_OUT] + cnt + (top - base))
        used = np.zeros(top - base, np.bool_)
        o = S[N_OUT]
        for x in range(old, old + cnt):
            if not final[R[x, N_Q]]:
                continue
            hit = False
            for y in range(base, top):
                if used[y - base] or not final[R[y, N_Q]] or R[y, N_M] != R[x, N_M]:
                    continue
                eq = True
                for c in range(HEAD, W):
                    if R[y, c] != R[x, c]:
                        eq = False
                        break
                if eq:
                    used[y - base] = True
                    hit = True
                    break
            if not hit:
                output_row(O, o, -1, k, R, x, W)
                o += 1
        for y in range(base, top):
            if final[R[y, N_Q]] and not used[y - base]:
                output_row(O, o, 1, k, R, y, W)
                o += 1
        S[N_OUT] = o
        K[i, K_OFF] = base
        K[i, K_CNT] = top - base
        plo, phi = base, top
        i += 1
    return R, O


@njit(cache=True)
def seq_check(K, n_ent, B, b, le, re, i, present, kind):
    """AFA+O's checks of an element (after the punctuation's), in the reference's order."""
    if kind == RETRACT:
        return ERR_RETRACT_SEQ
    if not le < re:
        return ERR_EMPTY
    if B[b, E_HAS_SEQ] == 0:
        return ERR_NO_SEQ
    seq = B[b, E_SEQ]
    lo, hi = 0, n_ent      # the entries are in sequence order too
    while lo < hi:
        mid = (lo + hi) >> 1
        if K[mid, K_SEQ] < seq:
            lo = mid + 1
        else:
            hi = mid
    if lo < n_ent and K[lo, K_SEQ] == seq:
        return ERR_SEQ_USED
    if present:
        return ERR_DUPLICATE
    if (i > 0 and K[i - 1, K_SEQ] > seq) or (i < n_ent and K[i, K_SEQ] < seq):
        return ERR_SEQ_ORDER
    return OK
