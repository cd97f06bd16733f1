"""Order-preserving stream compaction on the device: a bitmap of 32-event words (one word per work-item,
as the thesis' eval kernel writes bitmap bytes), an exclusive scan of the per-word counts (cepkit.gpu.scan),
and a scatter of the set positions to their scanned offsets (spec/004 §4.3, §4.8)."""
from __future__ import annotations

import numpy as np

from cepkit.gpu.buffers import download, scratch
from cepkit.gpu.launch import kernel
from cepkit.gpu.scan import exclusive_scan

WORD = 32

SOURCE = r"""
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
    m = words(n)
    if m == 0:
        return np.zeros(0, dtype=np.int64)
    offsets, k = exclusive_scan(rt, counts, m, events)
    out = scratch(rt, np.int64, k)
    ev = kernel(rt, SOURCE, "cepkit_scatter")(rt.queue, (m,), None, bits, offsets, np.int64(base), out)
    if events is not None:
        events.append(ev)
    return download(rt, out, np.int64, k)
