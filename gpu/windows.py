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


def active_ranges(ts: np.ndarray, seen: np.ndarray, t: np.ndarray, spec: WindowSpec,
                  active: str) -> tuple[np.ndarray, np.ndarray]:
    """[lo, hi) of the active window (reference.windows.join._active) of a stream with timestamps `ts`,
    for probes at times `t` that have seen its first `seen` events."""
    ts = np.asarray(ts, dtype=np.int64)
    seen = np.asarray(seen, dtype=np.int64)
    t = np.asarray(t, dtype=np.int64)
    zero = np.zeros_like(seen)
    if len(ts) == 0:
        return zero, zero
    if active == "warmup":
        if spec.kind == "count":
            lo = np.maximum(0, seen - spec.size)
        else:
            lo = np.minimum(np.searchsorted(ts, t - spec.size + 1, "left"), seen)
        return np.where(seen > 0, lo, 0), seen
    if spec.kind == "count":
        k = (seen - spec.size) // spec.slide
        lo = k * spec.slide
        ok = seen >= spec.size
        return np.where(ok, lo, 0), np.where(ok, lo + spec.size, 0)
    t0 = int(ts[0]) if spec.align == "first" else 0
    k = (t - t0 - spec.size + 1) // spec.slide
    lo_t = t0 + k * spec.slide
    lo = np.minimum(np.searchsorted(ts, lo_t, "left"), seen)
    hi = np.minimum(np.searchsorted(ts, lo_t + spec.size, "left"), seen)
    ok = (seen > 0) & ((k >= 0) | (spec.align != "first"))
    return np.where(ok, lo, 0), np.where(ok, hi, 0)
