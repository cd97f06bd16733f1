"""Algorithm 1 (spec/003 §5 with the errata of §5.9) over typed arrays, compiled once by Numba.

State (see `store.State`): the entries, ordered by LE (the paper's time-ordered index: a sorted array,
binary-searched; an in-order event is appended), each an event row and the range of its pmatch nodes in
the node pool, ordered by StartLE; the node pool (StartLE, MinRE, state, register); the event store; and
the scalars (t_e, t_p, max LE, counts). A node list is a contiguous range of the pool: removing the nodes a
late event invalidates cuts a prefix off the range; PropagateInsert writes a new range (the derived nodes,
then the kept ones). Punctuations drop the entries before the cover and compact the pool and the store.

`run` applies a batch of elements in order. Each element is checked before it changes anything; the first
one that breaks the protocol stops the batch with its status (ERR_*) and position, the state and the output
being those after the elements before it (the reference's atomicity per element). Fences and transfers are
the generated `fire` (optimized/afa/exprgen.py), called as a first-class function.
"""
from __future__ import annotations

import numpy as np
from numba import njit, types

from optimized.afa.exprgen import FIRE_SIG

INF = np.iinfo(np.int64).max       # an RE that never ends; MinRE of a node that consumed nothing
MINF = np.iinfo(np.int64).min      # t_e, t_p and max LE before any element
INSERT, RETRACT, PUNCTUATE = 0, 1, 2
OK, ERR_BELOW, ERR_EMPTY, ERR_DUPLICATE, ERR_NEVER = 0, 1, 2, 3, 4
# the scalars in S
N_ENT, N_EV, N_NODE, N_OUT, T_E, T_P, MAX_LE, N_START, N_PUNCT, STATUS, AT, WORK = range(12)
# columns of the entry table K, the event table EV, the node table NODE and the output table OUT
K_KEY, K_EV, K_OFF, K_CNT = 0, 1, 2, 3
E_LE, E_RE, E_HASH = 0, 1, 2
N_S, N_M, N_Q = 0, 1, 2
O_SIGN, O_LE, O_RE = 0, 1, 2

# explicit signatures: `fire` is a first-class function, so the kernel compiles once for every AFA
_FN = types.FunctionType(FIRE_SIG)
_V = types.Array(types.int64, 1, "C")
_M = types.Array(types.int64, 2, "C")
_B = types.Array(types.int8, 2, "C")
_STATE = (_V, _M, _M, _B, _M, _M, _M, _B, _M, _M, _M, _B, _M, _M, _M)   # S, K, NODE.., EV.., OUT.., PUN
_GROWN = types.Tuple((_M, _B, _M, _M, _M, _B, _M, _M, _M, _B, _M, _M, _M, _M))
RUN_SIG = _GROWN(_FN, *_STATE, types.Array(types.int8, 1, "C"), _M, _B, _M, _M, _V, _V, _V, _V, _V,
                 types.Array(types.bool_, 1, "C"), types.int64)
INIT_SIG = types.void(_FN, _V, _M, _B, _M, _M, _B, _M, _M, types.int64, _V, _V, _V)


@njit(cache=True)
def grow_rows(a, need):
    """`a` (2-D) with room for `need` rows."""
    if need <= a.shape[0]:
        return a
    b = np.empty((max(need, 2 * a.shape[0]), a.shape[1]), a.dtype)
    b[:a.shape[0]] = a
    return b


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


@njit(cache=True)
def close_eps(fire, S, NODE, RT, RN, RD, ET, EN, ED, first, eps_ptr, eps_arc, dst):
    """Add the epsilon-closure of the nodes from `first` on (one node per path), breadth first."""
    j = first
    while j < S[N_NODE]:
        q = NODE[j, N_Q]
        for x in range(eps_ptr[q], eps_ptr[q + 1]):
            a = eps_arc[x]
            d = S[N_NODE]
            S[WORK] += 1
            if fire(a, -1, ET, EN, ED, j, d, RT, RN, RD) == 1:
                NODE[d, N_S] = NODE[j, N_S]
                NODE[d, N_M] = NODE[j, N_M]
                NODE[d, N_Q] = dst[a]
                S[N_NODE] = d + 1
        j += 1


@njit(cache=True)
def transitions(fire, S, NODE, RT, RN, RD, ET, EN, ED, lo, hi, ev, le, re, ev_ptr, ev_arc, eps_ptr, eps_arc, dst):
    """MakeTransitions: append the nodes derived from nodes lo..hi-1 by consuming event row `ev` (closed
    under epsilon-arcs). The pool has room for (hi - lo) * fan more nodes."""
    for p in range(lo, hi):
        m = NODE[p, N_M]
        if m <= le:
            continue  # the lifetimes of the match and of the event do not intersect
        q = NODE[p, N_Q]
        for x in range(ev_ptr[q], ev_ptr[q + 1]):
            a = ev_arc[x]
            d = S[N_NODE]
            S[WORK] += 1
            if fire(a, ev, ET, EN, ED, p, d, RT, RN, RD) == 1:
                NODE[d, N_S] = NODE[p, N_S]
                NODE[d, N_M] = m if m < re else re
                NODE[d, N_Q] = dst[a]
                S[N_NODE] = d + 1
                close_eps(fire, S, NODE, RT, RN, RD, ET, EN, ED, d, eps_ptr, eps_arc, dst)


@njit(cache=True)
def emit(S, NODE, RT, RN, RD, OUT, ORT, ORN, ORD, lo, hi, sign, le, final):
    """Output the final nodes among lo..hi-1 (sign +1 insertion, -1 retraction) at key `le`; OUT has room."""
    o = S[N_OUT]
    for j in range(lo, hi):
        if final[NODE[j, N_Q]]:
            OUT[o, O_SIGN] = sign
            OUT[o, O_LE] = le
            OUT[o, O_RE] = NODE[j, N_M]
            ORT[o] = RT[j]
            ORN[o] = RN[j]
            ORD[o] = RD[j]
            o += 1
    S[N_OUT] = o


@njit(INIT_SIG, cache=True)
def init_starts(fire, S, NODE, RT, RN, RD, ET, EN, ED, start, eps_ptr, eps_arc, dst):
    """The start node and its epsilon-closure: pool rows 0..n_start-1 (the arcs never change)."""
    NODE[0, N_S] = 0
    NODE[0, N_M] = INF
    NODE[0, N_Q] = start
    S[N_NODE] = 1
    close_eps(fire, S, NODE, RT, RN, RD, ET, EN, ED, 0, eps_ptr, eps_arc, dst)
    S[N_START] = S[N_NODE]


@njit(cache=True)
def compact(S, K, NODE, RT, RN, RD, EV, ET, EN, ED):
    """Copy the live node ranges and event rows to fresh arrays (after punctuations dropped entries)."""
    n_ent = S[N_ENT]
    live = S[N_START]
    for i in range(n_ent):
        live += K[i, K_CNT]
    NODE2 = np.empty((max(2 * live, 1024), 3), np.int64)
    nf = RT.shape[1]
    RT2 = np.empty((NODE2.shape[0], nf), np.int8)
    RN2 = np.empty((NODE2.shape[0], nf), np.int64)
    RD2 = np.empty((NODE2.shape[0], nf), np.int64)
    w = S[N_START]
    NODE2[:w] = NODE[:w]
    RT2[:w] = RT[:w]
    RN2[:w] = RN[:w]
    RD2[:w] = RD[:w]
    EV2 = np.empty((max(2 * n_ent, 1024), 3), np.int64)
    na = ET.shape[1]
    ET2 = np.empty((EV2.shape[0], na), np.int8)
    EN2 = np.empty((EV2.shape[0], na), np.int64)
    ED2 = np.empty((EV2.shape[0], na), np.int64)
    v = 0
    for i in range(n_ent):
        off, cnt = K[i, K_OFF], K[i, K_CNT]
        NODE2[w:w + cnt] = NODE[off:off + cnt]
        RT2[w:w + cnt] = RT[off:off + cnt]
        RN2[w:w + cnt] = RN[off:off + cnt]
        RD2[w:w + cnt] = RD[off:off + cnt]
        K[i, K_OFF] = w
        w += cnt
        e = K[i, K_EV]
        if e >= 0:
            EV2[v] = EV[e]
            ET2[v] = ET[e]
            EN2[v] = EN[e]
            ED2[v] = ED[e]
            K[i, K_EV] = v
            v += 1
    S[N_NODE] = w
    S[N_EV] = v
    return NODE2, RT2, RN2, RD2, EV2, ET2, EN2, ED2


@njit(RUN_SIG, cache=True)
def run(fire, S, K, NODE, RT, RN, RD, EV, ET, EN, ED, OUT, ORT, ORN, ORD, PUN,
        BK, BEV, BET, BEN, BED, ev_ptr, ev_arc, eps_ptr, eps_arc, dst, final, fan):
    """Apply the batch's elements in order; returns the (possibly reallocated) arrays."""
    n = len(BK)
    S[STATUS] = OK
    for b in range(n):
        kind = BK[b]
        le = BEV[b, E_LE]
        if kind == PUNCTUATE:
            if le > S[T_E]:
                S[T_E] = le
            tp = S[T_E]
            if tp <= S[T_P]:
                continue
            S[T_P] = tp
            PUN = grow_rows(PUN, S[N_PUNCT] + 1)
            PUN[S[N_PUNCT], 0] = tp
            PUN[S[N_PUNCT], 1] = S[N_OUT]   # the output rows before it
            S[N_PUNCT] += 1
            n_ent = S[N_ENT]
            c = bisect_left(K, n_ent, tp) - 1   # the cover: the latest entry with LE < t_p
            if c > 0:
                for i in range(c, n_ent):
                    K[i - c] = K[i]
                S[N_ENT] = n_ent - c
            if c >= 0:
                K[0, K_EV] = -1                  # the cover keeps its node list only
            if S[N_NODE] > 4096 and S[N_NODE] > 4 * (S[N_START] + 1):
                live = S[N_START]
                for i in range(S[N_ENT]):
                    live += K[i, K_CNT]
                if S[N_NODE] > 2 * live + 4096 or S[N_EV] > 2 * S[N_ENT] + 4096:
                    NODE, RT, RN, RD, EV, ET, EN, ED = compact(S, K, NODE, RT, RN, RD, EV, ET, EN, ED)
            continue
        re = BEV[b, E_RE]
        n_ent = S[N_ENT]
        if le < S[T_E]:
            S[STATUS] = ERR_BELOW
            S[AT] = b
            return NODE, RT, RN, RD, EV, ET, EN, ED, OUT, ORT, ORN, ORD, PUN, K
        i = bisect_left(K, n_ent, le)
        present = i < n_ent and K[i, K_KEY] == le
        if kind == INSERT:
            if not le < re:
                S[STATUS] = ERR_EMPTY
                S[AT] = b
                return NODE, RT, RN, RD, EV, ET, EN, ED, OUT, ORT, ORN, ORD, PUN, K
            if present:
                S[STATUS] = ERR_DUPLICATE
                S[AT] = b
                return NODE, RT, RN, RD, EV, ET, EN, ED, OUT, ORT, ORN, ORD, PUN, K
        else:
            ok = present and K[i, K_EV] >= 0
            if ok:
                e = K[i, K_EV]
                ok = EV[e, E_RE] == re and EV[e, E_HASH] == BEV[b, E_HASH]
                if ok:
                    for x in range(ET.shape[1]):
                        if ET[e, x] != BET[b, x] or EN[e, x] != BEN[b, x] or ED[e, x] != BED[b, x]:
                            ok = False
            if not ok:
                S[STATUS] = ERR_NEVER
                S[AT] = b
                return NODE, RT, RN, RD, EV, ET, EN, ED, OUT, ORT, ORN, ORD, PUN, K
        # ---- the element is valid: from here on it is applied
        ooo = kind == RETRACT or (n_ent > 0 and le < K[n_ent - 1, K_KEY])
        if ooo:
            # RemoveInvalidated(le): cut the nodes spanning le (StartLE <= le) off every later list
            live = 0
            for j in range(i, n_ent):
                live += K[j, K_CNT]
            OUT = grow_rows(OUT, S[N_OUT] + live)
            ORT = grow_rows(ORT, OUT.shape[0])
            ORN = grow_rows(ORN, OUT.shape[0])
            ORD = grow_rows(ORD, OUT.shape[0])
            for j in range(i, n_ent):
                off, cnt = K[j, K_OFF], K[j, K_CNT]
                c = 0
                while c < cnt and NODE[off + c, N_S] <= le:
                    c += 1
                if c == 0:
                    break  # (Completeness): no later entry holds a node spanning le
                emit(S, NODE, RT, RN, RD, OUT, ORT, ORN, ORD, off, off + c, -1, K[j, K_KEY], final)
                K[j, K_OFF] = off + c
                K[j, K_CNT] = cnt - c
        if kind == INSERT:
            # the new entry: MakeTransitions from the previous entry's list, then NewTransition
            EV = grow_rows(EV, S[N_EV] + 1)
            ET = grow_rows(ET, EV.shape[0])
            EN = grow_rows(EN, EV.shape[0])
            ED = grow_rows(ED, EV.shape[0])
            e = S[N_EV]
            EV[e] = BEV[b]
            ET[e] = BET[b]
            EN[e] = BEN[b]
            ED[e] = BED[b]
            S[N_EV] = e + 1
            plo, phi = 0, 0
            if i > 0:
                plo, phi = K[i - 1, K_OFF], K[i - 1, K_OFF] + K[i - 1, K_CNT]
            ns = S[N_START]
            need = S[N_NODE] + (phi - plo + ns) * fan
            if need > NODE.shape[0]:
                NODE = grow_rows(NODE, need)
                RT = grow_rows(RT, NODE.shape[0])
                RN = grow_rows(RN, NODE.shape[0])
                RD = grow_rows(RD, NODE.shape[0])
            base = S[N_NODE]
            transitions(fire, S, NODE, RT, RN, RD, ET, EN, ED, plo, phi, e, le, re, ev_ptr, ev_arc, eps_ptr, eps_arc,
                        dst)
            for j in range(ns):
                NODE[j, N_S] = le
                NODE[j, N_M] = INF
            transitions(fire, S, NODE, RT, RN, RD, ET, EN, ED, 0, ns, e, le, re, ev_ptr, ev_arc, eps_ptr, eps_arc,
                        dst)
            top = S[N_NODE]
            OUT = grow_rows(OUT, S[N_OUT] + top - base)
            ORT = grow_rows(ORT, OUT.shape[0])
            ORN = grow_rows(ORN, OUT.shape[0])
            ORD = grow_rows(ORD, OUT.shape[0])
            emit(S, NODE, RT, RN, RD, OUT, ORT, ORN, ORD, base, top, 1, le, final)
            K = grow_rows(K, n_ent + 1)
            for j in range(n_ent, i, -1):
                K[j] = K[j - 1]
            K[i, K_KEY] = le
            K[i, K_EV] = e
            K[i, K_OFF] = base
            K[i, K_CNT] = top - base
            n_ent += 1
            S[N_ENT] = n_ent
            if le > S[MAX_LE]:
                S[MAX_LE] = le
            start = i
        else:
            for j in range(i, n_ent - 1):
                K[j] = K[j + 1]
            n_ent -= 1
            S[N_ENT] = n_ent
            start = i - 1
        if ooo and start >= 0:
            # PropagateInsert from entry `start`: extend its nodes along the following entries
            zlo, zhi = K[start, K_OFF], K[start, K_OFF] + K[start, K_CNT]
            j = start
            while zhi > zlo and j + 1 < n_ent:
                j += 1
                e = K[j, K_EV]
                key = K[j, K_KEY]
                old, cnt = K[j, K_OFF], K[j, K_CNT]
                need = S[N_NODE] + (zhi - zlo) * fan + cnt
                if need > NODE.shape[0]:
                    NODE = grow_rows(NODE, need)
                    RT = grow_rows(RT, NODE.shape[0])
                    RN = grow_rows(RN, NODE.shape[0])
                    RD = grow_rows(RD, NODE.shape[0])
                base = S[N_NODE]
                transitions(fire, S, NODE, RT, RN, RD, ET, EN, ED, zlo, zhi, e, key, EV[e, E_RE], ev_ptr, ev_arc,
                            eps_ptr, eps_arc, dst)
                top = S[N_NODE]
                OUT = grow_rows(OUT, S[N_OUT] + top - base)
                ORT = grow_rows(ORT, OUT.shape[0])
                ORN = grow_rows(ORN, OUT.shape[0])
                ORD = grow_rows(ORD, OUT.shape[0])
                emit(S, NODE, RT, RN, RD, OUT, ORT, ORN, ORD, base, top, 1, key, final)
                NODE[top:top + cnt] = NODE[old:old + cnt]
                RT[top:top + cnt] = RT[old:old + cnt]
                RN[top:top + cnt] = RN[old:old + cnt]
                RD[top:top + cnt] = RD[old:old + cnt]
                S[N_NODE] = top + cnt
                K[j, K_OFF] = base
                K[j, K_CNT] = top - base + cnt
                zlo, zhi = base, top
    return NODE, RT, RN, RD, EV, ET, EN, ED, OUT, ORT, ORN, ORD, PUN, K
