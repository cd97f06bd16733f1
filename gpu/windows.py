"""The windows of cepkit.front.windows.spec.windows (Defs 2.7, 2.8, A10, A11) as NumPy arrays: first event,
one-past-last event and timestamp of every window, computed without a Python loop per window."""
from __future__ import annotations

import numpy as np

from cepkit.front.windows.spec import WindowSpec

_WIDE = 2 ** 62   # a size or slide from here on is computed with Python ints (WITHIN 2^63 ticks and more)


def _wide(spec: WindowSpec) -> bool:
    return spec.size >= _WIDE or spec.slide >= _WIDE


def _int64(a) -> np.ndarray:
    """Python-int bounds clamped into int64: a bound below (above) every timestamp stays below (above) it."""
    info = np.iinfo(np.int64)
    return np.array([min(max(int(x), info.min), info.max) for x in a], dtype=np.int64)


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
    if _wide(spec):
        los = [t0 + k * spec.slide for k in range(k0, k1 + 1)]
        return (np.searchsorted(ts, _int64(los), "left").astype(np.int64),
                np.searchsorted(ts, _int64([x + spec.size for x in los]), "left").astype(np.int64),
                _int64([x + spec.size - 1 for x in los]))
    lo = t0 + np.arange(k0, k1 + 1, dtype=np.int64) * spec.slide
    hi = lo + spec.size
    return np.searchsorted(ts, lo, "left").astype(np.int64), np.searchsorted(ts, hi, "left").astype(np.int64), hi - 1


def active_ranges(ts: np.ndarray, seen: np.ndarray, t: np.ndarray, spec: WindowSpec,
                  active: str) -> tuple[np.ndarray, np.ndarray]:
    """[lo, hi) of the active window (cepkit.reference.windows.join._active) of a stream with timestamps `ts`,
    for probes at times `t` that have seen its first `seen` events."""
    ts = np.asarray(ts, dtype=np.int64)
    seen = np.asarray(seen, dtype=np.int64)
    t = np.asarray(t, dtype=np.int64)
    zero = np.zeros_like(seen)
    if len(ts) == 0:
        return zero, zero
    if active == "warmup":
        if spec.kind == "count":
            lo = zero if _wide(spec) else np.maximum(0, seen - spec.size)
        else:
            first = _int64([x - spec.size + 1 for x in t.tolist()]) if _wide(spec) else t - spec.size + 1
            lo = np.minimum(np.searchsorted(ts, first, "left"), seen)
        return np.where(seen > 0, lo, 0), seen
    if spec.kind == "count" and _wide(spec):   # no stream fills a window this large
        return zero, zero
    if spec.kind == "count":
        k = (seen - spec.size) // spec.slide
        lo = k * spec.slide
        ok = seen >= spec.size
        return np.where(ok, lo, 0), np.where(ok, lo + spec.size, 0)
    t0 = int(ts[0]) if spec.align == "first" else 0
    if _wide(spec):
        ks = [(x - t0 - spec.size + 1) // spec.slide for x in t.tolist()]
        k = np.array([max(x, -1) for x in ks], dtype=np.int64)   # only the sign of k is read below
        los = [t0 + x * spec.slide for x in ks]
        lo_t, hi_t = _int64(los), _int64([x + spec.size for x in los])
    else:
        k = (t - t0 - spec.size + 1) // spec.slide
        lo_t = t0 + k * spec.slide
        hi_t = lo_t + spec.size
    lo = np.minimum(np.searchsorted(ts, lo_t, "left"), seen)
    hi = np.minimum(np.searchsorted(ts, hi_t, "left"), seen)
    ok = (seen > 0) & ((k >= 0) | (spec.align != "first"))
    return np.where(ok, lo, 0), np.where(ok, hi, 0)
