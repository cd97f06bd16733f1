"""Windowed join (Defs 2.12, 2.13): every event probes the active window (Def 2.9) of the other stream.

Events are processed in timestamp order, E1 before E2 at equal timestamps; an event sees only the
other stream's events processed before it (A13). The predicate always receives (E1 row as L, E2 row
as R) and results are written (E1 row, E2 row, probe timestamp). Active window: 'strict' (Def 2.9:
the most recent complete window whose timestamp is <= the probe's; none before the first complete
window, A12 a) or 'warmup' (the last `size` events, or the events in [t - size + 1, t], A12 b).
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from cepkit.core.errors import QueryError
from cepkit.reference.sql.exprs import Ctx, holds
from cepkit.front.windows.spec import WindowSpec


@dataclass(frozen=True)
class JoinRow:
    left: int      # index into E1
    right: int     # index into E2
    ts: int


def _active(ts: Sequence[int], seen: int, t: int, spec: WindowSpec, active: str) -> range:
    """Indices of the other stream's events (among its first `seen`) in its active window at time t."""
    if seen == 0:
        return range(0)
    if active == "warmup":
        if spec.kind == "count":
            return range(max(0, seen - spec.size), seen)
        return range(bisect.bisect_left(ts, t - spec.size + 1, 0, seen), seen)
    if spec.kind == "count":
        if seen < spec.size:
            return range(0)
        k = (seen - spec.size) // spec.slide          # the last complete window
        a = k * spec.slide
        return range(a, a + spec.size)
    t0 = int(ts[0]) if spec.align == "first" else 0
    # the most recent window with timestamp t0 + k*slide + size - 1 <= t
    k = (t - t0 - spec.size + 1) // spec.slide
    if k < 0 and spec.align == "first":   # no window before the first event's (epoch windows have any k)
        return range(0)
    lo = t0 + k * spec.slide
    hi = lo + spec.size
    return range(bisect.bisect_left(ts, lo, 0, seen), bisect.bisect_left(ts, hi, 0, seen))


def join(left: Sequence[Mapping[str, Any]], left_ts: Sequence[int], right: Sequence[Mapping[str, Any]],
         right_ts: Sequence[int], condition, left_window: WindowSpec, right_window: WindowSpec,
         active: str = "strict") -> list[JoinRow]:
    if active not in ("strict", "warmup"):
        raise QueryError(f"active window must be 'strict' or 'warmup', not {active!r}")
    out: list[JoinRow] = []
    i = j = 0
    while i < len(left) or j < len(right):
        if j >= len(right) or (i < len(left) and left_ts[i] <= right_ts[j]):
            t = int(left_ts[i])
            for r in _active(right_ts, j, t, right_window, active):
                if _pair(left[i], right[r], condition):
                    out.append(JoinRow(i, r, t))
            i += 1
        else:
            t = int(right_ts[j])
            for l_ in _active(left_ts, i, t, left_window, active):
                if _pair(left[l_], right[j], condition):
                    out.append(JoinRow(l_, j, t))
            j += 1
    return out


def _pair(l_row: Mapping[str, Any], r_row: Mapping[str, Any], condition) -> bool:
    return holds(condition, Ctx([l_row, r_row], (0, 1), ("L", "R"), 1, {}))
