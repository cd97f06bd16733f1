"""`cepkit devices`: the OpenCL platforms and devices PyOpenCL sees, and which one the gpu engine uses."""
from __future__ import annotations

import argparse
from cepkit.core.errors import require_extra


def register(sub) -> None:
    d = sub.add_parser("devices", help="list the OpenCL devices (for --engine gpu --device P:D)")
    d.add_argument("--device", help="also show which device this --device value selects")
    d.set_defaults(func=_devices, query="--device")


def _devices(args: argparse.Namespace) -> int:
    require_extra("gpu", "cepkit devices")
    # lazy: start-up: the parser imports every subcommand's module; what this one runs loads when it runs
    from cepkit.gpu.device import list_devices, select_device

    for d in list_devices():
        print(f"{d['id']}  {d['platform']} / {d['device']}  [{d['type']}, {d['compute_units']} compute units, "
              f"{d['global_mem_mib']} MiB, {d['opencl_c']}]")
    dev = select_device(args.device)
    print(f"selected: {dev.platform.name.strip()} / {dev.name.strip()}")
    return 0
