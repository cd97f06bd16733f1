"""Merging of equivalent runs (spec/000 §6): which values of a run its future depends on, per state.

Two runs at the same state whose future edge formulas read equal values select the same events until
completion (the paper's masked computation state V). The kernel (`merge_fresh`) merges the runs an
event creates when their keys are equal; this module derives each state's key from the formula tables:
the attribute values of bound events that later formulas read (first or last element of a component),
bound components' lengths, the aggregate accumulators those formulas read, and under partition
contiguity the partition attributes of the run's first event. Window expiry is handled by the
youngest start and a per-path check when matches are built (spec/000 §9 A16).
"""
from __future__ import annotations

import numpy as np

from cepkit.optimized import kernel as K
from cepkit.optimized.bytecode import M_FIRST_OR_CUR, M_FIRSTB, M_LASTB, OP_AGG, OP_ATTR, OP_LEN
from cepkit.reference.nfab.compile import NFAb

# the accumulator fields an aggregate reads (offsets in its AGGW slot): sum num/den 0-1, count 2,
# min 3-4, max 5-6; a function of no values (count 0) is null, so "count > 0" is part of the key
_AGG_FIELDS = {0: ((K.KEY_POSITIVE, 2), (K.KEY_FIELD, 0), (K.KEY_FIELD, 1)),
               1: ((K.KEY_FIELD, 2),),
               2: ((K.KEY_FIELD, 2), (K.KEY_FIELD, 0), (K.KEY_FIELD, 1)),
               3: ((K.KEY_POSITIVE, 2), (K.KEY_FIELD, 3), (K.KEY_FIELD, 4)),
               4: ((K.KEY_POSITIVE, 2), (K.KEY_FIELD, 5), (K.KEY_FIELD, 6))}


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
        for phase in (K.FIRST, K.ITER):
            bound = j + (1 if phase == K.ITER else 0)  # components 0..bound-1 hold events
            fids = [n + j, 2 * n + j] if phase == K.ITER else [j, n + j, 2 * n + j]
            fids += [f for later in range(j + 1, n) for f in (later, n + later, 2 * n + later)]
            entries: set[tuple[int, int, int]] = {(K.KEY_VALUE, K.HDR, int(a)) for a in part}
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
        return {(K.KEY_VALUE, K.HDR + 3 * b + (1 if a == M_LASTB else 0), c)}
    if op == OP_LEN and 0 <= a < bound:
        return {(K.KEY_FIELD, K.HDR + 3 * a + 2, 0)}
    if op == OP_AGG and b >= 0 and aggs[b, 0] < bound:
        o = K.HDR + 3 * n + K.AGGW * b
        return {(kind, o + f, 0) for kind, f in _AGG_FIELDS[a]}
    return set()
