"""Exclusive scan (prefix sum) of uint counts on the device, with 64-bit offsets: one work-group when
the counts fit one block, else reduce-then-scan (a sum per block of work-groups, one work-group scans
the block sums, every block scans itself from its offset). Used for the filter's bitmap words and the
join's per-probe result counts (spec/004 §4.8: flags, exclusive scan, scatter)."""
from __future__ import annotations

import numpy as np

from cepkit.gpu.buffers import download, scratch
from cepkit.gpu.launch import kernel

ITEMS = 16          # counts per work-item in the blocked scan

SOURCE = r"""
/* the inclusive scan of tmp[0..L) in place (Hillis-Steele); every work-item of the group calls it */
void cepkit_local_scan(__local ulong *tmp, int t, int L) {
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int d = 1; d < L; d <<= 1) {
        ulong v = t >= d ? tmp[t - d] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        tmp[t] += v;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* one work-group: serial per-thread segments, a local scan, then the offsets of every segment */
#define CEPKIT_SCAN(NAME, T) \
__kernel void NAME(__global const T *counts, const long m, __global ulong *offsets, __global ulong *total, \
                   __local ulong *tmp) { \
    int t = get_local_id(0), L = get_local_size(0); \
    long per = (m + L - 1) / L, a = t * per, b = min(a + per, m); \
    ulong s = 0; \
    for (long j = a; j < b; j++) s += counts[j]; \
    tmp[t] = s; \
    cepkit_local_scan(tmp, t, L); \
    ulong run = tmp[t] - s; \
    for (long j = a; j < b; j++) { offsets[j] = run; run += counts[j]; } \
    if (t == L - 1) total[0] = tmp[t]; \
}
CEPKIT_SCAN(cepkit_scan, uint)
CEPKIT_SCAN(cepkit_scan64, ulong)

/* this work-item's segment [*a, *b) of its block's counts and its sum; tmp: the group's inclusive scan */
ulong cepkit_segment(__global const uint *counts, long m, long items, __local ulong *tmp, long *a, long *b) {
    int t = get_local_id(0), L = get_local_size(0);
    *a = (get_group_id(0) * L + t) * items;
    *b = min(*a + items, m);
    ulong s = 0;
    for (long j = *a; j < *b; j++) s += counts[j];
    tmp[t] = s;
    cepkit_local_scan(tmp, t, L);
    return s;
}

/* the sum of each block of L * items counts */
__kernel void cepkit_block_sums(__global const uint *counts, const long m, const long items,
                                __global ulong *sums, __local ulong *tmp) {
    long a, b;
    cepkit_segment(counts, m, items, tmp, &a, &b);
    if (get_local_id(0) == get_local_size(0) - 1) sums[get_group_id(0)] = tmp[get_local_id(0)];
}

/* every block's offsets, from the scanned block sums */
__kernel void cepkit_block_scan(__global const uint *counts, const long m, const long items,
                                __global const ulong *block_offsets, __global ulong *offsets,
                                __local ulong *tmp) {
    long a, b;
    ulong s = cepkit_segment(counts, m, items, tmp, &a, &b);
    ulong run = block_offsets[get_group_id(0)] + tmp[get_local_id(0)] - s;
    for (long j = a; j < b; j++) { offsets[j] = run; run += counts[j]; }
}
"""


def exclusive_scan(rt, counts, m: int, events: list | None = None):
    """(offsets buffer, total) of the exclusive scan of m uint counts in device buffer `counts`."""
    import pyopencl as cl

    local = int(min(256, rt.device.max_work_group_size))
    tmp = cl.LocalMemory(8 * local)
    offsets, total = scratch(rt, np.uint64, m), scratch(rt, np.uint64, 1)
    blocks = -(-m // (local * ITEMS))
    ev = []
    if blocks <= 1:
        ev.append(kernel(rt, SOURCE, "cepkit_scan")(rt.queue, (local,), (local,), counts, np.int64(m), offsets,
                                                    total, tmp))
    else:
        sums, block_offsets = scratch(rt, np.uint64, blocks), scratch(rt, np.uint64, blocks)
        grid = (blocks * local,)
        ev.append(kernel(rt, SOURCE, "cepkit_block_sums")(rt.queue, grid, (local,), counts, np.int64(m),
                                                          np.int64(ITEMS), sums, tmp))
        ev.append(kernel(rt, SOURCE, "cepkit_scan64")(rt.queue, (local,), (local,), sums, np.int64(blocks),
                                                      block_offsets, total, tmp))
        ev.append(kernel(rt, SOURCE, "cepkit_block_scan")(rt.queue, grid, (local,), counts, np.int64(m),
                                                          np.int64(ITEMS), block_offsets, offsets, tmp))
    if events is not None:
        events += ev
    return offsets, int(download(rt, total, np.uint64, 1)[0])
