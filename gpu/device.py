"""OpenCL device selection, one cached context and queue per device, and programs cached by source.

A device is chosen by `--device` / CEPKIT_OPENCL_DEVICE: "P:D" (platform and device index, as `cepkit
devices` lists them), "P" (first device of platform P), or a case-insensitive part of the platform or
device name. The default is the first GPU of any platform, else the first device whose compiler builds a
probe kernel (the PoCL bundled with the pyopencl wheel cannot target CPUs its LLVM 14 does not know:
"unknown target CPU 'generic'"; the system PoCL, `apt-get install pocl-opencl-icd`, can).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from cepkit.core.errors import CepkitError, MissingExtra, QueryError, missing_package

ENV_VAR = "CEPKIT_OPENCL_DEVICE"
INSTALL_HINT = 'install an OpenCL platform, for example PoCL for the CPU: pip install "pyopencl[pocl]"'
BROKEN_HINT = ("no OpenCL device here builds kernels{detail}; on Debian or Ubuntu install the system PoCL "
               "(apt-get install pocl-opencl-icd), or name a device with --device / " "CEPKIT_OPENCL_DEVICE")
PROBE = "__kernel void cepkit_probe(__global int *a) { a[get_global_id(0)] = 1; }"


class NoOpenCL(CepkitError):
    """No OpenCL platform or device can be used; the message says how to get one."""


class GpuBuildError(CepkitError):
    """Generated OpenCL C failed to build: a cepkit bug. The message holds the source and the compiler log."""

    def __init__(self, source: str, log: str):
        self.source, self.log = source, log
        numbered = "\n".join(f"{i + 1:4d}  {line}" for i, line in enumerate(source.splitlines()))
        super().__init__("generated OpenCL C failed to build (a cepkit bug; please report it)\n"
                         f"--- source ---\n{numbered}\n--- compiler log ---\n{log.strip()}")


def _cl():
    package = missing_package("gpu")
    if package is not None:  # pyopencl (or Mako) is the gpu extra
        raise MissingExtra("the gpu engine", "gpu", package)
    try:
        import pyopencl as cl
    except ImportError as exc:  # installed but broken (a missing shared library)
        raise NoOpenCL(f"pyopencl cannot be imported ({exc}); {INSTALL_HINT}") from None
    return cl


def _platforms():
    cl = _cl()
    try:
        platforms = cl.get_platforms()
    except cl.Error:  # "platform not found" when no ICD is installed
        platforms = []
    if not platforms:
        raise NoOpenCL(f"no OpenCL platform found; {INSTALL_HINT}")
    return platforms


def list_devices() -> list[dict]:
    """Every device OpenCL sees: platform/device index, names, kind, compute units, global memory."""
    cl = _cl()
    out = []
    for p, plat in enumerate(_platforms()):
        for d, dev in enumerate(plat.get_devices()):
            out.append({"id": f"{p}:{d}", "platform": plat.name.strip(), "device": dev.name.strip(),
                        "type": cl.device_type.to_string(dev.type), "compute_units": dev.max_compute_units,
                        "global_mem_mib": dev.global_mem_size // (1 << 20),
                        "opencl_c": dev.opencl_c_version.strip()})
    return out


def select_device(spec: str | None = None):
    """The pyopencl Device named by `spec` (else CEPKIT_OPENCL_DEVICE, else the default rule)."""
    cl = _cl()
    spec = spec if spec is not None else os.environ.get(ENV_VAR) or None
    pairs = [(p, d, plat, dev) for p, plat in enumerate(_platforms()) for d, dev in enumerate(plat.get_devices())]
    if not pairs:
        raise NoOpenCL(f"OpenCL platforms exist but show no device; {INSTALL_HINT}")
    if spec is None:
        gpus = [dev for _, _, _, dev in pairs if dev.type & cl.device_type.GPU]
        if gpus:
            return gpus[0]
        logs = []
        for _, _, plat, dev in pairs:
            log = _probe(dev)
            if log is None:
                return dev
            logs.append(f"{plat.name.strip()} / {dev.name.strip()}: {log.strip().splitlines()[0]}")
        raise NoOpenCL(BROKEN_HINT.format(detail=" (" + "; ".join(logs) + ")"))
    s = spec.strip()
    parts = s.split(":")
    if all(x.isdigit() for x in parts) and len(parts) in (1, 2):
        want = tuple(int(x) for x in parts)
        for p, d, _, dev in pairs:
            if (p, d)[:len(want)] == want:
                return dev
    else:
        for _, _, plat, dev in pairs:
            if s.lower() in dev.name.lower() or s.lower() in plat.name.lower():
                return dev
    known = ", ".join(f"{p}:{d} {plat.name.strip()} / {dev.name.strip()}" for p, d, plat, dev in pairs)
    raise QueryError(f"no OpenCL device matches {spec!r} (from --device or {ENV_VAR}); devices: {known}")


_PROBED: dict[int, str | None] = {}


def _probe(dev) -> str | None:
    """None if the device's compiler builds a trivial kernel, else the first line of its build log."""
    key = dev.int_ptr
    if key not in _PROBED:
        cl = _cl()
        prog = cl.Program(cl.Context([dev]), PROBE)
        try:
            prog.build()
            _PROBED[key] = None
        except cl.Error as exc:
            try:
                log = prog.get_build_info(dev, cl.program_build_info.LOG).strip()
            except cl.Error:
                log = ""
            _PROBED[key] = log or str(exc)
    return _PROBED[key]


@dataclass
class Runtime:
    """A device with its context and in-order queue, and the programs built on it (by source)."""

    device: object
    context: object
    queue: object
    programs: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.device.platform.name.strip()} / {self.device.name.strip()}"

    def build(self, source: str, options: tuple[str, ...] = ()):
        """The built program for this source (built once per runtime); GpuBuildError on a build failure."""
        key = (source, options)
        prog = self.programs.get(key)
        if prog is None:
            cl = _cl()
            prog = cl.Program(self.context, source)
            try:
                prog.build(options=list(options))
            except cl.RuntimeError as exc:
                try:
                    log = prog.get_build_info(self.device, cl.program_build_info.LOG)
                except cl.Error:
                    log = str(exc)
                raise GpuBuildError(source, log or str(exc)) from None
            self.programs[key] = prog
        return prog


_RUNTIMES: dict[int, Runtime] = {}


def runtime(spec: str | None = None) -> Runtime:
    """The shared Runtime of the selected device (one context and queue per device per process)."""
    cl = _cl()
    dev = select_device(spec)
    key = dev.int_ptr
    rt = _RUNTIMES.get(key)
    if rt is None:
        ctx = cl.Context([dev])
        rt = Runtime(dev, ctx, cl.CommandQueue(ctx, dev, properties=cl.command_queue_properties.PROFILING_ENABLE))
        _RUNTIMES[key] = rt
    return rt
