"""SASE 1.0's run loop in Numba, exactly as reference/nfab/sase1.py `Sase1Program`.

Runs are rows of a pool RP[0, row, field] with the SASE+ kernel's layout (optimized/nfab/layout.py: j, phase,
buffer node, (first, last, len) per component, aggregate slots, oldest start), so its formula evaluator
`holds` and `extend_run` read and grow them. A partition key (the [attr] value as tag, numerator,
denominator) maps through an open-addressing table to its slot; a slot holds its runs as a linked list,
oldest first, so an event visits only its own key's runs. Bindings are parent-linked buffer nodes
(arena rows: parent, position, component); completed matches are `out` rows (event, node) in the
reference's order (per event, in run order).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cepkit.optimized.arrays import grow2
from cepkit.optimized.nfab.formulas import holds
from cepkit.optimized.nfab.layout import HDR
from cepkit.optimized.nfab.rows import extend_run

# S (int64 scalars of the program)
S_N, S_STRAT, S_HASWIN, S_WINPOS, S_BOUND, S_KEY = range(6)
S_SIZE = 6
CONTIGUITY, NEXT_MATCH, ANY_MATCH = 2, 3, 4  # cepkit.optimized.nfab.program.STRATEGY_CODES
NONE, USE, CLOSE = 0, 1, 2
FRESH = 0  # pool row 0: the empty run a new run starts from (never allocated)
EMPTY = -1  # a table slot never used

# cnt: [partial matches, predicate evaluations, event in process, max live runs (0 none),
#       matches wanted (-1 all), peak live runs, live runs]


@njit(cache=True, inline="always")
def _inside(S, ets, base, first, p):
    if S[S_HASWIN] == 0:
        return True
    span = p - first if S[S_WINPOS] == 1 else ets[p - base] - ets[first - base]
    return span <= S[S_BOUND]


@njit(cache=True, inline="always")
def _mix(t, n, d, mask):
    h = n * np.int64(-7046029254386353131) + d * np.int64(0x9E3779B97F4A7C15) + t
    return (h ^ (h >> 29)) & mask


@njit(cache=True)
def find_slot(ktag, knum, kden, t, n, d):
    """(table index, found) of the key (t, n, d) in the open-addressing table."""
    mask = ktag.shape[0] - 1
    i = _mix(t, n, d, mask)
    while True:
        if ktag[i] == EMPTY:
            return i, False
        if ktag[i] == t and knum[i] == n and kden[i] == d:
            return i, True
        i = (i + 1) & mask


@njit(cache=True)
def rehash(ktag, knum, kden, head, count, cap):
    """A table of `cap` slots (a power of two) holding the keys that still have runs."""
    nt = np.full(cap, EMPTY, np.int64)
    nn = np.zeros(cap, np.int64)
    nd = np.zeros(cap, np.int64)
    nh = np.full(cap, -1, np.int64)
    nc = np.zeros(cap, np.int64)
    used = 0
    for i in range(ktag.shape[0]):
        if ktag[i] != EMPTY and count[i] > 0:
            k, _ = find_slot(nt, nn, nd, ktag[i], knum[i], kden[i])
            nt[k], nn[k], nd[k], nh[k], nc[k] = ktag[i], knum[i], kden[i], head[i], count[i]
            used += 1
    return nt, nn, nd, nh, nc, used


@njit(cache=True, inline="always")
def _alloc(free, nfree, RP, inuse, src, j, node):
    """A pool row copied from row src with (j, node); returns (row, nfree)."""
    r = free[nfree - 1]
    for x in range(RP.shape[2]):
        RP[0, r, x] = RP[0, src, x]
    RP[0, r, 0] = j
    RP[0, r, 2] = node
    inuse[r] = 1
    return r, nfree - 1


@njit(cache=True, inline="always")
def _node(arena, nnodes, parent, comp, p):
    arena[nnodes, 0] = parent
    arena[nnodes, 1] = p
    arena[nnodes, 2] = comp
    return nnodes + 1


@njit(cache=True, inline="always")
def _append(nxt, h0, tail, r):
    """Run r appended to the key's new list (head h0, last run tail): the new (h0, tail)."""
    if tail >= 0:
        nxt[tail] = r
    else:
        h0 = r
    return h0, r


@njit(cache=True, inline="always")
def _holds(fid, RP, r, p, T, E, base, n, stk, cnt):
    return holds(fid, RP, 0, r, p, T, E, base, n, stk, cnt)


@njit(cache=True, inline="always")
def _check(S, ctype, kleene, T, E, base, n, stk, cnt, RP, r, p):
    """SASE 1.0's check with a partition: CLOSE, USE or NONE (the run's own type first)."""
    j = RP[0, r, 0]
    if E[0][p - base] != ctype[j]:
        return NONE
    if kleene[j] == 1 and RP[0, r, HDR + 3 * j + 2] > 0:  # an open closure: the next component first
        if _holds(2 * n + j, RP, r, -1, T, E, base, n, stk, cnt) and E[0][p - base] == ctype[j + 1] \
                and _holds(j + 1, RP, r, p, T, E, base, n, stk, cnt):
            return CLOSE
        return USE if _holds(n + j, RP, r, p, T, E, base, n, stk, cnt) else NONE
    return USE if _holds(j, RP, r, p, T, E, base, n, stk, cnt) else NONE


@njit(cache=True)
def _steps(S, ctype, kleene, T, E, base, start, end, RP, inuse, nxt, free, nfree, ktag, knum, kden, head, count,
           used, arena, nnodes, out, nout, cnt, stk):
    """Process events from start while the buffers are large enough. Returns (status, position, nfree,
    used, nnodes, nout): status 0 reached end, 1 needs larger buffers before the event at position, 2
    stopped after an event past the budget (cnt[3] live runs, cnt[4] matches)."""
    n = S[S_N]
    strat = S[S_STRAT]
    keyed = S[S_KEY] >= 0
    a = S[S_KEY]
    p = start
    while p < end:
        q = p - base
        if keyed:
            t, kn, kd = np.int64(E[4][a, q]), E[2][a, q], E[3][a, q]
        else:
            t, kn, kd = np.int64(0), np.int64(0), np.int64(0)
        k, found = find_slot(ktag, knum, kden, t, kn, kd)
        m = count[k] if found else 0
        if nfree < 3 * m + 2 or nnodes + 2 * m + 2 > arena.shape[0] or nout + m + 1 > out.shape[0] \
                or (not found and 2 * (used + 1) > ktag.shape[0]):
            return 1, p, nfree, used, nnodes, nout
        cnt[2] = p
        if not found:
            ktag[k], knum[k], kden[k], head[k], count[k] = t, kn, kd, -1, 0
            used += 1
        # the key's runs, oldest first, into a new list (h0 .. tail)
        h0 = -1
        tail = -1
        kept = 0
        r = head[k]
        while r >= 0:
            following = nxt[r]
            j = RP[0, r, 0]
            first = RP[0, r, HDR]
            stay = False       # the run itself stays (skipped)
            tgt = -1           # the component the event goes to (-1: none)
            fork = False       # whole stream: a copy of the grown run moves on
            if keyed:
                v = _check(S, ctype, kleene, T, E, base, n, stk, cnt, RP, r, p)
                if v == NONE:
                    stay = strat != CONTIGUITY
                elif v == CLOSE or _inside(S, E[1], base, first, p):
                    stay = strat == ANY_MATCH
                    tgt = j + 1 if v == CLOSE else j
            else:
                open_ = kleene[j] == 1 and RP[0, r, HDR + 3 * j + 2] > 0
                fid = n + j if open_ else j
                if not (E[0][q] == ctype[j] and _holds(fid, RP, r, p, T, E, base, n, stk, cnt)):
                    stay = True
                elif _inside(S, E[1], base, first, p):
                    stay = strat == ANY_MATCH
                    tgt = j
                    fork = kleene[j] == 1
            if stay:
                h0, tail = _append(nxt, h0, tail, r)
                kept += 1
            if tgt >= 0:
                cnt[0] += 1
                nnodes = _node(arena, nnodes, RP[0, r, 2], tgt, p)
                node = nnodes - 1
                if kleene[tgt] == 1:
                    nr, nfree = _alloc(free, nfree, RP, inuse, r, tgt, node)
                    begin = RP[0, r, HDR + 3 * tgt + 2] == 0
                    extend_run(RP, 0, nr, 0, r, tgt, 0, node, tgt, p, begin, n, T, E, base)
                    h0, tail = _append(nxt, h0, tail, nr)
                    kept += 1
                    if fork and _holds(2 * n + tgt, RP, nr, -1, T, E, base, n, stk, cnt):
                        nr2, nfree = _alloc(free, nfree, RP, inuse, nr, tgt + 1, node)
                        nxt[tail] = nr2
                        tail = nr2
                        kept += 1
                elif tgt == n - 1:
                    out[nout, 0] = p
                    out[nout, 1] = node
                    nout += 1
                else:
                    nr, nfree = _alloc(free, nfree, RP, inuse, r, tgt + 1, node)
                    extend_run(RP, 0, nr, 0, r, tgt + 1, 0, node, tgt, p, True, n, T, E, base)
                    h0, tail = _append(nxt, h0, tail, nr)
                    kept += 1
            if not stay:
                inuse[r] = 0
                free[nfree] = r
                nfree += 1
            r = following
        # a new run on the event when it satisfies the first component
        if E[0][q] == ctype[0] and _holds(0, RP, FRESH, p, T, E, base, n, stk, cnt):
            cnt[0] += 1
            nnodes = _node(arena, nnodes, -1, 0, p)
            nr, nfree = _alloc(free, nfree, RP, inuse, FRESH, 0, nnodes - 1)
            j0 = 0 if kleene[0] == 1 else 1
            extend_run(RP, 0, nr, 0, FRESH, j0, 0, nnodes - 1, 0, p, True, n, T, E, base)
            h0, tail = _append(nxt, h0, tail, nr)
            kept += 1
        if tail >= 0:
            nxt[tail] = -1
        head[k] = h0
        cnt[6] += kept - m
        count[k] = kept
        p += 1
        if cnt[6] > cnt[5]:
            cnt[5] = cnt[6]
        if (cnt[3] > 0 and cnt[6] > cnt[3]) or (cnt[4] >= 0 and nout >= cnt[4]):
            return 2, p, nfree, used, nnodes, nout
    return 0, p, nfree, used, nnodes, nout


@njit(cache=True)
def _grow_pool(RP, inuse, nxt, free, nfree, need):
    """The pool with room for `need` more runs (new rows go to the free list)."""
    cap = RP.shape[1]
    if nfree >= need:
        return RP, inuse, nxt, free, nfree
    ncap = max(2 * cap, cap + need)
    R2 = np.zeros((1, ncap, RP.shape[2]), np.int64)
    R2[0, :cap] = RP[0]
    i2 = np.zeros(ncap, np.uint8)
    i2[:cap] = inuse
    n2 = np.full(ncap, -1, np.int64)
    n2[:cap] = nxt
    f2 = np.empty(ncap, np.int64)
    f2[:nfree] = free[:nfree]
    for r in range(ncap - 1, cap - 1, -1):
        f2[nfree] = r
        nfree += 1
    return R2, i2, n2, f2, nfree


@njit(cache=True)
def compact(arena, nnodes, RP, inuse, out, nout):
    """Drop buffer nodes no live run and no reported match reaches; renumber (order kept: parents first)."""
    live = np.zeros(nnodes, np.bool_)
    for i in range(nout + RP.shape[1]):
        x = out[i, 1] if i < nout else (RP[0, i - nout, 2] if inuse[i - nout] == 1 else -1)
        while x >= 0 and not live[x]:
            live[x] = True
            x = arena[x, 0]
    new = np.full(nnodes, -1, np.int64)
    m = 0
    for x in range(nnodes):
        if live[x]:
            new[x] = m
            par = arena[x, 0]
            arena[m, 0] = new[par] if par >= 0 else -1
            arena[m, 1] = arena[x, 1]
            arena[m, 2] = arena[x, 2]
            m += 1
    for i in range(nout):
        out[i, 1] = new[out[i, 1]]
    for r in range(RP.shape[1]):
        if inuse[r] == 1:
            RP[0, r, 2] = new[RP[0, r, 2]]
    return m


@njit(cache=True, nogil=True)   # (the writer thread writes the chunk before meanwhile: cepkit/overlap.py)
def run_loop(S, ctype, kleene, T, E, base, start, end, RP, inuse, nxt, free, nfree, ktag, knum, kden, head, count,
             used, arena, nnodes, cnt):
    """Process events start..end-1 (global positions; the store begins at base), growing the buffers
    between stretches of `_steps`. Returns the position after the last processed event, the state, and
    the completed matches' (event, node) rows in the reference's order."""
    stk = np.zeros((3, T[1, 2]), np.int64)
    out = np.zeros((64, 2), np.int64)
    nout = np.int64(0)  # one type for every call of _steps (a literal 0 would compile it twice)
    live = nnodes
    p = start
    while True:
        status, p, nfree, used, nnodes, nout = _steps(
            S, ctype, kleene, T, E, base, p, end, RP, inuse, nxt, free, nfree, ktag, knum, kden, head, count,
            used, arena, nnodes, out, nout, cnt, stk)
        if status != 1:
            break
        q = p - base
        a = S[S_KEY]
        if a >= 0:
            k, found = find_slot(ktag, knum, kden, np.int64(E[4][a, q]), E[2][a, q], E[3][a, q])
        else:
            k, found = find_slot(ktag, knum, kden, np.int64(0), np.int64(0), np.int64(0))
        m = count[k] if found else 0
        RP, inuse, nxt, free, nfree = _grow_pool(RP, inuse, nxt, free, nfree, 3 * m + 2)
        out = grow2(out, nout + m + 1)
        if nnodes + 2 * m + 2 > arena.shape[0]:
            if nnodes > 4 * live and nnodes > 4096:
                nnodes = compact(arena, nnodes, RP, inuse, out, nout)
                live = nnodes
            arena = grow2(arena, nnodes + 2 * m + 2)
        if 2 * (used + 1) > ktag.shape[0]:  # drop the keys without runs; at most a quarter full after
            keys = 0
            for i in range(ktag.shape[0]):
                if ktag[i] != EMPTY and count[i] > 0:
                    keys += 1
            size = 16
            while size < 4 * (keys + 2):
                size *= 2
            ktag, knum, kden, head, count, used = rehash(ktag, knum, kden, head, count, size)
    return (p, RP, inuse, nxt, free, nfree, ktag, knum, kden, head, count, used, arena, nnodes,
            out[:nout].copy())
