"""Order-preserving stream compaction on the device: a bitmap of 32-event words (one word per work-item,
as the thesis' eval kernel writes bitmap bytes), an exclusive scan of the per-word counts in one
work-group (64-bit offsets: the join scans its per-probe result counts with it too), and a scatter of
the set positions to their scanned offsets (spec/004 §4.3, §4.8)."""
from __future__ import annotations

import numpy as np

from gpu.buffers import download, scratch
from gpu.launch import kernel

WORD = 32

SOURCE = r"""
/* exclusive scan of counts[0..m) by one work-group: serial per-thread segments, then a local scan */
__kernel void cepkit_scan(__global const uint *counts, const long m, __global ulong *offsets,
                          __global ulong *total, __local ulong *tmp) {
    int t = get_local_id(0), L = get_local_size(0);
    long per = (m + L - 1) / L, a = t * per, b = min(a + per, m);
    ulong s = 0;
    for (long j = a; j < b; j++) s += counts[j];
    tmp[t] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int d = 1; d < L; d <<= 1) {
        ulong v = t >= d ? tmp[t - d] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        tmp[t] += v;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    ulong run = tmp[t] - s;
    for (long j = a; j < b; j++) { offsets[j] = run; run += counts[j]; }
    if (t == L - 1) total[0] = tmp[t];
}

/* the positions of the set bits of word c, written in order from offsets[c] on */
__kernel void cepkit_scatter(__global const uint *bits, __global const ulong *offsets, const long base,
                             __global long *out) {
    size_t c = get_global_id(0);
    uint w = bits[c];
    ulong o = offsets[c];
    for (int k = 0; w != 0; k++, w >>= 1)
        if (w & 1u) out[o++] = base + (long)c * 32 + k;
}
"""


def words(n: int) -> int:
    """Bitmap words for n events."""
    return (n + WORD - 1) // WORD


def compact(rt, bits, counts, n: int, base: int = 0, events: list | None = None) -> np.ndarray:
    """Positions base + i of the set bits among n events, in order (int64). `events` collects the
    OpenCL events of the launched kernels (for profiling)."""
    import pyopencl as cl

    m = words(n)
    if m == 0:
        return np.zeros(0, dtype=np.int64)
    local = int(min(256, rt.device.max_work_group_size))
    offsets, total = scratch(rt, np.uint64, m), scratch(rt, np.uint64, 1)
    e1 = kernel(rt, SOURCE, "cepkit_scan")(rt.queue, (local,), (local,), counts, np.int64(m), offsets, total,
                                        cl.LocalMemory(8 * local))
    k = int(download(rt, total, np.uint64, 1)[0])
    out = scratch(rt, np.int64, k)
    e2 = kernel(rt, SOURCE, "cepkit_scatter")(rt.queue, (m,), None, bits, offsets, np.int64(base), out)
    if events is not None:
        events += [e1, e2]
    return download(rt, out, np.int64, k)
