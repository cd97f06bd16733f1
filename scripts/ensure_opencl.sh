#!/usr/bin/env bash
# Make sure an OpenCL CPU device that builds kernels exists (part of `make install`).
# The PoCL bundled with the pyopencl wheel (3.0-rc2, LLVM 14) cannot target CPUs that LLVM 14 does not
# know ("unknown target CPU 'generic'", e.g. AMD Zen 5); the system PoCL can. When no device builds a
# probe kernel, install Debian/Ubuntu's pocl-opencl-icd if apt-get and root are available.
set -u
PY="${1:-.venv/bin/python}"
probe() { "$PY" -c 'from cepkit.gpu.device import runtime; print("OpenCL device:", runtime().name)' 2>/dev/null; }
if probe; then exit 0; fi
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "no OpenCL device builds kernels; installing the system PoCL (apt-get install pocl-opencl-icd)"
  (apt-get install -y -q pocl-opencl-icd >/dev/null 2>&1 || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q pocl-opencl-icd >/dev/null 2>&1; })
  if probe; then exit 0; fi
fi
echo "warning: no OpenCL device builds kernels here; the gpu engine will refuse to start (see 'cepkit devices')" >&2
exit 0
