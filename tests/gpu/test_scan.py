"""The device exclusive scan equals NumPy's, in one work-group and blocked (more than one block)."""
from __future__ import annotations

import numpy as np
import pytest

from cepkit.gpu.buffers import download, upload
from cepkit.gpu.device import runtime
from cepkit.gpu.scan import ITEMS, exclusive_scan


@pytest.mark.parametrize("m", [0, 1, 255, 257, 256 * ITEMS, 256 * ITEMS + 1, 50_000])
def test_exclusive_scan_equals_numpy(m):
    rt = runtime()
    counts = np.random.default_rng(m).integers(0, 40, m).astype(np.uint32)
    if m:
        counts[m // 2] = 2 ** 32 - 1          # offsets pass 2^32: they are 64-bit
    offsets, total = exclusive_scan(rt, upload(rt, counts), m)
    want = np.concatenate([[0], np.cumsum(counts, dtype=np.uint64)])
    assert total == int(want[-1])
    assert np.array_equal(download(rt, offsets, np.uint64, m), want[:-1])
