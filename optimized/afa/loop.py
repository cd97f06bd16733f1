"""The AFA kernel's one element loop, over either node layout, compiled once by Numba.

Every flavour applies a batch the same way: take the next element (Cleanse: from its queue of waiting
insertions when a punctuation released them), punctuate and compact, check the element before it changes
anything (the first that breaks the protocol stops the batch with its status and position), store the event,
derive the new entry's nodes from the previous entry's and from the start closure, enter or remove the entry,
and PropagateInsert along the following entries. What differs is the node layout:

- the copying layout (BASIC, SEQ, CLEANSE; kernel.py, Algorithm 1): an entry's nodes are a contiguous range
  of the pool R; a late event cuts the invalidated prefix off every later range (RemoveInvalidated), and
  PropagateInsert writes new ranges;
- the linked layout (IGNORABLE; ignorable.py, AFA+ignore): nodes keep their identity in an append-only table
  (R, links X) and an entry holds a range of node ids in the pool L; a continuation takes over its parent's
  derivations, and a retraction gives them back.

`run` returns the possibly reallocated arrays K, R, X, L, E, O, P, Q.
"""
from __future__ import annotations

import numpy as np
from numba import njit, types

from cepkit.optimized.afa import ignorable as I
from cepkit.optimized.afa.constants import address
from cepkit.optimized.afa.kernel import (AT, AUX, CLEANSE, E_HASH, E_LE, E_RE, E_SEQ, ERR_BELOW, ERR_DUPLICATE,
                                         ERR_NEVER, ERR_RELEASED_EMPTY, ERR_RETRACT_SEQ, FN, INSERT, K_CNT, K_EV,
                                         K_KEY, K_OFF, K_SEQ, MAT, MAX_LE, MINF, N_ENT, N_EV, N_M, N_NODE, N_OUT,
                                         N_Q, N_RESV, N_S, N_START, OK, PUNCTUATE, Q_HEAD, Q_TAIL, REDIFF, RETRACT,
                                         SEQ, STATUS, T_E, VEC, WORK, alive, bisect_left, check_element, close_eps,
                                         compact, output_row, punctuate, rediff, seq_check)
from cepkit.optimized.arrays import grow2

IGNORABLE = 3   # the flavour on the linked layout (the others: kernel.BASIC, SEQ, CLEANSE)

_I = types.int64
_GROWN = types.Tuple((MAT,) * 8)   # K, R, X, L, E, O, P, Q
RUN_SIG = _GROWN(FN, VEC, MAT, MAT, MAT, MAT, MAT, MAT, MAT, MAT, types.Array(types.int8, 1, "C"), MAT, VEC, VEC,
                 VEC, VEC, VEC, types.Array(types.bool_, 1, "C"), types.Array(types.bool_, 1, "C"), _I, _I, _I, _I,
                 _I, VEC, MAT, _I)


@njit(RUN_SIG, cache=True, nogil=True)
def run(fire, S, K, R, X, L, E, O, P, Q, BK, B, ev_ptr, ev_arc, eps_ptr, eps_arc, dst, final, ign, fan, flavor, sigma,
        sigma_inf, flush, branch, LT, dyn):
    """Apply the batch's elements (kinds BK, event rows B) in order.

    BASIC: Algorithm 1. SEQ: AFA+O (spec/003 §5.8, reference/afa/seqop.py): an event is extended only from the
    entry with the previous sequence number and extends the entries with the following ones; the entries stay
    in LE order, which is sequence order (an insertion that breaks it is refused); no retractions (refused).
    CLEANSE: Cleanse(sigma) in front of Algorithm 1 (reference/afa/cleanse.py): an event passes at once only if
    LE < t + sigma (t the latest punctuation; sigma_inf: always); the others wait in Q (rows Q_HEAD..Q_TAIL-1,
    in LE order) until a punctuation lets them pass, before it; a retraction of a waiting insertion cancels
    it; `flush` releases them all at the end of the batch (close). IGNORABLE: AFA+ignore (spec/003 §7.3) on the
    linked layout, `ign` marking the ignorable arcs. Arc k of the CSR runs branch[k] of `fire`; with `dyn`
    (dynamic patterns, BASIC only) an arc applies only within its lifetime LT[k], and the start closure is
    rebuilt per event. A row of kind REDIFF re-derives the lists an explicit arc lifetime touches (`rediff`).
    `fan` bounds the nodes one node derives from one event (and, linked, the nodes of one closure)."""
    n = len(BK)
    W = R.shape[1]
    linked = flavor == IGNORABLE
    S[STATUS] = OK
    T = np.empty(64, np.int64)     # linked: node ids (the new entry's, then one step of PropagateInsert)
    T2 = np.empty(16, np.int64)    # linked: the nodes PropagateInsert extends
    b = 0
    pending = 0     # Cleanse: waiting insertions still to release (before punctuation b, or at the flush)
    released = -1   # the punctuation whose waiting insertions were released
    while True:
        # ---- the next element: src[xb] of kind `kind`
        if pending > 0:
            src = Q
            xb = S[Q_HEAD]
            S[Q_HEAD] += 1
            pending -= 1
            kind = INSERT
        else:
            if b >= n:
                if flush == 1 and S[Q_TAIL] > S[Q_HEAD]:
                    for h in range(S[Q_HEAD], S[Q_TAIL]):
                        if not Q[h, E_LE] < Q[h, E_RE]:
                            S[STATUS] = ERR_RELEASED_EMPTY
                            S[AT] = -1
                            S[AUX] = Q[h, E_LE]
                            return K, R, X, L, E, O, P, Q
                    pending = S[Q_TAIL] - S[Q_HEAD]
                    continue
                break
            src = B
            xb = b
            kind = BK[b]
            if flavor == CLEANSE:
                le = B[b, E_LE]
                if kind == PUNCTUATE:
                    if released != b:
                        released = b
                        tnew = le if le > S[T_E] else S[T_E]
                        h = S[Q_HEAD]
                        while h < S[Q_TAIL] and (sigma_inf == 1 or Q[h, E_LE] < tnew + sigma):
                            if not Q[h, E_LE] < Q[h, E_RE]:
                                S[STATUS] = ERR_RELEASED_EMPTY
                                S[AT] = b
                                S[AUX] = Q[h, E_LE]
                                return K, R, X, L, E, O, P, Q
                            h += 1
                        pending = h - S[Q_HEAD]
                        if pending > 0:
                            continue
                else:
                    if le < S[T_E]:
                        S[STATUS] = ERR_BELOW
                        S[AT] = b
                        return K, R, X, L, E, O, P, Q
                    qh, qt = S[Q_HEAD], S[Q_TAIL]
                    lo, hi = qh, qt
                    while lo < hi:
                        mid = (lo + hi) >> 1
                        if Q[mid, E_LE] < le:
                            lo = mid + 1
                        else:
                            hi = mid
                    waiting = lo < qt and Q[lo, E_LE] == le
                    if kind == RETRACT and waiting:
                        same = True
                        for x in range(Q.shape[1]):
                            if Q[lo, x] != B[b, x]:
                                same = False
                        if same:   # the retraction cancels the waiting insertion
                            for j in range(lo, qt - 1):
                                for x in range(Q.shape[1]):
                                    Q[j, x] = Q[j + 1, x]
                            S[Q_TAIL] = qt - 1
                            b += 1
                            continue
                    if kind == INSERT:
                        i0 = bisect_left(K, S[N_ENT], le)
                        if waiting or (i0 < S[N_ENT] and K[i0, K_KEY] == le):
                            S[STATUS] = ERR_DUPLICATE
                            S[AT] = b
                            return K, R, X, L, E, O, P, Q
                    if not (sigma_inf == 1 or (S[T_E] > MINF and le < S[T_E] + sigma)):
                        if kind == RETRACT:
                            S[STATUS] = ERR_NEVER
                            S[AT] = b
                            return K, R, X, L, E, O, P, Q
                        if qt + 1 > Q.shape[0]:   # room at the tail: move to the front, or grow
                            if qh > 0:
                                for j in range(qh, qt):
                                    for x in range(Q.shape[1]):
                                        Q[j - qh, x] = Q[j, x]
                                lo -= qh
                                qt -= qh
                                qh = 0
                                S[Q_HEAD] = 0
                            else:
                                Q = grow2(Q, qt + 1)
                        for j in range(qt, lo, -1):
                            for x in range(Q.shape[1]):
                                Q[j, x] = Q[j - 1, x]
                        for x in range(Q.shape[1]):
                            Q[lo, x] = B[b, x]
                        S[Q_TAIL] = qt + 1
                        b += 1
                        continue
            b += 1
        le = src[xb, E_LE]
        # ---- punctuations: drop the entries before the cover; compact tables that hold mostly garbage
        if kind == PUNCTUATE:
            P, moved = punctuate(S, K, P, le)
            if not moved:
                continue
            if S[N_NODE] > 8192 or S[N_EV] > 8192 or (linked and S[I.N_L] > 8192):
                live = S[N_START] if linked else S[N_RESV]
                for i in range(S[N_ENT]):
                    live += K[i, K_CNT]
                if linked:
                    if S[N_NODE] > 2 * live + 8192 or S[I.N_L] > 2 * live + 8192 or S[N_EV] > 2 * S[N_ENT] + 8192:
                        R, X, L, E = I.compact(S, K, R, X, L, E)
                elif S[N_NODE] > 2 * live + 8192 or S[N_EV] > 2 * S[N_ENT] + 8192:
                    R, E = compact(S, K, R, E)
            continue
        if kind == REDIFF:
            R, O = rediff(fire, S, K, R, E, O, le, src[xb, E_RE], src[xb, E_HASH], ev_ptr, ev_arc, eps_ptr, eps_arc,
                          dst, final, fan, branch, LT, dyn)
            continue
        # ---- the element is checked before it changes anything
        re = src[xb, E_RE]
        n_ent = S[N_ENT]
        if flavor == SEQ and kind == RETRACT:
            S[STATUS] = ERR_RETRACT_SEQ
            S[AT] = xb
            return K, R, X, L, E, O, P, Q
        if le < S[T_E]:
            S[STATUS] = ERR_BELOW
            S[AT] = xb
            return K, R, X, L, E, O, P, Q
        i = bisect_left(K, n_ent, le)
        present = i < n_ent and K[i, K_KEY] == le
        if flavor == SEQ:
            err = seq_check(K, n_ent, src, xb, le, re, i, present, kind)
        else:
            err = check_element(kind, K, n_ent, i, present, E, src, xb)
        if err != OK:
            S[STATUS] = err
            S[AT] = xb
            return K, R, X, L, E, O, P, Q
        # ---- the element is valid: from here on it is applied
        ooo = kind == RETRACT or (n_ent > 0 and le < K[n_ent - 1, K_KEY])
        seq = src[xb, E_SEQ]
        n2 = 0
        if ooo and flavor != SEQ and not linked:
            # RemoveInvalidated(le): cut the nodes spanning le (StartLE <= le) off every later list
            live = 0
            for j in range(i, n_ent):
                live += K[j, K_CNT]
            if S[N_OUT] + live > O.shape[0]:
                O = grow2(O, S[N_OUT] + live)
            for jj in range(i, n_ent):
                off, cnt = K[jj, K_OFF], K[jj, K_CNT]
                c = 0
                while c < cnt and R[off + c, N_S] <= le:
                    c += 1
                if c == 0:
                    break  # (Completeness): no later entry holds a node spanning le
                o = S[N_OUT]
                for j in range(off, off + c):
                    if final[R[j, N_Q]]:
                        output_row(O, o, -1, K[jj, K_KEY], R, j, W)
                        o += 1
                S[N_OUT] = o
                K[jj, K_OFF] = off + c
                K[jj, K_CNT] = cnt - c
        plo, phi = 0, 0   # the previous entry's nodes (AFA+O: the previous sequence number's)
        if i > 0 and (flavor != SEQ or K[i - 1, K_SEQ] == seq - 1):
            plo, phi = K[i - 1, K_OFF], K[i - 1, K_OFF] + K[i - 1, K_CNT]
        if kind == INSERT:
            # the new entry: MakeTransitions from the previous entry's list, then NewTransition
            if S[N_EV] + 1 > E.shape[0]:
                E = grow2(E, S[N_EV] + 1)
            e = S[N_EV]
            for x in range(E.shape[1]):
                E[e, x] = src[xb, x]
            S[N_EV] = e + 1
            if linked:
                nt = 0
                for pi in range(plo, phi):
                    p = L[pi, 0]
                    old = X[p, I.X_NEXT]
                    R, X = I.room(R, X, S, fan + 1)
                    first = S[N_NODE]
                    I.children(fire, S, R, X, E, p, e, le, re, ev_ptr, ev_arc, dst, ign, True)
                    last = S[N_NODE]
                    cont = -1
                    for c in range(first, last):
                        if X[c, I.X_CONT] == 1:
                            cont = c
                    if cont >= 0:
                        X[cont, I.X_NEXT] = old
                    elif old >= 0:
                        O = I.drop(S, K, R, X, L, O, old, final)
                    for c in range(first, last):
                        c0 = S[N_NODE]
                        R, X = I.room(R, X, S, fan)
                        I.close(fire, S, R, X, E, c, le, eps_ptr, eps_arc, dst)
                        T, nt = I.push(T, nt, c)
                        for d in range(c0, S[N_NODE]):
                            T, nt = I.push(T, nt, d)
                        if c != cont:
                            T2, n2 = I.push(T2, n2, c)
                        for d in range(c0, S[N_NODE]):
                            T2, n2 = I.push(T2, n2, d)
                for p in range(S[N_START]):   # the start closure's children (no parent links, no continuations)
                    R[p, N_S] = le
                    R, X = I.room(R, X, S, fan + 1)
                    first = S[N_NODE]
                    I.children(fire, S, R, X, E, p, e, le, re, ev_ptr, ev_arc, dst, ign, False)
                    last = S[N_NODE]
                    for c in range(first, last):
                        X[c, I.X_CONT] = 0
                        c0 = S[N_NODE]
                        R, X = I.room(R, X, S, fan)
                        I.close(fire, S, R, X, E, c, le, eps_ptr, eps_arc, dst)
                        T, nt = I.push(T, nt, c)
                        T2, n2 = I.push(T2, n2, c)
                        for d in range(c0, S[N_NODE]):
                            T, nt = I.push(T, nt, d)
                            T2, n2 = I.push(T2, n2, d)
                if S[N_OUT] + nt > O.shape[0]:
                    O = grow2(O, S[N_OUT] + nt)
                I.emit_ids(S, R, O, T, nt, 1, le, final, W)
                if S[I.N_L] + nt > L.shape[0]:
                    L = grow2(L, S[I.N_L] + nt)
                base = S[I.N_L]
                for x in range(nt):
                    L[base + x, 0] = T[x]
                S[I.N_L] = base + nt
                count = nt
            else:
                if dyn == 1:   # the start closure at this LE (into the reserved rows 0..N_RESV-1)
                    keep = S[N_NODE]
                    S[N_NODE] = 1
                    close_eps(fire, S, R, E, 0, eps_ptr, eps_arc, dst, branch, LT, dyn, le)
                    S[N_START] = S[N_NODE]
                    S[N_NODE] = keep
                ns = S[N_START]
                need = S[N_NODE] + (phi - plo + ns) * fan
                if need > R.shape[0]:
                    R = grow2(R, need)
                base = S[N_NODE]
                for half in range(2):   # the previous entry's nodes, then the start closure's (StartLE = le)
                    lo_, hi_ = plo, phi
                    if half == 1:
                        lo_, hi_ = 0, ns
                        for j in range(ns):
                            R[j, N_S] = le
                    for p in range(lo_, hi_):
                        m = R[p, N_M]
                        if m <= le:
                            continue  # the lifetimes of the match and of the event do not intersect
                        q = R[p, N_Q]
                        for x in range(ev_ptr[q], ev_ptr[q + 1]):
                            a = ev_arc[x]
                            if dyn == 1 and not alive(LT, a, le):
                                continue
                            d = S[N_NODE]
                            S[WORK] += 1
                            if fire(branch[a], e, E, p, d, R, address(S)) == 1:
                                R[d, N_S] = R[p, N_S]
                                R[d, N_M] = m if m < re else re
                                R[d, N_Q] = dst[a]
                                S[N_NODE] = d + 1
                                if eps_ptr[dst[a] + 1] > eps_ptr[dst[a]]:
                                    close_eps(fire, S, R, E, d, eps_ptr, eps_arc, dst, branch, LT, dyn, le)
                top = S[N_NODE]
                if S[N_OUT] + top - base > O.shape[0]:
                    O = grow2(O, S[N_OUT] + top - base)
                o = S[N_OUT]
                for j in range(base, top):
                    if final[R[j, N_Q]]:
                        output_row(O, o, 1, le, R, j, W)
                        o += 1
                S[N_OUT] = o
                count = top - base
            if n_ent + 1 > K.shape[0]:
                K = grow2(K, n_ent + 1)
            for j in range(n_ent, i, -1):
                for x in range(5):
                    K[j, x] = K[j - 1, x]
            K[i, K_KEY] = le
            K[i, K_EV] = e
            K[i, K_OFF] = base
            K[i, K_CNT] = count
            K[i, K_SEQ] = seq
            n_ent += 1
            S[N_ENT] = n_ent
            if le > S[MAX_LE]:
                S[MAX_LE] = le
            start = i
        else:
            if linked:   # the continuations' derivations go back to their parents; the others' are dropped
                off, cnt = K[i, K_OFF], K[i, K_CNT]
                for x in range(off, off + cnt):
                    X[L[x, 0], I.X_MARK] = 0
                for pi in range(plo, phi):
                    p = L[pi, 0]
                    cont = -1
                    c = X[p, I.X_NEXT]
                    while c >= 0:
                        if X[c, I.X_CONT] == 1:
                            cont = c
                            break
                        c = X[c, I.X_SIB]
                    if cont >= 0:
                        X[p, I.X_NEXT] = X[cont, I.X_NEXT]
                        X[cont, I.X_MARK] = 2              # kept
                    else:
                        X[p, I.X_NEXT] = -1
                        T2, n2 = I.push(T2, n2, p)
                if S[N_OUT] + cnt > O.shape[0]:
                    O = grow2(O, S[N_OUT] + cnt)
                o = S[N_OUT]
                for x in range(off, off + cnt):
                    j = L[x, 0]
                    if final[R[j, N_Q]]:
                        output_row(O, o, -1, le, R, j, W)
                        o += 1
                S[N_OUT] = o
                for x in range(off, off + cnt):
                    j = L[x, 0]
                    if X[j, I.X_MARK] != 2 and X[j, I.X_NEXT] >= 0:
                        O = I.drop(S, K, R, X, L, O, X[j, I.X_NEXT], final)
                for x in range(off, off + cnt):
                    X[L[x, 0], I.X_MARK] = 0
            for j in range(i, n_ent - 1):
                for x in range(5):
                    K[j, x] = K[j + 1, x]
            n_ent -= 1
            S[N_ENT] = n_ent
            start = i - 1
        # ---- PropagateInsert from entry `start` along the following entries (AFA+O: the following sequence
        # numbers): copying, its whole range when the element came out of order; linked, the nodes in T2
        if start < 0 or not (n2 > 0 if linked else (ooo or flavor == SEQ)):
            continue
        zlo, zhi = K[start, K_OFF], K[start, K_OFF] + K[start, K_CNT]
        y = start
        while (n2 > 0 if linked else zhi > zlo) and y + 1 < n_ent:
            if flavor == SEQ and K[y + 1, K_SEQ] != K[y, K_SEQ] + 1:
                break
            y += 1
            e = K[y, K_EV]
            key = K[y, K_KEY]
            ere = E[e, E_RE]
            old, cnt = K[y, K_OFF], K[y, K_CNT]
            if linked:
                nt = 0
                for zi in range(n2):
                    p = T2[zi]
                    R, X = I.room(R, X, S, fan + 1)
                    first = S[N_NODE]
                    I.children(fire, S, R, X, E, p, e, key, ere, ev_ptr, ev_arc, dst, ign, True)
                    last = S[N_NODE]
                    for c in range(first, last):
                        c0 = S[N_NODE]
                        R, X = I.room(R, X, S, fan)
                        I.close(fire, S, R, X, E, c, key, eps_ptr, eps_arc, dst)
                        T, nt = I.push(T, nt, c)
                        for d in range(c0, S[N_NODE]):
                            T, nt = I.push(T, nt, d)
                if S[N_OUT] + nt > O.shape[0]:
                    O = grow2(O, S[N_OUT] + nt)
                I.emit_ids(S, R, O, T, nt, 1, key, final, W)
                if S[I.N_L] + nt + cnt > L.shape[0]:
                    L = grow2(L, S[I.N_L] + nt + cnt)
                base = S[I.N_L]
                for x in range(nt):
                    L[base + x, 0] = T[x]
                for x in range(cnt):
                    L[base + nt + x, 0] = L[old + x, 0]
                S[I.N_L] = base + nt + cnt
                K[y, K_OFF] = base
                K[y, K_CNT] = nt + cnt
                if T2.shape[0] < nt:
                    T2 = np.empty(2 * nt, np.int64)
                for x in range(nt):
                    T2[x] = T[x]
                n2 = nt
                continue
            need = S[N_NODE] + (zhi - zlo) * fan + cnt
            if need > R.shape[0]:
                R = grow2(R, need)
            base = S[N_NODE]
            for p in range(zlo, zhi):
                m = R[p, N_M]
                if m <= key:
                    continue  # the lifetimes of the match and of the event do not intersect
                q = R[p, N_Q]
                for x in range(ev_ptr[q], ev_ptr[q + 1]):
                    a = ev_arc[x]
                    if dyn == 1 and not alive(LT, a, key):
                        continue
                    d = S[N_NODE]
                    S[WORK] += 1
                    if fire(branch[a], e, E, p, d, R, address(S)) == 1:
                        R[d, N_S] = R[p, N_S]
                        R[d, N_M] = m if m < ere else ere
                        R[d, N_Q] = dst[a]
                        S[N_NODE] = d + 1
                        if eps_ptr[dst[a] + 1] > eps_ptr[dst[a]]:
                            close_eps(fire, S, R, E, d, eps_ptr, eps_arc, dst, branch, LT, dyn, key)
            top = S[N_NODE]
            if S[N_OUT] + top - base > O.shape[0]:
                O = grow2(O, S[N_OUT] + top - base)
            o = S[N_OUT]
            for j in range(base, top):
                if final[R[j, N_Q]]:
                    output_row(O, o, 1, key, R, j, W)
                    o += 1
            S[N_OUT] = o
            for x in range(cnt):
                for c in range(W):
                    R[top + x, c] = R[old + x, c]
            S[N_NODE] = top + cnt
            K[y, K_OFF] = base
            K[y, K_CNT] = top - base + cnt
            zlo, zhi = base, top
    return K, R, X, L, E, O, P, Q
