"""The windows of reference.windows.spec.windows (Defs 2.7, 2.8, A10, A11) as NumPy arrays: first event,
one-past-last event and timestamp of every window, computed without a Python loop per window."""
from __future__ import annotations

import numpy as np

from reference.windows.spec import WindowSpec


def window_bounds(ts: np.ndarray, spec: WindowSpec) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(start, stop, window ts) int64 arrays, equal to [(w.start, w.stop, w.ts) for w in windows(ts, spec)]."""
    ts = np.asarray(ts, dtype=np.int64)
    n = len(ts)
    empty = np.zeros(0, dtype=np.int64)
    if n == 0:
        return empty, empty, empty
    if spec.kind == "count":
        if n < spec.size:
            return empty, empty, empty
        start = np.arange((n - spec.size) // spec.slide + 1, dtype=np.int64) * spec.slide
        stop = start + spec.size
        return start, stop, ts[stop - 1]
    first, last = int(ts[0]), int(ts[-1])
    t0 = first if spec.align == "first" else 0
    k0 = 0 if spec.align == "first" else -(-(first - spec.size + 1) // spec.slide)
    k1 = (last - t0 - spec.size + 1) // spec.slide      # the last closed window
    if k1 < k0:
        return empty, empty, empty
    lo = t0 + np.arange(k0, k1 + 1, dtype=np.int64) * spec.slide
    hi = lo + spec.size
    return np.searchsorted(ts, lo, "left").astype(np.int64), np.searchsorted(ts, hi, "left").astype(np.int64), hi - 1
