"""The shared match buffer (spec/000 §5.1): arena nodes created once per (parent, component) per event, their
compaction, and the bindings they hold, materialized as flat (component, position) arrays."""
from __future__ import annotations

import numpy as np
from numba import njit

from cepkit.optimized.nfab.layout import GONE, MERGED, P_PEND, Q_HASWIN, Q_MERGE
from cepkit.optimized.nfab.rows import grow_zeros, inside, table_find


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
def new_node(arena, nnodes, nkeys, nvals, nstamp, stamp, parent, comp, p, share):
    """The node for (parent, comp) + the event at p: one per (parent, comp) per event (capacity is the
    caller's). Without sharing, the new node hangs off a private copy of the parent's chain."""
    key = (parent + 1) * 64 + comp
    slot, found = table_find(nkeys, nstamp, stamp, key)
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
def _expired(Q, ets, base, pos, ref):
    """Whether a path starting at pos is outside the window of every event from ref on (positions before
    the store's base are: the engine keeps everything a window ending at ref may include)."""
    if Q[Q_MERGE] == 0 or Q[Q_HASWIN] == 0 or ref < base:
        return False
    return pos < base or not inside(Q, ets, base, pos, ref)

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


NO_CAP = 2**62   # count_elements without a cap


@njit(cache=True, nogil=True)
def materialize(arena, nodes, n, total=-1):
    """Bindings of each node: flat (component, position) pairs in stream order and per-node offsets; `total`
    the elements they hold when already counted (count_elements), else -1."""
    if total < 0:
        total = count_elements(arena, nodes, NO_CAP)
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




@njit(cache=True, nogil=True)
def run_paths(arena, nnodes, R, cur, nruns, cap):
    """The member paths the live runs stand for (a merged run: one per member; a run with no node: one),
    counted on the buffer without walking them (nodes come after their parents and members), capped at
    cap + 1. Window expiry is not looked at: exact for a query without a window."""
    w = np.zeros(nnodes, np.int64)
    for x in range(nnodes):
        a = arena[x, 0]
        if arena[x, 2] == MERGED:
            b = arena[x, 1]
            s = (w[a] if a >= 0 else 0) + (w[b] if b >= 0 else 0)
        else:
            s = w[a] if a >= 0 else 1
        w[x] = s if s <= cap else cap + 1
    total = 0
    for i in range(nruns):
        x = R[cur, i, 2]
        total += w[x] if x >= 0 else 1
        if total > cap:
            return cap + 1
    return total


@njit(cache=True, nogil=True)
def count_paths(arena, nodes, ev, Q, ets, base, cap, cap_events=-1):
    """(matches, events they bind, the most matches of one event) materialize_paths would build for the nodes
    (`ev`: each node's event, in event order), counted by walking them until one event completes more than
    cap matches or they bind more than cap_events events (then past it): what a step completes, before it is
    built. Under both caps the first two are exact (materialize_paths takes them)."""
    empty = np.zeros(0, np.int64)
    return _walk_paths(arena, nodes, Q, ets, base, empty, empty, empty, empty, False, ev, cap, cap_events)


@njit(cache=True, nogil=True)
def count_elements(arena, nodes, cap):
    """The events `materialize` would bind for the nodes (the length of every node's chain), counted until
    more than cap (then past it)."""
    total = 0
    for i in range(nodes.shape[0]):
        x = nodes[i]
        while x >= 0:
            total += 1
            x = arena[x, 0]
        if total > cap:
            return total
    return total


@njit(cache=True)
def _walk_paths(arena, nodes, Q, ets, base, comps, poss, offs, owner, fill, ev, cap=-1, cap_total=-1):
    """Depth-first over every member path of each node (merge nodes branch); members whose paths all
    start outside the window of the node's event are skipped, and so is any path whose first event is
    (expired members of a merged run). Returns (paths, elements, the most paths of one event: `ev` gives
    each node's event, empty: all one); with fill, writes them in stream order. cap >= 0: stops once one
    event has more than cap paths; cap_total >= 0: once they bind more than cap_total."""
    npath = 0
    total = 0
    first = 0    # the paths before the current event's
    most = 0
    stack = np.empty((16, 2), np.int64)
    buf = np.empty((16, 2), np.int64)
    for i in range(nodes.shape[0]):
        if ev.shape[0] and i > 0 and ev[i] != ev[i - 1]:
            first = npath
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
                            stack = grow_zeros(stack, 2 * top)
                        stack[top, 0] = y
                        stack[top, 1] = d
                        top += 1
                    y = arena[x, 0]
                    if y < 0 or _expired(Q, ets, base, arena[y, 4], done):
                        whole = False
                        break
                else:
                    if d == buf.shape[0]:
                        buf = grow_zeros(buf, 2 * d)
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
            most = max(most, npath - first)
            if 0 <= cap < npath - first or 0 <= cap_total < total:
                return npath, total, most
    if fill:
        offs[npath] = total
    return npath, total, most


@njit(cache=True, nogil=True)
def materialize_paths(arena, nodes, Q, ets, base, npath=-1, total=-1):
    """materialize for buffers with merge nodes: (components, positions, offsets, owner node index) of
    every unexpired member path; `npath`, `total` their paths and elements when already counted
    (count_paths), else -1."""
    empty = np.zeros(0, np.int64)
    if npath < 0:
        npath, total, _ = _walk_paths(arena, nodes, Q, ets, base, empty, empty, empty, empty, False, empty)
    comps = np.empty(total, np.int64)
    poss = np.empty(total, np.int64)
    offs = np.empty(npath + 1, np.int64)
    owner = np.empty(npath, np.int64)
    _walk_paths(arena, nodes, Q, ets, base, comps, poss, offs, owner, True, empty)
    return comps, poss, offs, owner

