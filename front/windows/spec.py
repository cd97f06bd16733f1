"""Count windows (Def 2.7) and time windows (Def 2.8) over a finite stream of timestamps.

Count window k (k = 0, 1, ...) holds events k*slide .. k*slide+size-1 and exists only when all of
them do; its timestamp is its last event's. Time window k covers [t0 + k*slide, t0 + k*slide + size),
t0 = the first event's timestamp (or 0 with align='zero'); its timestamp is its last instant, and
only closed windows (timestamp <= the last event's) are produced; they may be empty (A10, A11).
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Sequence

from cepkit.core.errors import QueryError


@dataclass(frozen=True)
class WindowSpec:
    kind: str          # 'count' | 'time'
    size: int
    slide: int
    align: str = "first"   # time windows: 'first' (the thesis: first event's ts) or 'zero' (epoch)

    def __post_init__(self):
        if self.kind not in ("count", "time"):
            raise QueryError(f"window kind must be 'count' or 'time', not {self.kind!r}")
        if not (isinstance(self.size, int) and isinstance(self.slide, int)) or not 0 < self.slide <= self.size:
            raise QueryError(f"a window needs 0 < slide <= size (got size {self.size}, slide {self.slide})")
        if self.align not in ("first", "zero"):
            raise QueryError(f"window alignment must be 'first' or 'zero', not {self.align!r}")


@dataclass(frozen=True)
class Window:
    k: int
    start: int     # first event index
    stop: int      # one past the last event index
    ts: int        # the window's timestamp
    lo: int | None = None   # time windows: covered timestamps [lo, hi)
    hi: int | None = None


def windows(ts: Sequence[int], spec: WindowSpec) -> list[Window]:
    """Every window of the stream with timestamps `ts` (non-decreasing)."""
    n = len(ts)
    out: list[Window] = []
    if n == 0:
        return out
    if spec.kind == "count":
        k = 0
        while k * spec.slide + spec.size <= n:
            a = k * spec.slide
            out.append(Window(k, a, a + spec.size, int(ts[a + spec.size - 1])))
            k += 1
        return out
    t0 = int(ts[0]) if spec.align == "first" else 0
    if spec.align == "zero":  # first window whose end is after the first event
        k0 = -(-(int(ts[0]) - spec.size + 1) // spec.slide)
    else:
        k0 = 0
    last = int(ts[-1])
    k = k0
    while True:
        lo = t0 + k * spec.slide
        hi = lo + spec.size
        if hi - 1 > last:
            break
        a = bisect.bisect_left(ts, lo)
        b = bisect.bisect_left(ts, hi)
        out.append(Window(k, a, b, hi - 1, lo, hi))
        k += 1
    return out


def windows_from_bounds(spec: WindowSpec, n: int, t_first: int | None, t_last: int | None) -> list[Window]:
    """The windows of a stream known only by its length and first/last timestamps (start/stop of time
    windows, and the timestamps of count windows, are unknown and set to -1): what an index can tell
    without reading events."""
    if n == 0:
        return []
    if spec.kind == "count":
        return [Window(k, k * spec.slide, k * spec.slide + spec.size, -1)
                for k in range((n - spec.size) // spec.slide + 1)] if n >= spec.size else []
    t0 = t_first if spec.align == "first" else 0
    k = 0 if spec.align == "first" else -(-(t_first - spec.size + 1) // spec.slide)
    out = []
    while t0 + k * spec.slide + spec.size - 1 <= t_last:
        lo = t0 + k * spec.slide
        out.append(Window(k, -1, -1, lo + spec.size - 1, lo, lo + spec.size))
        k += 1
    return out


def slices(size: int, slide: int) -> tuple[list[int], list[int]]:
    """§3.3.3: the initial slice lengths of a window and the lengths appended on each slide.

    With r = size mod slide, slide2 = r and slide1 = slide - r: the window is <slide2, slide1, ...,
    slide1, slide2> and each slide removes two slices and appends <slide1, slide2>; with r = 0 the
    slices are whole slides."""
    q, r = divmod(size, slide)
    if r == 0:
        return [slide] * q, [slide]
    s1, s2 = slide - r, r
    return [s2] + [s1, s2] * q, [s1, s2]
