"""Merging of equivalent runs (spec/000 §6): which values of a run its future depends on, per state.

Two runs at the same state whose future edge formulas read equal values select the same events until
completion (the paper's masked computation state V). `merge_fresh` (in Numba) merges the runs an
event creates when their keys are equal; this module derives each state's key from the formula tables:
the attribute values of bound events that later formulas read (first or last element of a component),
bound components' lengths, the aggregate accumulators those formulas read, and under partition
contiguity the partition attributes of the run's first event. Window expiry is handled by the
youngest start and a per-path check when matches are built (spec/000 §9 A16).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cepkit.optimized.bytecode import M_FIRST_OR_CUR, M_FIRSTB, M_LASTB, OP_AGG, OP_ATTR, OP_LEN
from cepkit.optimized.nfab.layout import AGGW, FIRST, HDR, ITER, KEY_FIELD, KEY_POSITIVE, KEY_VALUE, MERGED
from cepkit.optimized.nfab.rows import copy_row, hash_slot
from cepkit.front.nfab.compile import NFAb

# the accumulator fields an aggregate reads (offsets in its AGGW slot): sum num/den 0-1, count 2,
# min 3-4, max 5-6; a function of no values (count 0) is null, so "count > 0" is part of the key
_AGG_FIELDS = {0: ((KEY_POSITIVE, 2), (KEY_FIELD, 0), (KEY_FIELD, 1)),
               1: ((KEY_FIELD, 2),),
               2: ((KEY_FIELD, 2), (KEY_FIELD, 0), (KEY_FIELD, 1)),
               3: ((KEY_POSITIVE, 2), (KEY_FIELD, 3), (KEY_FIELD, 4)),
               4: ((KEY_POSITIVE, 2), (KEY_FIELD, 5), (KEY_FIELD, 6))}


def refusal(nfa: NFAb, selection: str, share_buffer: bool) -> str | None:
    """Why merging cannot be exact for this program (it then runs unmerged), or None."""
    if nfa.negations:
        return "negation (a merged run's members differ in the events between their components)"
    if selection != "all":
        return "the non-overlap output format (it picks one member by its start)"
    if not share_buffer:
        return "a per-run buffer (merged members share buffer nodes)"
    return None


def key_program(nfa: NFAb, tables: dict[str, np.ndarray], part: np.ndarray) -> np.ndarray:
    """KP for the kernel: rows 2j + phase = [start, end) of that state's entries (kind, field, slot)."""
    n = nfa.n
    ops, clauses, formulas, aggs = tables["ops"], tables["clauses"], tables["formulas"], tables["aggs"]
    states: list[list[tuple[int, int, int]]] = []
    for j in range(n):
        for phase in (FIRST, ITER):
            bound = j + (1 if phase == ITER else 0)  # components 0..bound-1 hold events
            fids = [n + j, 2 * n + j] if phase == ITER else [j, n + j, 2 * n + j]
            fids += [f for later in range(j + 1, n) for f in (later, n + later, 2 * n + later)]
            entries: set[tuple[int, int, int]] = {(KEY_VALUE, HDR, int(a)) for a in part}
            for fid in fids:
                for c in range(*formulas[fid]):
                    for op, a, b, c_ in ops[slice(*clauses[c])]:
                        entries |= _reads(int(op), int(a), int(b), int(c_), bound, n, aggs)
            states.append(sorted(entries))
    rows = [[0, 0, 0] for _ in states]
    for s, entries in enumerate(states):
        rows[s][:2] = [len(rows), len(rows) + len(entries)]
        rows += [list(e) for e in entries]
    return np.asarray(rows, np.int64).reshape(-1, 3)


def _reads(op: int, a: int, b: int, c: int, bound: int, n: int, aggs: np.ndarray) -> set[tuple[int, int, int]]:
    """The key entries of one opcode, given that components below `bound` are bound."""
    if op == OP_ATTR and 0 <= b < bound and a in (M_FIRSTB, M_FIRST_OR_CUR, M_LASTB):
        return {(KEY_VALUE, HDR + 3 * b + (1 if a == M_LASTB else 0), c)}
    if op == OP_LEN and 0 <= a < bound:
        return {(KEY_FIELD, HDR + 3 * a + 2, 0)}
    if op == OP_AGG and b >= 0 and aggs[b, 0] < bound:
        o = HDR + 3 * n + AGGW * b
        return {(kind, o + f, 0) for kind, f in _AGG_FIELDS[a]}
    return set()


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
        slot = hash_slot(h, mask)
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
                    copy_row(R, pl, r, pl, i, R[pl, i, 0], R[pl, i, 1], nnodes)
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
                copy_row(R, pl, k, pl, i, R[pl, i, 0], R[pl, i, 1], R[pl, i, 2])
            k += 1
    return k, nnodes
