"""Algorithm 5.1 (DeriveSituations) as one Numba scan over a batch in partition order: per partition and
situation stream, maximal runs of events satisfying the condition; a run ends at the first event that
does not (te = that event's time, the event not included) and is a situation when te - ts lies in the
stream's inclusive duration range. Runs still open at a partition's end are carried to the next feed
as that partition's tail of events (re-scanned with the next batch, already reported runs skipped)."""
from __future__ import annotations

import numpy as np
from numba import njit

# columns of a derived situation row
S_STREAM, S_PID, S_TS, S_TE, S_A, S_B = range(6)


@njit(cache=True)
def _scan(pid, ts, old, masks, dmin, dmax, out, keep):
    k_streams, n = masks.shape
    start = np.full(k_streams, -1, np.int64)
    m = 0
    k = 0
    while k < n:
        end = k
        while end < n and pid[end] == pid[k]:
            end += 1
        start[:] = -1
        for e in range(k, end):
            for i in range(k_streams):
                if masks[i, e]:
                    if start[i] < 0:
                        start[i] = e
                elif start[i] >= 0:
                    if not old[e]:  # a run ended by an event of an earlier feed was reported then
                        d = ts[e] - ts[start[i]]
                        if d >= dmin[i] and d <= dmax[i]:
                            if out.shape[0] > 0:
                                out[m, S_STREAM] = i
                                out[m, S_PID] = pid[e]
                                out[m, S_TS] = ts[start[i]]
                                out[m, S_TE] = ts[e]
                                out[m, S_A] = start[i]
                                out[m, S_B] = e
                            m += 1
                    start[i] = -1
        earliest = end
        for i in range(k_streams):
            if start[i] >= 0 and start[i] < earliest:
                earliest = start[i]
        for e in range(earliest, end):
            keep[e] = True
        k = end
    return m


def derive(pid: np.ndarray, ts: np.ndarray, old: np.ndarray, masks: np.ndarray, dmin: np.ndarray,
           dmax: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(situations, keep) over events in partition order: one row per situation (columns S_*; a..b-1 are
    its events' positions), in the order of their ends, streams in PATTERN order at equal ends; keep marks
    the events of runs still open (the tail to carry)."""
    keep = np.zeros(len(ts), np.bool_)
    m = _scan(pid, ts, old, masks, dmin, dmax, np.zeros((0, 6), np.int64), keep)
    out = np.empty((m, 6), np.int64)
    _scan(pid, ts, old, masks, dmin, dmax, out, keep)
    return out, keep
