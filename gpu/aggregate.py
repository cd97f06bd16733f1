"""Windowed aggregation α_{W,γ} (Def 2.11) on an OpenCL device: one work-item per window recomputes the
window (the thesis' non-incremental kernel, §4.4) into an exact 128-bit sum, the non-null count, min and
max of int64 values (float64 columns as int64 multiples of a decimal scale); long windows read whole
blocks of about sqrt(length) events from per-block partials computed first, the ends event by event. The host
computes the window bounds (cepkit.gpu.windows) and builds rows as the reference: avg is the exact fraction
sum / count, empty windows give sum 0, count 0 and null min/max/avg, or are skipped (A10)."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import numpy as np

from cepkit.gpu.buffers import download, scratch, upload
from cepkit.gpu.columns import scaled_integers
from cepkit.gpu.device import runtime
from cepkit.gpu.launch import kernel
from cepkit.gpu.windows import window_bounds
from cepkit.reference.windows.aggregate import AggRow, check_functions
from cepkit.reference.windows.api import check_attribute
from cepkit.front.windows.spec import WindowSpec

BATCH = 1 << 22


def source(nullable: bool) -> str:
    skip = "if (vnull[i]) continue;" if nullable else ""
    vnull = "__global const uchar *vnull, " if nullable else ""
    return f"""
/* add the non-null values of events [A, B) into the 128-bit sum (hi, lo), count, min and max */
#define CEPKIT_ADD_EVENTS(A, B) for (long i = (A); i < (B); i++) {{ {skip} long x = v[i]; \\
    ulong s = lo + (ulong)x; hi += (x < 0 ? -1 : 0) + (s < lo ? 1 : 0); lo = s; \\
    cnt++; mn = min(mn, x); mx = max(mx, x); }}
#define CEPKIT_START long hi = 0, cnt = 0, mn = LONG_MAX, mx = LONG_MIN; ulong lo = 0;

/* the partial aggregate of every block of `width` events */
__kernel void cepkit_block_agg(__global const long *v, {vnull}const long n, const long width,
        __global long *b_hi, __global ulong *b_lo, __global long *b_n, __global long *b_mn, __global long *b_mx) {{
    size_t j = get_global_id(0);
    CEPKIT_START
    CEPKIT_ADD_EVENTS((long)j * width, min(((long)j + 1) * width, n))
    b_hi[j] = hi; b_lo[j] = lo; b_n[j] = cnt; b_mn[j] = mn; b_mx[j] = mx;
}}

/* every window from its events: the partial blocks at its ends event by event, whole blocks from
   their partials (width 0: no blocks) */
__kernel void cepkit_window_agg(__global const long *v, {vnull}__global const long *start,
        __global const long *stop, const long base, const long width,
        __global const long *b_hi, __global const ulong *b_lo, __global const long *b_n,
        __global const long *b_mn, __global const long *b_mx,
        __global long *sum_hi, __global ulong *sum_lo, __global long *nn, __global long *o_mn, __global long *o_mx) {{
    size_t w = get_global_id(0);
    long a = start[w] - base, b = stop[w] - base;
    CEPKIT_START
    long fb = width ? (a + width - 1) / width : 0, lb = width ? b / width : 0;
    if (fb < lb) {{
        CEPKIT_ADD_EVENTS(a, fb * width)
        for (long j = fb; j < lb; j++) {{
            ulong s = lo + b_lo[j];
            hi += b_hi[j] + (s < lo ? 1 : 0);
            lo = s;
            cnt += b_n[j]; mn = min(mn, b_mn[j]); mx = max(mx, b_mx[j]);
        }}
        CEPKIT_ADD_EVENTS(lb * width, b)
    }} else {{
        CEPKIT_ADD_EVENTS(a, b)
    }}
    sum_hi[w] = hi; sum_lo[w] = lo; nn[w] = cnt; o_mn[w] = mn; o_mx[w] = mx;
}}
"""


def block_width(start: np.ndarray, stop: np.ndarray) -> int:
    """Events per block: about the square root of the mean window length (0: windows are short)."""
    mean = float(np.mean(stop - start)) if len(start) else 0.0
    return int(np.sqrt(mean)) if mean >= 64 else 0


@dataclass
class WindowAggregates:
    """Per window: timestamp, events, exact sum (as 128-bit hi/lo words), non-null count, min, max."""

    ts: np.ndarray
    count: np.ndarray
    sum_hi: np.ndarray
    sum_lo: np.ndarray
    n: np.ndarray
    min: np.ndarray
    max: np.ndarray
    scale: int

    def rows(self, funcs: Sequence[str], skip_empty: bool = False) -> list[AggRow]:
        factor = 10 ** self.scale
        small = bool(np.all(self.sum_hi == (self.sum_lo.view(np.int64) >> 63)))
        out = []
        for w in range(len(self.ts)):
            count = int(self.count[w])
            if skip_empty and count == 0:
                continue
            n = int(self.n[w])
            s = int(self.sum_lo[w].view(np.int64)) if small else (int(self.sum_hi[w]) << 64) + int(self.sum_lo[w])
            vals = {"count": count, "sum": _exact(s, factor)}
            if n:
                vals.update(avg=_exact(Fraction(s, n), factor), min=_exact(int(self.min[w]), factor),
                            max=_exact(int(self.max[w]), factor))
            out.append(AggRow(int(self.ts[w]), tuple((f, vals.get(f)) for f in funcs)))
        return out


def _exact(x, factor: int):
    q = Fraction(x, factor) if factor != 1 or isinstance(x, Fraction) else x
    return q.numerator if isinstance(q, Fraction) and q.denominator == 1 else q


def aggregate_arrays(batch, attr: str, spec: WindowSpec, device: str | None = None, batch_size: int = BATCH,
                     events: list | None = None) -> WindowAggregates:
    """The aggregates of every window of `batch` (windows as cepkit.front.windows.spec.windows)."""
    check_attribute(batch, attr)
    values, null, scale = scaled_integers(batch.columns[attr], attr)
    start, stop, wts = window_bounds(batch.ts, spec)
    k = len(start)
    rt = runtime(device)
    src = source(null is not None)
    agg, blocks = kernel(rt, src, "cepkit_window_agg"), kernel(rt, src, "cepkit_block_agg")
    width = block_width(start, stop)
    types = (np.int64, np.uint64, np.int64, np.int64, np.int64)
    parts = [np.empty(k, dtype=t) for t in types]
    w = 0
    while w < k:   # groups of windows whose events fit in one device batch (at least one window)
        w2 = max(w + 1, int(np.searchsorted(stop, start[w] + batch_size, "right")))
        a, b = int(start[w]), int(stop[w2 - 1])
        outs = [scratch(rt, p.dtype, w2 - w) for p in parts]
        ins = [upload(rt, values[a:b])] + ([upload(rt, null[a:b])] if null is not None else [])
        nb = -(-(b - a) // width) if width else 0
        part = [scratch(rt, t, nb) for t in types]
        ev = [blocks(rt.queue, (nb,), None, *ins, np.int64(b - a), np.int64(width), *part)] if nb else []
        ev.append(agg(rt.queue, (w2 - w,), None, *ins, upload(rt, start[w:w2]), upload(rt, stop[w:w2]),
                      np.int64(a), np.int64(width), *part, *outs))
        if events is not None:
            events += ev
        for p, o in zip(parts, outs):
            p[w:w2] = download(rt, o, p.dtype, w2 - w)
        w = w2
    return WindowAggregates(wts, stop - start, *parts, scale)


def aggregate_rows(batch, attr: str, spec: WindowSpec, funcs: Sequence[str] = ("sum",), skip_empty: bool = False,
                   device: str | None = None, batch_size: int = BATCH) -> list[AggRow]:
    """Like cepkit.reference.windows.api.aggregate_batch (any method): one AggRow per window."""
    check_functions(funcs)
    return aggregate_arrays(batch, attr, spec, device, batch_size).rows(funcs, skip_empty)
