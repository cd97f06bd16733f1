"""The NFA^b kernel's record layouts: value tags, run rows, the query scalars Q, the run planes, buffer nodes
and merge keys; ROW is the run row's layout as the code generator (optimized/codegen.py) takes it.

A run row: [j, phase, node, (first, last, len) per component, AGGW accumulator slots per aggregate (sum
num/den, non-null count, min num/den, max num/den), the oldest start position of the run's members].
A buffer node (arena row): [parent, position, component, done-stamp, youngest start of its paths].
"""
from __future__ import annotations

from typing import NamedTuple

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

# planes of the run matrix R[plane, row, field]
P_DONE, P_PEND, P_FRESH = 2, 3, 4

# KP, the key program of each state (merging.py): rows 2j + phase hold [start, end) of that state's entries;
# an entry (kind, field, slot) reads kind 0: the value of attribute slot at the position in field, 1: the
# field itself, 2: whether the field is > 0.
KEY_VALUE, KEY_FIELD, KEY_POSITIVE = 0, 1, 2


class RowLayout(NamedTuple):
    """Where a run row keeps its components (hdr: the first component's field) and aggregates (aggw fields each)."""

    hdr: int
    aggw: int


ROW = RowLayout(HDR, AGGW)
