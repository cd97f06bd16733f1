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


@njit(cache=True, nogil=True)
def _scan(order, pid, ts, old, masks, dmin, dmax, out, keep):
    k_streams = masks.shape[1]
    n = order.shape[0]
    start = np.full(k_streams, -1, np.int64)
    m = 0
    k = 0
    while k < n:
        end = k
        while end < n and pid[order[end]] == pid[order[k]]:
            end += 1
        start[:] = -1
        for e in range(k, end):
            x = order[e]
            for i in range(k_streams):
                st = start[i]
                held = masks[x, i] != 0
                st = e if held and st < 0 else st   # a run starts (branch-free)
                if not held and st >= 0:            # the first event failing the condition ends the run
                    if not old[x]:  # a run ended by an event of an earlier feed was reported then
                        t0 = ts[order[st]]
                        d = ts[x] - t0
                        if d >= dmin[i] and d <= dmax[i]:
                            if m == out.shape[0]:
                                out = _grow(out)
                            out[m, S_STREAM] = i
                            out[m, S_PID] = pid[x]
                            out[m, S_TS] = t0
                            out[m, S_TE] = ts[x]
                            out[m, S_A] = st
                            out[m, S_B] = e
                            m += 1
                    st = -1
                start[i] = st
        earliest = end
        for i in range(k_streams):
            if start[i] >= 0 and start[i] < earliest:
                earliest = start[i]
        for e in range(earliest, end):
            keep[e] = True
        k = end
    return out[:m]


@njit(cache=True)
def _grow(out):
    bigger = np.empty((2 * out.shape[0] + 64, out.shape[1]), out.dtype)
    bigger[: out.shape[0]] = out
    return bigger


def derive(order: np.ndarray, pid: np.ndarray, ts: np.ndarray, old: np.ndarray, masks: np.ndarray,
           dmin: np.ndarray, dmax: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(situations, keep) over the events taken in partition order (`order`, positions): one row per
    situation (columns S_*; order[a..b-1] are its events), in the order of their ends, streams in PATTERN
    order at equal ends; masks[x, i]: event x satisfies stream i's condition; keep marks (in `order`) the events of runs still open, the tail to carry."""
    keep = np.zeros(len(order), np.bool_)
    out = _scan(order, pid, ts, old, masks, dmin, dmax, np.empty((len(order) // 8 + 64, 6), np.int64), keep)
    return out, keep


@njit(cache=True)
def repeated_time(order, pid, ts, old, last):
    """The first position (in partition order) of a new event whose time equals the previous event's of its
    partition (in this batch, or `last[p]` from an earlier feed), else -1."""
    for e in range(order.shape[0]):
        x = order[e]
        if old[x]:
            continue
        if e > 0 and pid[order[e - 1]] == pid[x] and ts[order[e - 1]] == ts[x]:
            return x
        if ts[x] == last[pid[x]]:
            return x
    return -1
