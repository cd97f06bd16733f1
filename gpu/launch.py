"""Kernels by name (one pyopencl Kernel object per program and name), overflow flags and profiling."""
from __future__ import annotations

import numpy as np

from gpu.buffers import download
from reference.errors import EventError

_KERNELS: dict = {}


def kernel(rt, source: str, name: str):
    """The kernel `name` of the program built from `source` on rt (built and retrieved once)."""
    import pyopencl as cl

    prog = rt.build(source)
    key = (id(prog), name)
    k = _KERNELS.get(key)
    if k is None:
        k = _KERNELS[key] = (prog, cl.Kernel(prog, name))
    return k[1]


def check_overflow(rt, err, what: str, first_row: int | None = None, last_row: int | None = None) -> None:
    """EventError when a kernel set the int64 overflow flag `err` (rows: 1-based source rows of the batch)."""
    if int(download(rt, err, np.int32, 1)[0]):
        where = f" (between rows {first_row} and {last_row})" if first_row is not None else ""
        raise EventError(f"{what} overflows 64-bit integers{where}; the gpu engine computes in int64, "
                         "use --engine reference for unbounded integers")


def kernel_ns(events) -> int:
    """Total device time of finished OpenCL events, in nanoseconds (profiling queue)."""
    return sum(int(e.profile.end) - int(e.profile.start) for e in events)
