"""The NFA^b run loop in Numba (spec/000 §4.3-4.5, exactly as reference/nfab/runs.py): runs, Step-6
proceed, set semantics, windows, partition contiguity, negation and held trailing-negation matches.

Buffer nodes are arena rows (parent, position, component, done-stamp, youngest start of the paths
through the node); a merge node (component MERGED) joins two member nodes (spec/000 §6, merging.py).
A run is one row of an int64 matrix: [j, phase, node, (first, last, len) per component, then 7
accumulator slots per aggregate (sum num/den, non-null count, min num/den, max num/den), then the
oldest start position of the run's members (= the first position unless runs were merged)]. `node` points
into the shared match buffer `arena` (rows: parent, position, component, done-stamp): a run's bindings
are the chain from its node to the root, so runs share their common prefixes. Nodes are created once
per (parent, component) per event, so equal bindings have equal node ids and a run is identified by
(node, phase) — the kernel deduplicates on that key with stamped hash tables (no clearing per event).

This module is the shared part of every query: edge formulas are evaluated by `holds`, which the
generic build reads from postfix tables (optimized/bytecode.py) and a generated module replaces by
specialized code (optimized/codegen.py). `holds` is looked up in this module's globals at compile
time, so the generated module carries its own copy of the source below.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cepkit.optimized.bytecode import OP_AGG, OP_AND, OP_BIN, OP_CMP, OP_OR
from cepkit.optimized.runindex import (NULL_GROUP, anchor_counts, ensure_groups, event_group, extend, grow_rows, new_group,
                                       relink, replace, sweep)
from cepkit.optimized.values import agg_add, cmp_vals, rat_add, rat_div, rat_mod, rat_mul, rat_sub, sub64

NUM, NULL, STR = 0, 1, 2
FIRST, ITER = 0, 1
HDR = 3
AGGW = 7

# Q (int64 scalars of the query)
Q_N, Q_STRAT, Q_HASWIN, Q_WINPOS, Q_WINNUM, Q_WINDEN, Q_WINSTRICT, Q_NPART, Q_NNEG, Q_NAGG, Q_STOP, Q_NOSHARE, \
    Q_MERGE, Q_KEYED = range(14)
Q_SIZE = 14
MERGED = -1  # the component field of a merge node: arena row (left member node, right member node, MERGED, 0, young)
GONE = -2  # a merge node's member whose paths have all left the window (dropped by compact)
ARENA_W = 5


# ---------------------------------------------------------------------------------------- helpers
@njit(cache=True, inline="always")
def _inside(Q, ets, base, first, p):
    if Q[Q_HASWIN] == 0:
        return True
    if Q[Q_WINPOS] == 1:
        span = p - first
    else:
        span = ets[p - base] - ets[first - base]
    if Q[Q_WINSTRICT] == 1:
        return span * Q[Q_WINDEN] < Q[Q_WINNUM]
    return span * Q[Q_WINDEN] <= Q[Q_WINNUM]


@njit(cache=True, inline="always")
def _inside_back(Q, ets, base, last, p):
    if Q[Q_WINPOS] == 1:
        span = last - p
    else:
        span = ets[last - base] - ets[p - base]
    if Q[Q_WINSTRICT] == 1:
        return span * Q[Q_WINDEN] < Q[Q_WINNUM]
    return span * Q[Q_WINDEN] <= Q[Q_WINNUM]


@njit(cache=True)
def _grow2(a, need):
    if need <= a.shape[0]:
        return a
    cap = max(need, 2 * a.shape[0], 16)
    b = np.zeros((cap, a.shape[1]), dtype=a.dtype)
    b[: a.shape[0]] = a
    return b


@njit(cache=True, inline="always")
def _hash(key, mask):
    h = (key * np.int64(-7046029254386353131)) ^ (key >> 29)
    return h & mask


@njit(cache=True, inline="always")
def _table_find(keys, stamps, stamp, key):
    """Slot of key in the stamped table: (slot, found)."""
    mask = keys.shape[0] - 1
    i = _hash(key, mask)
    while True:
        if stamps[i] != stamp:
            return i, False
        if keys[i] == key:
            return i, True
        i = (i + 1) & mask


@njit(cache=True, inline="always")
def _rat_eq(an, ad, at, bn, bd, bt):
    return at != NULL and bt != NULL and at == bt and an == bn and ad == bd


# ---------------------------------------------------------------------------------------- postfix evaluation
@njit(cache=True, inline="always")
def eval_clause(T, s, e, R, pl, ix, p, base, vn, vd, vt, n, stk):
    """Truth of the postfix clause in rows s..e-1 of the packed tables T, on the run row R[pl, ix] with
    the event at p being tested; stk holds the value stack (numerators, denominators, tags)."""
    kc = T[0, 3]
    sp = 0
    for i in range(s, e):
        op = T[i, 0]
        a = T[i, 1]
        if op == 0:  # const
            stk[2, sp] = T[kc + a, 0]
            stk[0, sp] = T[kc + a, 1]
            stk[1, sp] = T[kc + a, 2]
            sp += 1
        elif op == 1:  # attr
            k = T[i, 2]
            slot = T[i, 3]
            q = -1
            if a == 0:
                q = p
            elif a == 1:
                if R[pl, ix, HDR + 3 * k + 2] > 0:
                    q = R[pl, ix, HDR + 3 * k]
            elif a == 2:
                q = R[pl, ix, HDR + 3 * k] if R[pl, ix, HDR + 3 * k + 2] > 0 else p
            elif a == 3:
                if R[pl, ix, HDR + 3 * k + 2] > 0:
                    q = R[pl, ix, HDR + 3 * k + 1]
            if q < 0:
                stk[2, sp] = NULL
                stk[0, sp] = 0
                stk[1, sp] = 1
            else:
                stk[2, sp] = vt[slot, q - base]
                stk[0, sp] = vn[slot, q - base]
                stk[1, sp] = vd[slot, q - base]
            sp += 1
        elif op == 2:  # len
            stk[2, sp] = NUM
            stk[0, sp] = R[pl, ix, HDR + 3 * a + 2] if a >= 0 else 0
            stk[1, sp] = 1
            sp += 1
        elif op == 3:  # aggregate
            slot = T[i, 2]
            cnt = 0
            if slot >= 0:
                o = HDR + 3 * n + AGGW * slot
                cnt = R[pl, ix, o + 2]
            if a == 1:
                stk[2, sp] = NUM
                stk[0, sp] = cnt
                stk[1, sp] = 1
            elif cnt == 0:
                stk[2, sp] = NULL
                stk[0, sp] = 0
                stk[1, sp] = 1
            else:
                stk[2, sp] = NUM
                if a == 0:
                    stk[0, sp] = R[pl, ix, o]
                    stk[1, sp] = R[pl, ix, o + 1]
                elif a == 2:
                    rn, rd = rat_div(R[pl, ix, o], R[pl, ix, o + 1], cnt, 1)
                    stk[0, sp] = rn
                    stk[1, sp] = rd
                elif a == 3:
                    stk[0, sp] = R[pl, ix, o + 3]
                    stk[1, sp] = R[pl, ix, o + 4]
                else:
                    stk[0, sp] = R[pl, ix, o + 5]
                    stk[1, sp] = R[pl, ix, o + 6]
            sp += 1
        elif op == 4:  # arithmetic
            sp -= 1
            if stk[2, sp - 1] != NUM or stk[2, sp] != NUM:
                stk[2, sp - 1] = NULL
            else:
                x_n = stk[0, sp - 1]
                x_d = stk[1, sp - 1]
                y_n = stk[0, sp]
                y_d = stk[1, sp]
                if a == 0:
                    rn, rd = rat_add(x_n, x_d, y_n, y_d)
                elif a == 1:
                    rn, rd = rat_sub(x_n, x_d, y_n, y_d)
                elif a == 2:
                    rn, rd = rat_mul(x_n, x_d, y_n, y_d)
                elif y_n == 0:
                    stk[2, sp - 1] = NULL
                    continue
                elif a == 3:
                    rn, rd = rat_div(x_n, x_d, y_n, y_d)
                else:
                    rn, rd = rat_mod(x_n, x_d, y_n, y_d)
                stk[0, sp - 1] = rn
                stk[1, sp - 1] = rd
        elif op == 5:  # unary minus
            if stk[2, sp - 1] == NUM:
                stk[0, sp - 1] = sub64(0, stk[0, sp - 1])
        elif op == 6:  # compare
            sp -= 1
            r = cmp_vals(a, stk[2, sp - 1], stk[0, sp - 1], stk[1, sp - 1], stk[2, sp], stk[0, sp], stk[1, sp])
            stk[2, sp - 1] = NUM
            stk[0, sp - 1] = 1 if r else 0
            stk[1, sp - 1] = 1
        elif op == 7 or op == 8:  # and / or over the top `a` values
            acc = op == 7
            for k in range(sp - a, sp):
                tv = (stk[2, k] == NUM and stk[0, k] != 0) or (stk[2, k] == STR and stk[0, k] != 0)
                if op == 7:
                    acc = acc and tv
                else:
                    acc = acc or tv
            sp -= a
            stk[2, sp] = NUM
            stk[0, sp] = 1 if acc else 0
            stk[1, sp] = 1
            sp += 1
        else:  # not
            tv = (stk[2, sp - 1] == NUM and stk[0, sp - 1] != 0) or (stk[2, sp - 1] == STR and stk[0, sp - 1] != 0)
            stk[2, sp - 1] = NUM
            stk[0, sp - 1] = 0 if tv else 1
            stk[1, sp - 1] = 1
    return (stk[2, 0] == NUM and stk[0, 0] != 0) or (stk[2, 0] == STR and stk[0, 0] != 0)


@njit(cache=True)
def holds(fid, R, pl, ix, p, T, E, base, n, stk, cnt):
    """Whether the clauses of formula fid all hold on row R[pl, ix] (each evaluated clause is counted).
    T packs the tables (see `pack`): row 0 = offsets of ops, clauses, formulas, constants."""
    oo = T[0, 0]
    oc = T[0, 1]
    of = T[0, 2]
    for c in range(T[of + fid, 0], T[of + fid, 1]):
        cnt[1] += 1
        if not eval_clause(T, oo + T[oc + c, 0], oo + T[oc + c, 1], R, pl, ix, p, base, E[2], E[3], E[4], n, stk):
            return False
    return True


def stack_bound(ops: np.ndarray) -> int:
    """At least the deepest value stack of eval_clause over any op range of `ops` (a wide AND / OR or a
    right-nested expression pushes one value per item)."""
    sp = top = 0
    for op, a in zip(ops[:, 0].tolist(), ops[:, 1].tolist()) if ops.shape[0] else ():
        if op <= OP_AGG:                # const, attr, len, agg: push
            sp += 1
        elif op in (OP_BIN, OP_CMP):    # pop two, push one
            sp -= 1
        elif op in (OP_AND, OP_OR):     # pop `a` items, push one
            sp -= a - 1
        top = max(top, sp)
    return top + 1


def pack(ops, clauses, formulas, consts, aggs) -> np.ndarray:
    """The tables as one int64 matrix of 4 columns: row 0 = offsets of ops, clauses, formulas and
    constants; row 1 = offset and number of aggregate slots and the value stack's size; then each
    table's rows."""
    parts = [ops, clauses, formulas, consts, aggs]
    offs, rows = [], 2
    for t in parts:
        offs.append(rows)
        rows += t.shape[0]
    T = np.zeros((rows, 4), np.int64)
    T[0] = offs[:4]
    T[1, 0], T[1, 1], T[1, 2] = offs[4], aggs.shape[0], max(64, stack_bound(ops))
    for o, t in zip(offs, parts):
        T[o:o + t.shape[0], : t.shape[1]] = t
    return T


# ---------------------------------------------------------------------------------------- the run loop

@njit(cache=True, inline="always")
def _type_ok(E, base, p, code):
    return E[0][p - base] == code


@njit(cache=True, inline="always")
def _partition(part, E, base, R, pl, ix, p):
    anchor = R[pl, ix, HDR] - base
    q = p - base
    vn, vd, vt = E[2], E[3], E[4]
    for i in range(part.shape[0]):
        a = part[i]
        if vt[a, q] == NULL or not _rat_eq(vn[a, q], vd[a, q], vt[a, q], vn[a, anchor], vd[a, anchor], vt[a, anchor]):
            return False
    return True


@njit(cache=True)
def _copy_row(R, dpl, dix, spl, six, j, phase, node):
    for x in range(R.shape[2]):
        R[dpl, dix, x] = R[spl, six, x]
    R[dpl, dix, 0] = j
    R[dpl, dix, 1] = phase
    R[dpl, dix, 2] = node


@njit(cache=True)
def extend_run(R, dpl, dix, spl, six, j, phase, node, comp, p, begin, n, aggs, E, base):
    """Row (dpl, dix) = row (spl, six) with the event at p added to component comp (begin: first element)."""
    _copy_row(R, dpl, dix, spl, six, j, phase, node)
    dst = R[dpl, dix]
    o = HDR + 3 * comp
    if begin:
        dst[o] = p
        dst[o + 1] = p
        dst[o + 2] = 1
        if comp == 0:
            dst[dst.shape[0] - 1] = p
    else:
        dst[o + 1] = p
        dst[o + 2] += 1
    q = p - base
    oa = aggs[1, 0]
    for s in range(aggs[1, 1]):
        if aggs[oa + s, 0] != comp:
            continue
        a = aggs[oa + s, 1]
        o = HDR + 3 * n + AGGW * s
        if begin:
            dst[o] = 0
            dst[o + 1] = 1
            dst[o + 2] = 0
        t = E[4][a, q]
        if t == NULL:
            continue
        agg_add(dst, o, E[2][a, q], E[3][a, q])


@njit(cache=True)
def _copy_chain(arena, nnodes, x):
    """A private copy of the chain ending at node x (per-run buffers, when sharing is switched off);
    the caller guarantees the capacity. Returns (node count, the copy of x)."""
    m = 0
    y = x
    while y >= 0:
        m += 1
        y = arena[y, 0]
    y = x
    for i in range(m - 1, -1, -1):  # copies keep parents before children
        arena[nnodes + i, 1] = arena[y, 1]
        arena[nnodes + i, 2] = arena[y, 2]
        arena[nnodes + i, 3] = 0
        arena[nnodes + i, 4] = arena[y, 4]
        arena[nnodes + i, 0] = nnodes + i - 1 if i > 0 else -1
        y = arena[y, 0]
    return nnodes + m, nnodes + m - 1


@njit(cache=True)
def _new_node(arena, nnodes, nkeys, nvals, nstamp, stamp, parent, comp, p, share):
    """The node for (parent, comp) + the event at p: one per (parent, comp) per event (capacity is the
    caller's). Without sharing, the new node hangs off a private copy of the parent's chain."""
    key = (parent + 1) * 64 + comp
    slot, found = _table_find(nkeys, nstamp, stamp, key)
    if found:
        return nnodes, nvals[slot]
    if not share and parent >= 0:
        nnodes, parent = _copy_chain(arena, nnodes, parent)
    arena[nnodes, 0] = parent
    arena[nnodes, 1] = p
    arena[nnodes, 2] = comp
    arena[nnodes, 3] = 0
    arena[nnodes, 4] = arena[parent, 4] if parent >= 0 else p
    nkeys[slot] = key
    nvals[slot] = nnodes
    nstamp[slot] = stamp
    return nnodes + 1, nnodes


@njit(cache=True, inline="always")
def _claim_run(rkeys, rstamp, stamp, node, phase):
    """True the first time (node, phase) is pushed in this event."""
    key = node * 2 + phase
    slot, found = _table_find(rkeys, rstamp, stamp, key)
    if found:
        return False
    rkeys[slot] = key
    rstamp[slot] = stamp
    return True


@njit(cache=True)
def _pow2(x):
    s = 16
    while s < x:
        s *= 2
    return s


# planes of the run matrix R[plane, row, field]
P_DONE, P_PEND, P_FRESH = 2, 3, 4


@njit(cache=True, inline="always")
def _expired(Q, ets, base, pos, ref):
    """Whether a path starting at pos is outside the window of every event from ref on (positions before
    the store's base are: the engine keeps everything a window ending at ref may include)."""
    if Q[Q_MERGE] == 0 or Q[Q_HASWIN] == 0 or ref < base:
        return False
    return pos < base or not _inside(Q, ets, base, pos, ref)


@njit(cache=True)
def reachable(arena, nnodes, R, cur, nruns, npend, out, nout, Q, ets, base, ref):
    """Which buffer nodes a reported match, a held match or a live run reaches. With merging, a merge
    node's member whose paths all left the window (of the match's last event, or of ref for a run) is
    not followed; roots go from the oldest reference to the newest, so a node is first reached with the
    widest window that needs it."""
    live = np.zeros(nnodes, np.bool_)
    stack = np.empty(nnodes + 1, np.int64)  # the other member of each merge node met on the way
    for i in range(nout + npend + nruns):
        if i < nout:
            stack[0] = out[i, 1]
            at = out[i, 0]
        elif i < nout + npend:
            stack[0] = R[P_PEND, i - nout, 2]
            at = -1
        else:
            stack[0] = R[cur, i - nout - npend, 2]
            at = ref
        top = 1
        while top > 0:
            top -= 1
            x = stack[top]
            while x >= 0 and not live[x]:
                live[x] = True
                if arena[x, 2] == MERGED:
                    y = arena[x, 1]
                    if y >= 0 and not _expired(Q, ets, base, arena[y, 4], at):
                        stack[top] = y
                        top += 1
                    y = arena[x, 0]
                    if y >= 0 and _expired(Q, ets, base, arena[y, 4], at):
                        break
                x = arena[x, 0]
    return live


@njit(cache=True)
def compact(arena, nnodes, R, cur, nruns, npend, out, nout, Q, ets, base, ref):
    """Drop buffer nodes that no live run, held match or reported match reaches; renumber the rest in
    place (parents precede children, so one forward pass suffices). Returns the new node count."""
    live = reachable(arena, nnodes, R, cur, nruns, npend, out, nout, Q, ets, base, ref)
    newid = np.full(nnodes, -1, np.int64)
    k = 0
    for x in range(nnodes):
        if live[x]:
            newid[x] = k
            par = arena[x, 0]
            if arena[x, 2] == MERGED:  # a member that was not followed is gone
                y = arena[x, 1]
                arena[k, 0] = newid[par] if par >= 0 and live[par] else GONE
                arena[k, 1] = newid[y] if y >= 0 and live[y] else GONE
            else:
                arena[k, 0] = newid[par] if par >= 0 else -1
                arena[k, 1] = arena[x, 1]
            arena[k, 2] = arena[x, 2]
            arena[k, 3] = arena[x, 3]
            arena[k, 4] = arena[x, 4]
            k += 1
    for i in range(nruns):
        if R[cur, i, 2] >= 0:
            R[cur, i, 2] = newid[R[cur, i, 2]]
    for i in range(npend):
        R[P_PEND, i, 2] = newid[R[P_PEND, i, 2]]
    for i in range(nout):
        out[i, 1] = newid[out[i, 1]]
    return k


@njit(cache=True)
def _needs(Q, R, cur, nruns, npend, nnodes, n):
    """(rows per plane, buffer nodes) that processing one more event may need."""
    rows = max(4 * nruns + 8, npend + 2 * nruns + 8)
    nodes = nnodes + 2 * nruns + 4
    if Q[Q_MERGE] == 1:
        nodes += 4 * nruns + 8  # a merge node per merged row
    if Q[Q_NOSHARE] == 1:
        for r in range(nruns):
            m = 1
            for k in range(n):
                m += R[cur, r, HDR + 3 * k + 2]
            nodes += 2 * m
    return rows, nodes


@njit(cache=True)
def _grow3(R, rows):
    if rows <= R.shape[1]:
        return R
    S = np.zeros((R.shape[0], max(rows, 2 * R.shape[1]), R.shape[2]), np.int64)
    S[:, : R.shape[1], :] = R
    return S



# ---------------------------------------------------------------------------------------- merging (spec/000 §6)
# KP, the key program of each state (optimized/merging.py): rows 2j + phase hold [start, end) of that state's
# entries; an entry (kind, field, slot) reads kind 0: the value of attribute slot at the position in
# field, 1: the field itself, 2: whether the field is > 0.
KEY_VALUE, KEY_FIELD, KEY_POSITIVE = 0, 1, 2


@njit(cache=True, inline="always")
def _key_item(KP, r, R, pl, ix, E, base, w):
    """Item w (0..2) of key entry r of row (pl, ix)."""
    kind = KP[r, 0]
    f = R[pl, ix, KP[r, 1]]
    if kind == KEY_VALUE:
        if w == 0:
            return np.int64(E[4][KP[r, 2], f - base])
        if w == 1:
            return E[2][KP[r, 2], f - base]
        return E[3][KP[r, 2], f - base]
    if w > 0:
        return 0
    if kind == KEY_FIELD:
        return f
    return 1 if f > 0 else 0


@njit(cache=True, inline="always")
def _key_hash(KP, R, pl, ix, E, base):
    s = 2 * R[pl, ix, 0] + R[pl, ix, 1]
    h = s * np.int64(1000003) + 17
    for r in range(KP[s, 0], KP[s, 1]):
        for w in range(3):
            h = (h ^ _key_item(KP, r, R, pl, ix, E, base, w)) * np.int64(1099511628211)
    return h


@njit(cache=True, inline="always")
def _same_key(KP, R, pl, a, b, E, base):
    if R[pl, a, 0] != R[pl, b, 0] or R[pl, a, 1] != R[pl, b, 1]:
        return False
    s = 2 * R[pl, a, 0] + R[pl, a, 1]
    for r in range(KP[s, 0], KP[s, 1]):
        for w in range(3):
            if _key_item(KP, r, R, pl, a, E, base, w) != _key_item(KP, r, R, pl, b, E, base, w):
                return False
    return True


@njit(cache=True)
def merge_fresh(KP, R, pl, nn, arena, nnodes, E, base, p, hkeys, hrows, hstamp, stamp):
    """Merge the runs of plane pl that the event at p created (their node is new) and that agree on their
    state's key: one run per class, whose node is a merge node over the members' nodes, whose fields are
    the youngest member's (the window is checked from the youngest start) and whose last field is the
    oldest member's start. Returns (runs, nodes)."""
    mask = hkeys.shape[0] - 1
    old = R.shape[2] - 1
    dead = 0
    for i in range(nn):
        x = R[pl, i, 2]
        if arena[x, 2] == MERGED or arena[x, 1] != p:
            continue
        h = _key_hash(KP, R, pl, i, E, base)
        slot = _hash(h, mask)
        while True:
            if hstamp[slot] != stamp:
                hstamp[slot] = stamp
                hkeys[slot] = h
                hrows[slot] = i
                break
            r = hrows[slot]
            if hkeys[slot] == h and _same_key(KP, R, pl, r, i, E, base):
                arena[nnodes, 0] = R[pl, r, 2]
                arena[nnodes, 1] = x
                arena[nnodes, 2] = MERGED
                arena[nnodes, 3] = 0
                arena[nnodes, 4] = max(arena[R[pl, r, 2], 4], arena[x, 4])
                oldest = min(R[pl, r, old], R[pl, i, old])
                if R[pl, i, HDR] > R[pl, r, HDR]:
                    _copy_row(R, pl, r, pl, i, R[pl, i, 0], R[pl, i, 1], nnodes)
                R[pl, r, 2] = nnodes
                R[pl, r, old] = oldest
                nnodes += 1
                R[pl, i, 0] = -1
                dead += 1
                break
            slot = (slot + 1) & mask
    if dead == 0:
        return nn, nnodes
    k = 0
    for i in range(nn):
        if R[pl, i, 0] >= 0:
            if k != i:
                _copy_row(R, pl, k, pl, i, R[pl, i, 0], R[pl, i, 1], R[pl, i, 2])
            k += 1
    return k, nnodes

# LOOP-START (optimized/codegen.py copies the source from here to LOOP-END into each generated module)
@njit(cache=True)
def _ignore(Q, part, ctype, T, E, base, n, stk, cnt, R, pl, ix, j, phase, p):
    s = Q[Q_STRAT]
    if s == 1:
        return False
    if s == 2:
        g = not _partition(part, E, base, R, pl, ix, p)
    elif s == 3:
        fid = n + j if phase == ITER else j
        g = not (_type_ok(E, base, p, ctype[j]) and holds(fid, R, pl, ix, p, T, E, base, n, stk, cnt))
    else:
        g = True
    return g and _inside(Q, E[1], base, R[pl, ix, HDR], p)


@njit(cache=True)
def _blocks(Q, neg_type, T, E, base, n, stk, cnt, m, R, pl, ix, q):
    return _type_ok(E, base, q, neg_type[m]) and holds(3 * n + m, R, pl, ix, q, T, E, base, n, stk, cnt)


@njit(cache=True)
def _verdict(Q, neg_gap, neg_type, T, E, base, n, stk, cnt, R, pl, ix):
    """1 confirmed, 0 blocked, 2 waiting for a trailing negation's window."""
    wait = False
    for m in range(neg_gap.shape[0]):
        gap = neg_gap[m]
        if gap == n:
            wait = True
            continue
        if gap == 0:
            first = R[pl, ix, HDR]
            lastp = R[pl, ix, HDR + 3 * (n - 1) + 1]
            q = first - 1
            while q >= base:
                if Q[Q_HASWIN] == 1 and not _inside_back(Q, E[1], base, lastp, q):
                    break
                if _blocks(Q, neg_type, T, E, base, n, stk, cnt, m, R, pl, ix, q):
                    return 0
                q -= 1
        else:
            for q in range(R[pl, ix, HDR + 3 * (gap - 1) + 1] + 1, R[pl, ix, HDR + 3 * gap]):
                if _blocks(Q, neg_type, T, E, base, n, stk, cnt, m, R, pl, ix, q):
                    return 0
    return 2 if wait else 1


@njit(cache=True)
def _done(R, ndone, arena, node, stamp, spl, six):
    """Record the completed row (spl, six) unless its node already completed in this event."""
    if arena[node, 3] == stamp:
        return ndone
    arena[node, 3] = stamp
    _copy_row(R, P_DONE, ndone, spl, six, R[spl, six, 0], R[spl, six, 1], node)
    return ndone + 1


@njit(cache=True)
def _steps(Q, ctype, kleene, part, neg_gap, neg_type, T, KP, E, base, start, end, R, cur, nruns, arena, nnodes,
           npend, out, nout, cnt, stamp, rkeys, rstamp, nkeys, nvals, nstamp, hkeys, hrows, hstamp, stk, live,
           RL, GT, GH, GS, hist, XS):
    """Process events from start while the buffers are large enough (no array is reallocated here).
    Returns (status, position, cur, nruns, nnodes, npend, nout, stamp): status 0 reached end, 1 needs
    larger buffers before the event at position, 2 stopped after an event that confirmed matches
    (non-overlap) or that passed the budget in cnt[3] / cnt[4], 3 wants the buffer compacted.
    Keyed (Q_KEYED, optimized/runindex.py): an event visits its key's group of runs only; XS = (the first
    anchor still inside the window, runs left outside it but not yet removed), hist counts runs by anchor."""
    n = Q[Q_N]
    aggs = T  # extend_run reads the aggregate slots from the packed tables
    share = Q[Q_NOSHARE] == 0
    keyed = Q[Q_KEYED] == 1
    track = keyed and Q[Q_HASWIN] == 1  # runs of unvisited keys leave the window uncounted: count them here
    p = start
    while p < end:
        rows, nodes = _needs(Q, R, cur, nruns, npend, nnodes, n)
        if rows > R.shape[1] or nodes > arena.shape[0] or 8 * (nruns + 4) > rkeys.shape[0] \
                or nout + npend + 2 * nruns + 4 > out.shape[0] or rows > RL.shape[0] or GS[0] >= GT.shape[0]:
            return 1, p, cur, nruns, nnodes, npend, nout, stamp
        if nnodes > 65536 and nnodes > 4 * live:
            return 3, p, cur, nruns, nnodes, npend, nout, stamp
        stamp += 1
        cnt[2] = p  # the event being processed (the engine names it if arithmetic overflows)
        # held matches of a trailing negation: released when p leaves their window, dropped if p blocks
        if npend > 0:
            keep = 0
            for i in range(npend):
                if Q[Q_HASWIN] == 1 and not _inside(Q, E[1], base, R[P_PEND, i, HDR], p):
                    out[nout, 0] = p
                    out[nout, 1] = R[P_PEND, i, 2]
                    out[nout, 2] = 1
                    nout += 1
                    continue
                blocked = False
                for m in range(neg_gap.shape[0]):
                    if neg_gap[m] == n and _blocks(Q, neg_type, T, E, base, n, stk, cnt, m, R, P_PEND, i, p):
                        blocked = True
                        break
                if not blocked:
                    if keep != i:
                        _copy_row(R, P_PEND, keep, P_PEND, i, R[P_PEND, i, 0], R[P_PEND, i, 1], R[P_PEND, i, 2])
                    keep += 1
            npend = keep
        nxt = 1 - cur
        nn = 0
        ndone = 0
        grp = -1
        visit = nruns
        if keyed:  # -3: no live run, the key is looked up only if the event starts runs
            grp = event_group(part, E, base, p, GT, GH) if nruns > 0 else -3
            visit = GT[grp, 2] if grp >= 0 else 0
        if track and visit < nruns:  # runs left unvisited: count those whose window closes at p
            lo = XS[0]
            while lo < p and not _inside(Q, E[1], base, lo, p):
                XS[1] += hist[lo - base]
                lo += 1
            XS[0] = lo
        row = GT[grp, 0] if grp >= 0 else -1
        for r in range(visit + 1):
            if r < visit:
                spl = cur
                six = r
                if keyed:
                    six = row
                    row = RL[row, 1]
                if track:
                    anchor = R[spl, six, HDR]
                    hist[anchor - base] -= 1
                    if anchor < XS[0]:
                        XS[1] -= 1
            else:
                spl = P_FRESH
                six = 0
            j = R[spl, six, 0]
            phase = R[spl, six, 1]
            while True:
                last = j == n - 1
                if phase == ITER:
                    first = R[spl, six, HDR]
                    t = (_type_ok(E, base, p, ctype[j]) and holds(n + j, R, spl, six, p, T, E, base, n, stk, cnt)
                         and _inside(Q, E[1], base, first, p))
                    g = _ignore(Q, part, ctype, T, E, base, n, stk, cnt, R, spl, six, j, ITER, p)
                    if t:
                        nnodes, node = _new_node(arena, nnodes, nkeys, nvals, nstamp, stamp, R[spl, six, 2], j, p, share)
                        cnt[0] += 1
                        if _claim_run(rkeys, rstamp, stamp, node, ITER):
                            extend_run(R, nxt, nn, spl, six, j, ITER, node, j, p, False, n, aggs, E, base)
                            nn += 1
                            if last and holds(2 * n + j, R, nxt, nn - 1, -1, T, E, base, n, stk, cnt):
                                ndone = _done(R, ndone, arena, node, stamp, nxt, nn - 1)
                    if g and _claim_run(rkeys, rstamp, stamp, R[spl, six, 2], ITER):
                        _copy_row(R, nxt, nn, spl, six, j, ITER, R[spl, six, 2])
                        nn += 1
                    if not last and holds(2 * n + j, R, spl, six, -1, T, E, base, n, stk, cnt):
                        peek = (_type_ok(E, base, p, ctype[j + 1])
                                and holds(j + 1, R, spl, six, p, T, E, base, n, stk, cnt)
                                and _inside(Q, E[1], base, first, p))
                        if peek or (not t and not g):
                            j += 1
                            phase = FIRST
                            continue
                    break
                # FIRST: waiting for component j's first event
                if _type_ok(E, base, p, ctype[j]) and holds(j, R, spl, six, p, T, E, base, n, stk, cnt) \
                        and (j == 0 or _inside(Q, E[1], base, R[spl, six, HDR], p)):
                    nnodes, node = _new_node(arena, nnodes, nkeys, nvals, nstamp, stamp, R[spl, six, 2], j, p, share)
                    if kleene[j] == 1:
                        cnt[0] += 1
                        if _claim_run(rkeys, rstamp, stamp, node, ITER):
                            extend_run(R, nxt, nn, spl, six, j, ITER, node, j, p, True, n, aggs, E, base)
                            nn += 1
                            if last and holds(2 * n + j, R, nxt, nn - 1, -1, T, E, base, n, stk, cnt):
                                ndone = _done(R, ndone, arena, node, stamp, nxt, nn - 1)
                    elif last:
                        if arena[node, 3] != stamp:
                            arena[node, 3] = stamp
                            extend_run(R, P_DONE, ndone, spl, six, j, FIRST, node, j, p, True, n, aggs, E, base)
                            ndone += 1
                    else:
                        cnt[0] += 1
                        if _claim_run(rkeys, rstamp, stamp, node, FIRST):
                            extend_run(R, nxt, nn, spl, six, j + 1, FIRST, node, j, p, True, n, aggs, E, base)
                            nn += 1
                if j > 0 and _ignore(Q, part, ctype, T, E, base, n, stk, cnt, R, spl, six, j, FIRST, p) \
                        and _claim_run(rkeys, rstamp, stamp, R[spl, six, 2], FIRST):
                    _copy_row(R, nxt, nn, spl, six, j, FIRST, R[spl, six, 2])
                    nn += 1
                break
        if Q[Q_MERGE] == 1 and nn > 1:
            nn, nnodes = merge_fresh(KP, R, nxt, nn, arena, nnodes, E, base, p, hkeys, hrows, hstamp, stamp)
        if track:
            for i in range(nn):
                hist[R[nxt, i, HDR] - base] += 1
        if grp == -3 and nn > 0:
            grp = event_group(part, E, base, p, GT, GH)
        if not keyed:  # one list of runs: the new plane replaces the old (runindex is not kept)
            cur = nxt
            nruns = nn
        elif nn > 0 or visit > 0:
            if grp == -2:  # a null key: its runs are never extended, they wait for their window to close
                nruns = extend(R, cur, nxt, nn, nruns, RL, GT, NULL_GROUP)
            else:
                if grp == -1:
                    grp = new_group(part, E, base, p, GT, GH, GS)
                if visit == nruns:  # the group holds every run: the new plane replaces the old
                    cur = nxt
                    nruns = nn
                    relink(RL, GT, grp, nn)
                else:
                    nruns = replace(R, cur, nxt, nn, nruns, RL, GT, grp)
        if track and XS[1] > 64 and 2 * XS[1] > nruns:
            nruns = sweep(R, cur, nruns, RL, GT, hist, XS[0], base, HDR)
            XS[1] = 0
        confirmed = 0
        for i in range(ndone):
            v = _verdict(Q, neg_gap, neg_type, T, E, base, n, stk, cnt, R, P_DONE, i)
            if v == 2:
                _copy_row(R, P_PEND, npend, P_DONE, i, R[P_DONE, i, 0], R[P_DONE, i, 1], R[P_DONE, i, 2])
                npend += 1
            elif v == 1:
                out[nout, 0] = p
                out[nout, 1] = R[P_DONE, i, 2]
                out[nout, 2] = 0
                nout += 1
                confirmed += 1
        p += 1
        if confirmed > 0 and Q[Q_STOP] == 1:
            return 2, p, cur, nruns, nnodes, npend, nout, stamp
        # the run's budget (cnt[3]: max live runs and held matches, 0 none; cnt[4]: matches wanted, -1 all):
        # stop after the event that passes either, the engine raises ResourceLimit or ends the feed;
        # cnt[5]: the peak live state (runs whose window closed are not live, removed or not)
        state = nruns - XS[1] + npend
        if state > cnt[5]:
            cnt[5] = state
        if (cnt[3] > 0 and state > cnt[3]) or (cnt[4] >= 0 and nout >= cnt[4]):
            return 2, p, cur, nruns, nnodes, npend, nout, stamp
    return 0, p, cur, nruns, nnodes, npend, nout, stamp


@njit(cache=True)
def _hash_tables(nruns):
    """The step's eight scratch hash arrays (run keys, node keys, held keys, with stamps), sized for nruns."""
    size = _pow2(16 * (nruns + 4))
    return (np.zeros(size, np.int64), np.zeros(size, np.int64), np.zeros(size, np.int64),
            np.zeros(size, np.int64), np.zeros(size, np.int64), np.zeros(size, np.int64),
            np.zeros(size, np.int64), np.zeros(size, np.int64))


@njit(cache=True)
def run_loop(Q, ctype, kleene, part, neg_gap, neg_type, T, KP, E, base, start, end,
             R, cur, nruns, arena, nnodes, npend, out, nout, cnt, stamp, RL, GT, GH, GS):
    """Process events start..end-1 (global positions; the store begins at base), growing the buffers
    between stretches of `_steps`. Returns the position after the last processed event (earlier than
    end when non-overlap stops at a confirming event) and the updated state, the runs' key index
    (RL, GT, GH, GS: optimized/runindex.py) included; no run outside the window of that event's
    predecessor is left. out rows: (event position, node, 1 if released from the held list)."""
    stk = np.zeros((3, T[1, 2]), np.int64)
    rkeys, rstamp, nkeys, nvals, nstamp, hkeys, hrows, hstamp = _hash_tables(nruns)
    live = nnodes
    track = Q[Q_KEYED] == 1 and Q[Q_HASWIN] == 1
    hist = anchor_counts(R, cur, nruns, base, end, HDR) if track else np.zeros(1, np.int64)
    XS = np.zeros(2, np.int64)
    XS[0] = base
    p = start
    while True:
        status, p, cur, nruns, nnodes, npend, nout, stamp = _steps(
            Q, ctype, kleene, part, neg_gap, neg_type, T, KP, E, base, p, end, R, cur, nruns, arena, nnodes,
            npend, out, nout, cnt, stamp, rkeys, rstamp, nkeys, nvals, nstamp, hkeys, hrows, hstamp, stk, live,
            RL, GT, GH, GS, hist, XS)
        if status == 1:
            rows, nodes = _needs(Q, R, cur, nruns, npend, nnodes, Q[Q_N])
            R = _grow3(R, rows)
            RL = grow_rows(RL, R.shape[1])
            GT, GH = ensure_groups(GT, GH, GS, RL, nruns, part.shape[0])
            arena = _grow2(arena, nodes)
            out = _grow2(out, nout + npend + 2 * nruns + 4)
            if 8 * (nruns + 4) > rkeys.shape[0]:
                rkeys, rstamp, nkeys, nvals, nstamp, hkeys, hrows, hstamp = _hash_tables(nruns)
        elif status == 3:
            nnodes = compact(arena, nnodes, R, cur, nruns, npend, out, nout, Q, E[1], base, p - 1)
            live = nnodes
        else:
            break
    if XS[1] > 0:
        nruns = sweep(R, cur, nruns, RL, GT, hist, XS[0], base, HDR)
    return p, R, cur, nruns, arena, nnodes, npend, out, nout, stamp, RL, GT, GH
# LOOP-END


@njit(cache=True)
def materialize(arena, nodes, n):
    """Bindings of each node: flat (component, position) pairs in stream order and per-node offsets."""
    total = 0
    for i in range(nodes.shape[0]):
        x = nodes[i]
        while x >= 0:
            total += 1
            x = arena[x, 0]
    comps = np.empty(total, np.int64)
    poss = np.empty(total, np.int64)
    offs = np.empty(nodes.shape[0] + 1, np.int64)
    k = 0
    for i in range(nodes.shape[0]):
        offs[i] = k
        x = nodes[i]
        m = 0
        while x >= 0:
            m += 1
            x = arena[x, 0]
        x = nodes[i]
        e = k + m
        while x >= 0:
            e -= 1
            comps[e] = arena[x, 2]
            poss[e] = arena[x, 1]
            x = arena[x, 0]
        k += m
    offs[nodes.shape[0]] = k
    return comps, poss, offs




@njit(cache=True)
def _walk_paths(arena, nodes, Q, ets, base, comps, poss, offs, owner, fill):
    """Depth-first over every member path of each node (merge nodes branch); members whose paths all
    start outside the window of the node's event are skipped, and so is any path whose first event is
    (expired members of a merged run). Returns (paths, elements); with fill, writes them in stream order."""
    npath = 0
    total = 0
    stack = np.empty((16, 2), np.int64)
    buf = np.empty((16, 2), np.int64)
    for i in range(nodes.shape[0]):
        stack[0, 0] = nodes[i]
        stack[0, 1] = 0
        top = 1
        done = arena[nodes[i], 1]
        while top > 0:
            top -= 1
            x = stack[top, 0]
            d = stack[top, 1]
            whole = True
            while x >= 0:
                if arena[x, 2] == MERGED:
                    y = arena[x, 1]
                    if y >= 0 and not _expired(Q, ets, base, arena[y, 4], done):
                        if top == stack.shape[0]:
                            stack = _grow2(stack, 2 * top)
                        stack[top, 0] = y
                        stack[top, 1] = d
                        top += 1
                    y = arena[x, 0]
                    if y < 0 or _expired(Q, ets, base, arena[y, 4], done):
                        whole = False
                        break
                else:
                    if d == buf.shape[0]:
                        buf = _grow2(buf, 2 * d)
                    buf[d, 0] = arena[x, 2]
                    buf[d, 1] = arena[x, 1]
                    d += 1
                x = arena[x, 0]
            if not whole or _expired(Q, ets, base, buf[d - 1, 1], done):
                continue
            if fill:
                offs[npath] = total
                owner[npath] = i
                for e in range(d):
                    comps[total + e] = buf[d - 1 - e, 0]
                    poss[total + e] = buf[d - 1 - e, 1]
            npath += 1
            total += d
    if fill:
        offs[npath] = total
    return npath, total


@njit(cache=True)
def materialize_paths(arena, nodes, Q, ets, base):
    """materialize for buffers with merge nodes: (components, positions, offsets, owner node index) of
    every unexpired member path."""
    empty = np.zeros(0, np.int64)
    npath, total = _walk_paths(arena, nodes, Q, ets, base, empty, empty, empty, empty, False)
    comps = np.empty(total, np.int64)
    poss = np.empty(total, np.int64)
    offs = np.empty(npath + 1, np.int64)
    owner = np.empty(npath, np.int64)
    _walk_paths(arena, nodes, Q, ets, base, comps, poss, offs, owner, True)
    return comps, poss, offs, owner


# ---------------------------------------------------------------------- columnar match output
@njit(cache=True)
def split_components(comps, offs, n):
    """co[i, c]: where component c's positions start in match i's range of the flat bindings (components
    ascend within a match); co[i, n] is the end of the range."""
    m = offs.shape[0] - 1
    co = np.empty((m, n + 1), np.int64)
    for i in range(m):
        x = offs[i]
        hi = offs[i + 1]
        for c in range(n):
            while x < hi and comps[x] < c:
                x += 1
            co[i, c] = x
        co[i, n] = hi
    return co


@njit(cache=True, inline="always")
def _binding_less(poss, co, n, i, j):
    """The reference's order of two matches: their position tuples per component, lexicographically."""
    for c in range(n):
        a, ae = co[i, c], co[i, c + 1]
        b, be = co[j, c], co[j, c + 1]
        while a < ae and b < be:
            if poss[a] != poss[b]:
                return poss[a] < poss[b]
            a += 1
            b += 1
        if a < ae or b < be:
            return a == ae  # a proper prefix sorts first
    return False


@njit(cache=True)
def _merge_sort(idx, lo, hi, tmp, poss, co, n):
    """Stable sort of idx[lo:hi] by `_binding_less` (bottom-up merge sort)."""
    width = 1
    size = hi - lo
    src = idx
    dst = tmp
    swapped = False
    while width < size:
        k = lo
        while k < hi:
            mid = min(k + width, hi)
            end = min(k + 2 * width, hi)
            a, b, o = k, mid, k
            while a < mid and b < end:
                if _binding_less(poss, co, n, src[b], src[a]):
                    dst[o] = src[b]
                    b += 1
                else:
                    dst[o] = src[a]
                    a += 1
                o += 1
            while a < mid:
                dst[o] = src[a]
                a += 1
                o += 1
            while b < end:
                dst[o] = src[b]
                b += 1
                o += 1
            k = end
        src, dst = dst, src
        swapped = not swapped
        width *= 2
    if swapped:
        idx[lo:hi] = tmp[lo:hi]


@njit(cache=True)
def order_matches(ev, released, poss, co, n):
    """The reference's order of the matches of `out` rows (event, node, released) after materialize:
    per event, held matches it released in their order, then the rest sorted (stably) by bindings."""
    m = ev.shape[0]
    idx = np.arange(m)
    tmp = np.empty(m, np.int64)
    i = 0
    while i < m:
        k = i
        while k < m and ev[k] == ev[i] and released[k] == released[i]:
            k += 1
        if released[i] != 1 and k - i > 1:
            _merge_sort(idx, i, k, tmp, poss, co, n)
        i = k
    return idx


@njit(cache=True)
def sort_bindings(idx, poss, co, n):
    """idx stably sorted by bindings (a copy)."""
    out = idx.copy()
    if out.shape[0] > 1:
        _merge_sort(out, 0, out.shape[0], np.empty(out.shape[0], np.int64), poss, co, n)
    return out


@njit(cache=True)
def gather_component_ids(poss, co, perm, c, ids, base):
    """(offsets, ids) of component c over the matches perm, in that order (count, then fill); a position
    maps to ids[position - base] (the store's integer ids, or the positions themselves)."""
    m = perm.shape[0]
    offsets = np.empty(m + 1, np.int64)
    offsets[0] = 0
    for r in range(m):
        i = perm[r]
        offsets[r + 1] = offsets[r] + co[i, c + 1] - co[i, c]
    out = np.empty(offsets[m], np.int64)
    for r in range(m):
        i = perm[r]
        o = offsets[r]
        for x in range(co[i, c], co[i, c + 1]):
            out[o] = ids[poss[x] - base]
            o += 1
    return offsets, out

