"""The NFA^b run loop in Numba (spec/000 §4.3-4.5, exactly as reference/nfab/runs.py): runs, Step-6
proceed, set semantics, windows, partition contiguity, negation and held trailing-negation matches.

A run is one row of an int64 matrix (layout.py); its bindings are the chain from its buffer node to the
root (buffer.py), so runs share their common prefixes. Nodes are created once per (parent, component) per
event, so a run is identified by (node, phase): the loop deduplicates on that key with stamped hash
tables (no clearing per event). Equivalent runs are merged (merging.py); runs are grouped by partition
key (runindex.py).

Edge formulas are evaluated by `holds`, looked up in this module's globals at compile time: the table
evaluator (formulas.py) here, the generated one in a per-query module (generated.py), which carries its
own copy of the source from LOOP-START to LOOP-END.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cepkit.optimized.nfab.buffer import compact, new_node
from cepkit.optimized.nfab.formulas import holds
from cepkit.optimized.nfab.layout import FIRST, HDR, ITER, P_DONE, P_FRESH, P_PEND, Q_HASWIN, Q_KEYED, Q_MERGE, Q_N, \
    Q_NOSHARE, Q_STOP, Q_STRAT
from cepkit.optimized.nfab.merging import merge_fresh
from cepkit.optimized.nfab.rows import claim_run, copy_row, extend_run, grow3, grow_zeros, inside, inside_back, needs, \
    pow2, same_partition, type_ok
from cepkit.optimized.nfab.runindex import (NULL_GROUP, anchor_counts, ensure_groups, event_group, extend, grow_rows,
                                            new_group, relink, replace, sweep)


# LOOP-START (generated.py copies the source from here to LOOP-END into each generated module)
@njit(cache=True)
def _ignore(Q, part, ctype, T, E, base, n, stk, cnt, R, pl, ix, j, phase, p):
    s = Q[Q_STRAT]
    if s == 1:
        return False
    if s == 2:
        g = not same_partition(part, E, base, R, pl, ix, p)
    elif s == 3:
        fid = n + j if phase == ITER else j
        g = not (type_ok(E, base, p, ctype[j]) and holds(fid, R, pl, ix, p, T, E, base, n, stk, cnt))
    else:
        g = True
    return g and inside(Q, E[1], base, R[pl, ix, HDR], p)


@njit(cache=True)
def _blocks(Q, neg_type, T, E, base, n, stk, cnt, m, R, pl, ix, q):
    return type_ok(E, base, q, neg_type[m]) and holds(3 * n + m, R, pl, ix, q, T, E, base, n, stk, cnt)


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
                if Q[Q_HASWIN] == 1 and not inside_back(Q, E[1], base, lastp, q):
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
    copy_row(R, P_DONE, ndone, spl, six, R[spl, six, 0], R[spl, six, 1], node)
    return ndone + 1


@njit(cache=True)
def _steps(Q, ctype, kleene, part, neg_gap, neg_type, T, KP, E, base, start, end, R, cur, nruns, arena, nnodes,
           npend, out, nout, cnt, stamp, rkeys, rstamp, nkeys, nvals, nstamp, hkeys, hrows, hstamp, stk, live,
           RL, GT, GH, GS, hist, XS):
    """Process events from start while the buffers are large enough (no array is reallocated here).
    Returns (status, position, cur, nruns, nnodes, npend, nout, stamp): status 0 reached end, 1 needs
    larger buffers before the event at position, 2 stopped after an event that confirmed matches
    (non-overlap) or that passed the budget in cnt[3] / cnt[4] or the call's work in cnt[6], 3 wants the
    buffer compacted.
    Keyed (Q_KEYED, runindex.py): an event visits its key's group of runs only; XS = (the first
    anchor still inside the window, runs left outside it but not yet removed), hist counts runs by anchor."""
    n = Q[Q_N]
    aggs = T  # extend_run reads the aggregate slots from the packed tables
    share = Q[Q_NOSHARE] == 0
    keyed = Q[Q_KEYED] == 1
    track = keyed and Q[Q_HASWIN] == 1  # runs of unvisited keys leave the window uncounted: count them here
    cap = state_cap(Q, cnt)
    p = start
    while p < end:
        rows, nodes = needs(Q, R, cur, nruns, npend, nnodes, n)
        rows = capped_rows(rows, nruns, npend, cap)
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
                if Q[Q_HASWIN] == 1 and not inside(Q, E[1], base, R[P_PEND, i, HDR], p):
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
                        copy_row(R, P_PEND, keep, P_PEND, i, R[P_PEND, i, 0], R[P_PEND, i, 1], R[P_PEND, i, 2])
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
            while lo < p and not inside(Q, E[1], base, lo, p):
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
                    t = (type_ok(E, base, p, ctype[j]) and holds(n + j, R, spl, six, p, T, E, base, n, stk, cnt)
                         and inside(Q, E[1], base, first, p))
                    g = _ignore(Q, part, ctype, T, E, base, n, stk, cnt, R, spl, six, j, ITER, p)
                    if t:
                        nnodes, node = new_node(arena, nnodes, nkeys, nvals, nstamp, stamp, R[spl, six, 2], j, p, share)
                        cnt[0] += 1
                        if claim_run(rkeys, rstamp, stamp, node, ITER):
                            extend_run(R, nxt, nn, spl, six, j, ITER, node, j, p, False, n, aggs, E, base)
                            nn += 1
                            if nn > cap >= 0:  # the bound passed inside the event: stop before the plane is full
                                cnt[5] = max(cnt[5], nn + npend)
                                return 2, p, nxt, nn, nnodes, npend, nout, stamp
                            if last and holds(2 * n + j, R, nxt, nn - 1, -1, T, E, base, n, stk, cnt):
                                ndone = _done(R, ndone, arena, node, stamp, nxt, nn - 1)
                    if g and claim_run(rkeys, rstamp, stamp, R[spl, six, 2], ITER):
                        copy_row(R, nxt, nn, spl, six, j, ITER, R[spl, six, 2])
                        nn += 1
                        if nn > cap >= 0:  # the bound passed inside the event: stop before the plane is full
                            cnt[5] = max(cnt[5], nn + npend)
                            return 2, p, nxt, nn, nnodes, npend, nout, stamp
                    if not last and holds(2 * n + j, R, spl, six, -1, T, E, base, n, stk, cnt):
                        peek = (type_ok(E, base, p, ctype[j + 1])
                                and holds(j + 1, R, spl, six, p, T, E, base, n, stk, cnt)
                                and inside(Q, E[1], base, first, p))
                        if peek or (not t and not g):
                            j += 1
                            phase = FIRST
                            continue
                    break
                # FIRST: waiting for component j's first event
                if type_ok(E, base, p, ctype[j]) and holds(j, R, spl, six, p, T, E, base, n, stk, cnt) \
                        and (j == 0 or inside(Q, E[1], base, R[spl, six, HDR], p)):
                    nnodes, node = new_node(arena, nnodes, nkeys, nvals, nstamp, stamp, R[spl, six, 2], j, p, share)
                    if kleene[j] == 1:
                        cnt[0] += 1
                        if claim_run(rkeys, rstamp, stamp, node, ITER):
                            extend_run(R, nxt, nn, spl, six, j, ITER, node, j, p, True, n, aggs, E, base)
                            nn += 1
                            if nn > cap >= 0:  # the bound passed inside the event: stop before the plane is full
                                cnt[5] = max(cnt[5], nn + npend)
                                return 2, p, nxt, nn, nnodes, npend, nout, stamp
                            if last and holds(2 * n + j, R, nxt, nn - 1, -1, T, E, base, n, stk, cnt):
                                ndone = _done(R, ndone, arena, node, stamp, nxt, nn - 1)
                    elif last:
                        if arena[node, 3] != stamp:
                            arena[node, 3] = stamp
                            extend_run(R, P_DONE, ndone, spl, six, j, FIRST, node, j, p, True, n, aggs, E, base)
                            ndone += 1
                    else:
                        cnt[0] += 1
                        if claim_run(rkeys, rstamp, stamp, node, FIRST):
                            extend_run(R, nxt, nn, spl, six, j + 1, FIRST, node, j, p, True, n, aggs, E, base)
                            nn += 1
                            if nn > cap >= 0:  # the bound passed inside the event: stop before the plane is full
                                cnt[5] = max(cnt[5], nn + npend)
                                return 2, p, nxt, nn, nnodes, npend, nout, stamp
                if j > 0 and _ignore(Q, part, ctype, T, E, base, n, stk, cnt, R, spl, six, j, FIRST, p) \
                        and claim_run(rkeys, rstamp, stamp, R[spl, six, 2], FIRST):
                    copy_row(R, nxt, nn, spl, six, j, FIRST, R[spl, six, 2])
                    nn += 1
                    if nn > cap >= 0:  # the bound passed inside the event: stop before the plane is full
                        cnt[5] = max(cnt[5], nn + npend)
                        return 2, p, nxt, nn, nnodes, npend, nout, stamp
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
                copy_row(R, P_PEND, npend, P_DONE, i, R[P_DONE, i, 0], R[P_DONE, i, 1], R[P_DONE, i, 2])
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
        # cnt[6]: the work one call may do (runs visited plus events; 0: no bound), cnt[7] the work done: the
        # call returns to Python after the event that passes it, so that a signal is handled soon
        cnt[7] += visit + 1
        if cnt[6] > 0 and cnt[7] > cnt[6]:
            return 2, p, cur, nruns, nnodes, npend, nout, stamp
    return 0, p, cur, nruns, nnodes, npend, nout, stamp


@njit(cache=True)
def state_cap(Q, cnt):
    """The runs one event may create before the run's bound (cnt[3], max_state) is passed, where a new run is
    live state at once (no merging, one list of runs); -1: no cap (an event may need 4 x runs rows)."""
    if cnt[3] > 0 and Q[Q_MERGE] == 0 and Q[Q_KEYED] == 0:
        return cnt[3]
    return -1


@njit(cache=True)
def capped_rows(rows, nruns, npend, cap):
    """The rows per plane an event needs when it stops once it made more than `cap` runs: the current runs,
    cap + 1 new ones, an event's completed matches (one per run visited) and the held ones; not more than
    the worst case `rows`. So a run under max_state never sizes its tables past what max_state allows."""
    if cap < 0:
        return rows
    return min(rows, max(nruns + npend + 1, cap + 2) + 8)


@njit(cache=True)
def _hash_tables(nruns, Q):
    """The step's eight scratch hash arrays (run keys, node keys, held keys, with stamps), sized for nruns: an
    event puts at most about 2 x runs keys in one, so at least 8 x runs slots keep it at most a quarter full
    (they grow once runs pass an eighth of them: the `8 * (nruns + 4)` checks). Merging keeps 16 x runs (its
    keys collide more; measured as before), unmerged runs 8 x: their tables are what max_state bounds."""
    size = pow2((16 if Q[Q_MERGE] == 1 else 8) * (nruns + 4))
    return (np.zeros(size, np.int64), np.zeros(size, np.int64), np.zeros(size, np.int64),
            np.zeros(size, np.int64), np.zeros(size, np.int64), np.zeros(size, np.int64),
            np.zeros(size, np.int64), np.zeros(size, np.int64))


@njit(cache=True, nogil=True)   # (the writer thread writes the chunk before meanwhile: cepkit/overlap.py)
def run_loop(Q, ctype, kleene, part, neg_gap, neg_type, T, KP, E, base, start, end,
             R, cur, nruns, arena, nnodes, npend, out, nout, cnt, stamp, RL, GT, GH, GS):
    """Process events start..end-1 (global positions; the store begins at base), growing the buffers
    between stretches of `_steps`. Returns the position after the last processed event (earlier than
    end when non-overlap stops at a confirming event) and the updated state, the runs' key index
    (RL, GT, GH, GS: runindex.py) included; no run outside the window of that event's
    predecessor is left. out rows: (event position, node, 1 if released from the held list)."""
    stk = np.zeros((3, T[1, 2]), np.int64)
    rkeys, rstamp, nkeys, nvals, nstamp, hkeys, hrows, hstamp = _hash_tables(nruns, Q)
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
            rows, nodes = needs(Q, R, cur, nruns, npend, nnodes, Q[Q_N])
            rows = capped_rows(rows, nruns, npend, state_cap(Q, cnt))
            R = grow3(R, rows)
            RL = grow_rows(RL, R.shape[1])
            GT, GH = ensure_groups(GT, GH, GS, RL, nruns, part.shape[0])
            arena = grow_zeros(arena, nodes)
            out = grow_zeros(out, nout + npend + 2 * nruns + 4)
            if 8 * (nruns + 4) > rkeys.shape[0]:
                rkeys, rstamp, nkeys, nvals, nstamp, hkeys, hrows, hstamp = _hash_tables(nruns, Q)
        elif status == 3:
            nnodes = compact(arena, nnodes, R, cur, nruns, npend, out, nout, Q, E[1], base, p - 1)
            live = nnodes
        else:
            break
    if XS[1] > 0:
        nruns = sweep(R, cur, nruns, RL, GT, hist, XS[0], base, HDR)
    return p, R, cur, nruns, arena, nnodes, npend, out, nout, stamp, RL, GT, GH
# LOOP-END
