"""AFA+ignore's node layout (spec/003 §7.3, App. D; reference/afa/ignorable.py): the parts of the element loop
(optimized/afa/loop.py) that keep a node's identity, compiled once by Numba.

Unlike Algorithm 1's layout (kernel.py), a node here keeps its identity: nodes live in an append-only table
(R: StartLE, MinRE, state, register; X: entry LE, head of its `next` children, head of its epsilon-children,
next sibling, whether it is its parent's continuation, a mark) and an entry holds a range of node ids in the
id pool L. Children are linked lists (head, sibling), so "the continuation takes over its parent's
derivations" and "the derivations go back to the parent" move one list head. When a late event e arrives
after entry x, a node p at x whose ignorable arc (a self-loop with the identity transfer) fires on e gets an
identical child c at e, its continuation: c takes over p's old derivations (no retraction, no re-insertion);
only the derivations of the other nodes at x are dropped (retracted). A retraction of e gives a
continuation's derivations back to its parent. Checks, punctuations and errors are the loop's, as for
every flavour. Punctuations drop the entries before the cover and compact the tables (renumbering the node
ids, `compact`) when they hold mostly garbage.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cepkit.optimized.afa.constants import address
from cepkit.optimized.afa.kernel import (INF, MINF, K_CNT, K_EV, K_KEY, K_OFF, N_ENT, N_EV, N_M, N_NODE, N_OUT, N_Q,
                                         N_S, N_START, WORK, output_row)
from cepkit.optimized.arrays import grow2

X_LE, X_NEXT, X_EPS, X_SIB, X_CONT, X_MARK = range(6)
N_L = 14   # S[N_L]: the used length of the id pool (S[AUX] in kernel.py, free under this flavour)



@njit(cache=True)
def room(R, X, S, need):
    """Room for `need` more nodes (R and X grow together)."""
    if S[N_NODE] + need > R.shape[0]:
        R = grow2(R, S[N_NODE] + need)
        X = grow2(X, R.shape[0])
    return R, X


@njit(cache=True)
def push(T, n, v):
    if n >= T.shape[0]:
        T2 = np.empty(2 * T.shape[0] + 16, np.int64)
        T2[:n] = T[:n]
        T = T2
    T[n] = v
    return T, n + 1


@njit(cache=True)
def children(fire, S, R, X, E, p, ev, le, re, ev_ptr, ev_arc, dst, ign, link):
    """The nodes p derives by consuming event row `ev` (their ids follow each other from S[N_NODE] on); the
    first one identical to p made by an ignorable arc is p's continuation. With `link`, they become p's
    `next` list. The tables have room for fan more nodes."""
    if link:
        X[p, X_NEXT] = -1
    m = R[p, N_M]
    if m <= le:
        return
    q = R[p, N_Q]
    has_cont = False
    prev = -1
    for x in range(ev_ptr[q], ev_ptr[q + 1]):
        a = ev_arc[x]
        d = S[N_NODE]
        S[WORK] += 1
        if fire(a, ev, E, p, d, R, address(S)) == 1:
            R[d, N_S] = R[p, N_S]
            md = m if m < re else re
            R[d, N_M] = md
            R[d, N_Q] = dst[a]
            cont = (not has_cont) and ign[a] and md == m
            has_cont = has_cont or cont
            X[d, X_LE] = le
            X[d, X_NEXT] = -1
            X[d, X_EPS] = -1
            X[d, X_SIB] = -1
            X[d, X_CONT] = 1 if cont else 0
            X[d, X_MARK] = 0
            if link:
                if prev < 0:
                    X[p, X_NEXT] = d
                else:
                    X[prev, X_SIB] = d
            prev = d
            S[N_NODE] = d + 1


@njit(cache=True)
def close(fire, S, R, X, E, c, le, eps_ptr, eps_arc, dst):
    """The epsilon-descendants of node c (one per path), appended from S[N_NODE] on, linked as `eps` lists;
    the tables have room for the largest closure (the caller's `fan`)."""
    j = c
    first = S[N_NODE]
    while True:
        q = R[j, N_Q]
        prev = -1
        X[j, X_EPS] = -1
        for x in range(eps_ptr[q], eps_ptr[q + 1]):
            a = eps_arc[x]
            d = S[N_NODE]
            S[WORK] += 1
            if fire(a, -1, E, j, d, R, address(S)) == 1:
                R[d, N_S] = R[j, N_S]
                R[d, N_M] = R[j, N_M]
                R[d, N_Q] = dst[a]
                X[d, X_LE] = le
                X[d, X_NEXT] = -1
                X[d, X_EPS] = -1
                X[d, X_SIB] = -1
                X[d, X_CONT] = 0
                X[d, X_MARK] = 0
                if prev < 0:
                    X[j, X_EPS] = d
                else:
                    X[prev, X_SIB] = d
                prev = d
                S[N_NODE] = d + 1
        j = first if j == c else j + 1
        if j >= S[N_NODE]:
            break


@njit(cache=True)
def emit_ids(S, R, O, T, nt, sign, le, final, W):
    o = S[N_OUT]
    for x in range(nt):
        j = T[x]
        if final[R[j, N_Q]]:
            output_row(O, o, sign, le, R, j, W)
            o += 1
    S[N_OUT] = o


@njit(cache=True)
def drop(S, K, R, X, L, O, head, final):
    """Remove the nodes of the list starting at `head` and everything they derive from their entries,
    retracting the final ones (at their entries' LE); returns O (grown when needed)."""
    n = 0
    stack = np.empty(16, np.int64)
    lo_le = INF
    hi_le = MINF
    h = head
    while h >= 0:
        stack, n = push(stack, n, h)
        h = X[h, X_SIB]
    dead = np.empty(16, np.int64)
    nd = 0
    while n > 0:
        n -= 1
        j = stack[n]
        dead, nd = push(dead, nd, j)
        X[j, X_MARK] = 1
        if X[j, X_LE] < lo_le:
            lo_le = X[j, X_LE]
        if X[j, X_LE] > hi_le:
            hi_le = X[j, X_LE]
        h = X[j, X_EPS]
        while h >= 0:
            stack, n = push(stack, n, h)
            h = X[h, X_SIB]
        h = X[j, X_NEXT]
        while h >= 0:
            stack, n = push(stack, n, h)
            h = X[h, X_SIB]
    # retract the final ones
    if S[N_OUT] + nd > O.shape[0]:
        O = grow2(O, S[N_OUT] + nd)
    for x in range(nd):
        j = dead[x]
        if final[R[j, N_Q]]:
            output_row(O, S[N_OUT], -1, X[j, X_LE], R, j, R.shape[1])
            S[N_OUT] += 1
    # filter the entries between the lowest and highest LE of the dead nodes
    n_ent = S[N_ENT]
    for i in range(n_ent):
        k = K[i, K_KEY]
        if k < lo_le or k > hi_le:
            continue
        off, cnt = K[i, K_OFF], K[i, K_CNT]
        w = off
        for x in range(off, off + cnt):
            if X[L[x, 0], X_MARK] != 1:
                L[w, 0] = L[x, 0]
                w += 1
        K[i, K_CNT] = w - off
    for x in range(nd):
        X[dead[x], X_MARK] = 0
    return O


@njit(cache=True)
def compact(S, K, R, X, L, E):
    """Renumber the live nodes (those in the entries' lists, and the start closure) into fresh tables."""
    n_ent = S[N_ENT]
    ns = S[N_START]
    live = ns
    for i in range(n_ent):
        live += K[i, K_CNT]
    new_id = np.full(S[N_NODE], -1, np.int64)
    for j in range(ns):
        new_id[j] = j
    w = ns
    for i in range(n_ent):
        for x in range(K[i, K_OFF], K[i, K_OFF] + K[i, K_CNT]):
            j = L[x, 0]
            if new_id[j] < 0:
                new_id[j] = w
                w += 1
    size = max(2 * w, 1024)
    R2 = np.empty((size, R.shape[1]), np.int64)
    X2 = np.empty((size, X.shape[1]), np.int64)
    for j in range(S[N_NODE]):
        v = new_id[j]
        if v < 0:
            continue
        for y in range(R.shape[1]):
            R2[v, y] = R[j, y]
        for y in range(X.shape[1]):
            X2[v, y] = X[j, y]
        for y in (X_NEXT, X_EPS, X_SIB):
            t = X[j, y]
            X2[v, y] = new_id[t] if t >= 0 else -1
    L2 = np.empty((max(2 * live, 1024), 1), np.int64)
    u = 0
    E2 = np.empty((max(2 * n_ent, 1024), E.shape[1]), np.int64)
    v = 0
    for i in range(n_ent):
        off, cnt = K[i, K_OFF], K[i, K_CNT]
        K[i, K_OFF] = u
        for x in range(off, off + cnt):
            L2[u, 0] = new_id[L[x, 0]]
            u += 1
        e = K[i, K_EV]
        if e >= 0:
            for y in range(E.shape[1]):
                E2[v, y] = E[e, y]
            K[i, K_EV] = v
            v += 1
    S[N_NODE] = w
    S[N_L] = u
    S[N_EV] = v
    return R2, X2, L2, E2
