"""Kernels by name (one pyopencl Kernel object per program and name), overflow flags and profiling."""
from __future__ import annotations

import numpy as np

from cepkit.gpu.buffers import download
from cepkit.core.errors import EventError

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


def overflowed(rt, err) -> bool:
    """Whether a kernel set the int64 overflow flag `err`."""
    return bool(int(download(rt, err, np.int32, 1)[0]))


def overflow_error(what: str, where: str = "", row: int | None = None, column: str | None = None) -> EventError:
    return EventError(f"{what} overflows 64-bit integers{where}; the gpu engine computes in int64, "
                      "use --engine reference for unbounded integers", row=row, column=column)


def kernel_ns(events) -> int:
    """Total device time of finished OpenCL events, in nanoseconds (profiling queue)."""
    return sum(int(e.profile.end) - int(e.profile.start) for e in events)
