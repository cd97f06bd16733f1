"""Moving NumPy arrays to and from device buffers (a zero-length array gets a one-element buffer)."""
from __future__ import annotations

import numpy as np


def upload(rt, array: np.ndarray):
    """A read-only device buffer holding `array` (copied)."""
    import pyopencl as cl

    a = np.ascontiguousarray(array)
    if a.size == 0:
        a = np.zeros(1, dtype=a.dtype)
    return cl.Buffer(rt.context, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=a)


def scratch(rt, dtype, n: int, fill=None):
    """A read-write device buffer of n elements of `dtype` (zeroed, or filled with `fill`)."""
    import pyopencl as cl

    a = np.full(max(n, 1), 0 if fill is None else fill, dtype=dtype)
    return cl.Buffer(rt.context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=a)


def download(rt, buf, dtype, n: int) -> np.ndarray:
    """The first n elements of a device buffer."""
    import pyopencl as cl

    out = np.empty(max(n, 1), dtype=dtype)
    cl.enqueue_copy(rt.queue, out, buf)
    return out[:n]
