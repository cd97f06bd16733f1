"""Windowed join (Defs 2.12, 2.13) on an OpenCL device: one work-item per probing event scans the other
stream's active window (cepkit.gpu.windows.active_ranges: strict Def 2.9 or warm-up, A12) with the generated
condition, counting results; an exclusive scan gives every probe its output offset and a second pass
writes the (left, right) pairs. Probes are laid out in the reference's processing order (timestamp,
the first stream before the second at equal timestamps, A13), so results come out in the reference's
order. Probes move to the device in batches, each with the slices of both streams its windows read."""
from __future__ import annotations

from typing import Any

import numpy as np

from cepkit.gpu import clexpr
from cepkit.gpu.bind import bind
from cepkit.gpu.buffers import download, scratch, upload
from cepkit.gpu.columns import raw_column
from cepkit.gpu.device import runtime
from cepkit.gpu.launch import kernel, overflow_error, overflowed
from cepkit.gpu.scan import exclusive_scan
from cepkit.gpu.windows import active_ranges
from cepkit.core.errors import QueryError
from cepkit.reference.sql.run import batch_rows
from cepkit.front.language.ast import SQL_CONVENTIONS   # the conditions are SQL expressions
from cepkit.reference.windows.api import join_condition, join_rows
from cepkit.front.windows.spec import WindowSpec

BATCH = 1 << 20


def source(pred: str, params: list[str], write: bool) -> str:
    args = ", ".join(params + [
        "__global const uchar *side", "__global const long *self", "__global const long *lo",
        "__global const long *hi", "const long lbase", "const long rbase", "__global uint *counts",
        "__global const ulong *offsets", "__global long *out_l", "__global long *out_r",
        "__global int *cepkit_err"])
    hit = "{ out_l[o] = l + lbase; out_r[o] = r + rbase; o++; }" if write else "c++;"
    return clexpr.PRELUDE + f"""
__kernel void cepkit_join({args}) {{
    size_t p = get_global_id(0);
    long l, r;
    uint c = 0;
    ulong o = {'offsets[p]' if write else '0'};
    if (side[p] == 0) {{
        l = self[p] - lbase;
        for (long q = lo[p]; q < hi[p]; q++) {{ r = q - rbase; if ({pred}) {hit} }}
    }} else {{
        r = self[p] - rbase;
        for (long q = lo[p]; q < hi[p]; q++) {{ l = q - lbase; if ({pred}) {hit} }}
    }}
    {'' if write else 'counts[p] = c;'}
}}
"""


def probes(lts: np.ndarray, rts: np.ndarray, left_window: WindowSpec, right_window: WindowSpec, active: str):
    """Every probe in processing order: side (0 first stream, 1 second), own index, time, and the
    [lo, hi) of the other stream's events in its active window."""
    lts, rts = np.asarray(lts, np.int64), np.asarray(rts, np.int64)
    nl, nr = len(lts), len(rts)
    seen_r = np.searchsorted(rts, lts, "left")      # the second stream's events before a first-stream probe
    seen_l = np.searchsorted(lts, rts, "right")     # the first stream's events up to and at a second's (A13)
    at_l, at_r = np.arange(nl) + seen_r, np.arange(nr) + seen_l   # merged positions (a stable merge)
    side, own, t = np.empty(nl + nr, np.uint8), np.empty(nl + nr, np.int64), np.empty(nl + nr, np.int64)
    lo, hi = np.empty(nl + nr, np.int64), np.empty(nl + nr, np.int64)
    side[at_l], side[at_r] = 0, 1
    own[at_l], own[at_r] = np.arange(nl), np.arange(nr)
    t[at_l], t[at_r] = lts, rts
    lo[at_l], hi[at_l] = active_ranges(rts, seen_r, lts, right_window, active)
    lo[at_r], hi[at_r] = active_ranges(lts, seen_l, rts, left_window, active)
    return side, own, t, lo, hi


def join_pairs(left, right, on: str, left_window: WindowSpec, right_window: WindowSpec, active: str = "strict",
               device: str | None = None, batch_size: int = BATCH, events: list | None = None):
    """(left positions, right positions, timestamps) of every join result, in the reference's order."""
    if active not in ("strict", "warmup"):
        raise QueryError(f"active window must be 'strict' or 'warmup', not {active!r}")
    cond = join_condition(left, right, on)
    lts, rts = np.asarray(left.ts, np.int64), np.asarray(right.ts, np.int64)
    side, own, t, lo, hi = probes(lts, rts, left_window, right_window, active)
    rt = runtime(device)
    bound = bind(cond, lambda var, col: raw_column(left if var == "L" else right, col),
                 lambda var: "l" if var == "L" else "r")
    pred = clexpr.predicate(cond, bound.resolve, conventions=SQL_CONVENTIONS)   # an SQL condition
    count = kernel(rt, source(pred, bound.params(), False), "cepkit_join")
    write = kernel(rt, source(pred, bound.params(), True), "cepkit_join")

    def counted(a: int, b: int):
        """Count pass over probes [a, b): (input buffers, bases, counts buffer, overflow flag, events)."""
        s, o, lo_, hi_ = side[a:b], own[a:b], lo[a:b], hi[a:b]
        lrange = _span(o[s == 0], lo_[s == 1], hi_[s == 1])
        rrange = _span(o[s == 1], lo_[s == 0], hi_[s == 0])
        arrays = bound.arrays(lambda var: slice(*(lrange if var == "L" else rrange)))
        bufs = [upload(rt, x) for x in arrays] + [upload(rt, x) for x in (s, o, lo_, hi_)]
        bases = (np.int64(lrange[0]), np.int64(rrange[0]))
        counts, err, dummy = scratch(rt, np.uint32, b - a), scratch(rt, np.int32, 1), scratch(rt, np.int64, 1)
        ev = count(rt.queue, (b - a,), None, *bufs, *bases, counts, dummy, dummy, dummy, err)
        return bufs, bases, counts, err, [ev]

    out_l, out_r, out_t = [], [], []
    for a in range(0, len(t), batch_size):
        b = min(a + batch_size, len(t))
        n = b - a
        bufs, bases, counts, err, ev = counted(a, b)
        offsets, k = exclusive_scan(rt, counts, n, ev)
        if overflowed(rt, err):
            while b - a > 1:      # the first probe whose condition overflows, by bisection
                mid = (a + b) // 2
                a, b = (a, mid) if overflowed(rt, counted(a, mid)[3]) else (mid, b)
            stream, which = (left, "first") if side[a] == 0 else (right, "second")
            raise overflow_error("the join condition", f" (an event of the {which} stream probing)",
                                 row=int(stream.source_rows[own[a]]))
        pl, pr = scratch(rt, np.int64, k), scratch(rt, np.int64, k)
        if k:
            ev.append(write(rt.queue, (n,), None, *bufs, *bases, counts, offsets, pl, pr, err))
        if events is not None:
            events += ev
        out_l.append(download(rt, pl, np.int64, k))
        out_r.append(download(rt, pr, np.int64, k))
        hits = download(rt, counts, np.uint32, n)
        out_t.append(np.repeat(t[a:b], hits.astype(np.int64)))
    cat = (lambda xs: np.concatenate(xs) if xs else np.zeros(0, np.int64))
    return cat(out_l), cat(out_r), cat(out_t)


def _span(own: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[int, int]:
    """The smallest [a, b) holding the given own positions and the non-empty [lo, hi) ranges."""
    nonempty = hi > lo
    firsts = [own.min()] if len(own) else []
    lasts = [own.max() + 1] if len(own) else []
    if nonempty.any():
        firsts.append(lo[nonempty].min())
        lasts.append(hi[nonempty].max())
    return (int(min(firsts)), int(max(lasts))) if firsts else (0, 0)


def join_rows_gpu(left, right, on: str, left_window: WindowSpec, right_window: WindowSpec,
                  active: str = "strict", device: str | None = None, batch_size: int = BATCH) -> list[dict[str, Any]]:
    """Like cepkit.reference.windows.api.join_batches: rows ts, left_id, right_id, left_<attr>, right_<attr>."""
    pl, pr, pt = join_pairs(left, right, on, left_window, right_window, active, device, batch_size)
    lcols, lrows = _rows_at(left, pl)
    rcols, rrows = _rows_at(right, pr)
    return join_rows(lcols, lrows, rcols, rrows, zip(pl.tolist(), pr.tolist(), pt.tolist()))


def _rows_at(batch, positions: np.ndarray):
    used = np.unique(positions)
    cols, rows = batch_rows(batch, ts_col="ts", id_col="id", indices=used)
    return cols, dict(zip(used.tolist(), rows))
