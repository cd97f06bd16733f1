"""Live runs grouped by partition key (`[attr]`), so that an event visits only its own key's runs.

Every begin and take formula of a partitioned query holds a clause `x.attr = anchor.attr` (the anchor is
the run's first event), so an event whose key differs from a run's, or is null, never extends that run:
under partition contiguity and the two skip strategies the run only stays while the event is inside its
window, and it is dropped by the first event outside (windows only close as the stream goes on). The
kernel visits the runs of the event's key and leaves the rest as they are; a run whose window closed
while its key was not visited is counted as gone at once (`hist`, per anchor position) and removed later
(`sweep`). Strict contiguity, unpartitioned queries and `index=False` keep one list of runs.

Runs live in rows 0..nruns-1 of the run plane (kernel.py); a group is a doubly linked list over those
rows in the order the run loop made the runs (the reference's order). Arrays:
RL[row] = (group, next row, previous row); GT[group] = (head, tail, size, then tag, numerator and
denominator of each key attribute); GH = open-addressing table of group id + 1 (0 empty) by key hash;
GS = (groups allocated). Group 0 holds runs whose key is null (no event extends them). When the query is
not keyed (Q_KEYED = 0) the kernel keeps its runs as one list in row order and none of this is used.
"""
from __future__ import annotations

import numpy as np
from numba import njit

NULL = 1  # the store's null tag (optimized/bytecode.py)
NULL_GROUP = 0
KEY = 3  # GT column of the first key item


def empty(nkey: int, rows: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(RL, GT, GH, GS) of an empty index for keys of nkey attributes and rows run rows."""
    RL = np.full((rows, 3), -1, np.int64)
    GT = np.zeros((16, KEY + 3 * nkey), np.int64)
    GT[:, :2] = -1
    GH = np.zeros(32, np.int64)
    GS = np.array([1], np.int64)  # group 0: null keys
    return RL, GT, GH, GS


@njit(cache=True, inline="always")
def _slot(h, mask):
    return ((h * np.int64(-7046029254386353131)) ^ (h >> 31)) & mask


@njit(cache=True, inline="always")
def _event_hash(part, E, q):
    h = np.int64(1469598103934665603)
    for i in range(part.shape[0]):
        a = part[i]
        h = (h ^ np.int64(E[4][a, q])) * np.int64(1099511628211)
        h = (h ^ E[2][a, q]) * np.int64(1099511628211)
        h = (h ^ E[3][a, q]) * np.int64(1099511628211)
    return h


@njit(cache=True, inline="always")
def _same(GT, g, part, E, q):
    for i in range(part.shape[0]):
        a = part[i]
        if GT[g, KEY + 3 * i] != E[4][a, q] or GT[g, KEY + 3 * i + 1] != E[2][a, q] \
                or GT[g, KEY + 3 * i + 2] != E[3][a, q]:
            return False
    return True


@njit(cache=True)
def event_group(part, E, base, p, GT, GH):
    """The group of the event's key: its id, -1 when the key has no group yet, -2 when it is null."""
    q = p - base
    for i in range(part.shape[0]):
        if E[4][part[i], q] == NULL:
            return -2
    mask = GH.shape[0] - 1
    s = _slot(_event_hash(part, E, q), mask)
    while True:
        g = GH[s] - 1
        if g < 0:
            return -1
        if _same(GT, g, part, E, q):
            return g
        s = (s + 1) & mask


@njit(cache=True)
def new_group(part, E, base, p, GT, GH, GS):
    """A new, empty group for the (non-null) key of the event at p; the caller guarantees the capacity."""
    q = p - base
    g = GS[0]
    GS[0] += 1
    GT[g, 0] = -1
    GT[g, 1] = -1
    GT[g, 2] = 0
    for i in range(part.shape[0]):
        a = part[i]
        GT[g, KEY + 3 * i] = E[4][a, q]
        GT[g, KEY + 3 * i + 1] = E[2][a, q]
        GT[g, KEY + 3 * i + 2] = E[3][a, q]
    _insert(GH, _event_hash(part, E, q), g)
    return g


@njit(cache=True)
def _insert(GH, h, g):
    mask = GH.shape[0] - 1
    s = _slot(h, mask)
    while GH[s] != 0:
        s = (s + 1) & mask
    GH[s] = g + 1


@njit(cache=True)
def _group_hash(GT, g, nkey):
    h = np.int64(1469598103934665603)
    for i in range(3 * nkey):
        h = (h ^ GT[g, KEY + i]) * np.int64(1099511628211)
    return h


@njit(cache=True)
def ensure_groups(GT, GH, GS, RL, nruns, nkey):
    """Room for one more group: groups without runs are dropped (ids renumbered) when they are at least
    half of the table, otherwise the table doubles. Returns (GT, GH)."""
    if GS[0] < GT.shape[0]:
        return GT, GH
    live = 1
    for g in range(1, GS[0]):
        if GT[g, 2] > 0:
            live += 1
    if 2 * live > GT.shape[0]:
        bigger = np.zeros((2 * GT.shape[0], GT.shape[1]), np.int64)
        bigger[: GT.shape[0]] = GT
        GT = bigger
    newid = np.arange(GS[0])
    k = 1
    for g in range(1, GS[0]):
        if GT[g, 2] > 0:
            newid[g] = k
            GT[k] = GT[g]
            k += 1
    GS[0] = k
    for x in range(nruns):
        RL[x, 0] = newid[RL[x, 0]]
    GH = np.zeros(2 * GT.shape[0], np.int64)
    for g in range(1, k):
        _insert(GH, _group_hash(GT, g, nkey), g)
    return GT, GH


@njit(cache=True)
def grow_rows(RL, rows):
    """RL with room for rows run rows."""
    if rows <= RL.shape[0]:
        return RL
    bigger = np.full((rows, 3), -1, np.int64)
    bigger[: RL.shape[0]] = RL
    return bigger


@njit(cache=True)
def relink(RL, GT, g, nn):
    """Group g = rows 0..nn-1 in order, every other group empty (the run plane was replaced as a whole)."""
    for x in range(nn):
        RL[x, 0] = g
        RL[x, 1] = x + 1 if x + 1 < nn else -1
        RL[x, 2] = x - 1
    GT[g, 0] = 0 if nn else -1
    GT[g, 1] = nn - 1
    GT[g, 2] = nn


@njit(cache=True, inline="always")
def _copy(R, dpl, dx, spl, sx):
    for f in range(R.shape[2]):
        R[dpl, dx, f] = R[spl, sx, f]


@njit(cache=True)
def _append(RL, GT, g, x):
    t = GT[g, 1]
    RL[x, 0] = g
    RL[x, 1] = -1
    RL[x, 2] = t
    if t >= 0:
        RL[t, 1] = x
    else:
        GT[g, 0] = x
    GT[g, 1] = x
    GT[g, 2] += 1


@njit(cache=True)
def _unlink(RL, GT, x):
    g = RL[x, 0]
    a = RL[x, 2]
    b = RL[x, 1]
    if a >= 0:
        RL[a, 1] = b
    else:
        GT[g, 0] = b
    if b >= 0:
        RL[b, 2] = a
    else:
        GT[g, 1] = a
    GT[g, 2] -= 1
    RL[x, 0] = -1


@njit(cache=True)
def _move(R, pl, RL, GT, src, dst):
    """Row src (linked) moves to the free row dst."""
    _copy(R, pl, dst, pl, src)
    g = RL[src, 0]
    a = RL[src, 2]
    b = RL[src, 1]
    RL[dst, 0] = g
    RL[dst, 1] = b
    RL[dst, 2] = a
    if a >= 0:
        RL[a, 1] = dst
    else:
        GT[g, 0] = dst
    if b >= 0:
        RL[b, 2] = dst
    else:
        GT[g, 1] = dst
    RL[src, 0] = -1


@njit(cache=True)
def _free(R, pl, nruns, RL, GT, x):
    """Close the hole at the unlinked row x: unlinked rows at the end are dropped, then the last row moves
    into x. Returns the row count."""
    while nruns > x + 1 and RL[nruns - 1, 0] < 0:
        nruns -= 1
    if x >= nruns:
        return nruns
    if x != nruns - 1:
        _move(R, pl, RL, GT, nruns - 1, x)
    return nruns - 1


@njit(cache=True)
def replace(R, pl, src, nn, nruns, RL, GT, g):
    """Group g's runs become rows 0..nn-1 of plane src, in order: its rows are reused in list order, the
    extra runs appended, the rows left over freed. Returns the row count."""
    x = GT[g, 0]
    i = 0
    while i < nn and x >= 0:
        _copy(R, pl, x, src, i)
        x = RL[x, 1]
        i += 1
    while i < nn:
        _copy(R, pl, nruns, src, i)
        _append(RL, GT, g, nruns)
        nruns += 1
        i += 1
    if x >= 0:  # cut the list before x, then free x and the rows after it
        a = RL[x, 2]
        if a >= 0:
            RL[a, 1] = -1
        else:
            GT[g, 0] = -1
        GT[g, 1] = a
        GT[g, 2] = nn
        y = x
        while y >= 0:
            RL[y, 0] = -1
            y = RL[y, 1]
        while x >= 0:
            y = RL[x, 1]
            nruns = _free(R, pl, nruns, RL, GT, x)
            x = y
    return nruns


@njit(cache=True)
def extend(R, pl, src, nn, nruns, RL, GT, g):
    """Rows 0..nn-1 of plane src join group g after its runs. Returns the row count."""
    for i in range(nn):
        _copy(R, pl, nruns, src, i)
        _append(RL, GT, g, nruns)
        nruns += 1
    return nruns


@njit(cache=True)
def sweep(R, pl, nruns, RL, GT, hist, lo, base, acol):
    """Remove the runs whose anchor (field acol) is before lo; returns the row count."""
    for x in range(nruns - 1, -1, -1):
        if R[pl, x, acol] < lo:
            hist[R[pl, x, acol] - base] -= 1
            _unlink(RL, GT, x)
            nruns = _free(R, pl, nruns, RL, GT, x)
    return nruns


@njit(cache=True)
def remove(R, pl, nruns, RL, GT, drop, keyed):
    """Remove the runs of the rows where drop is true (the others keep their order); returns the row count.
    Not keyed: the rows are one list in row order (RL and GT are not kept)."""
    if not keyed:
        k = 0
        for x in range(nruns):
            if not drop[x]:
                if k != x:
                    _copy(R, pl, k, pl, x)
                k += 1
        return k
    for x in range(nruns - 1, -1, -1):
        if drop[x]:
            _unlink(RL, GT, x)
            nruns = _free(R, pl, nruns, RL, GT, x)
    return nruns


@njit(cache=True)
def anchor_counts(R, pl, nruns, base, end, acol):
    """How many runs anchor at each position base..end-1."""
    hist = np.zeros(max(end - base, 1), np.int64)
    for x in range(nruns):
        hist[R[pl, x, acol] - base] += 1
    return hist
