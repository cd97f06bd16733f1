"""Device selection: explicit specs, the default rule (first GPU, else the first device that builds)."""
import os
import subprocess
import sys

import pyopencl as cl
import pytest

from cepkit.gpu.device import PROBE, list_devices, runtime, select_device
from cepkit.core.errors import QueryError


def test_default_device_builds_kernels():
    rt = runtime()
    rt.build(PROBE)  # the default is never a device whose compiler fails
    assert rt.name.strip()


def test_index_and_name_specs_pick_the_listed_device():
    first = list_devices()[0]
    by_index = select_device(first["id"])
    assert by_index.name.strip() == first["device"]
    assert select_device(first["id"].split(":")[0]).platform.name.strip() == first["platform"]
    assert first["device"].lower() in select_device(first["device"].upper()).name.lower()


def test_unknown_spec_lists_the_devices():
    with pytest.raises(QueryError) as err:
        select_device("7:7")
    assert "no OpenCL device matches '7:7'" in err.value.message and list_devices()[0]["id"] in err.value.message


def test_environment_variable_is_the_fallback_spec(monkeypatch):
    first = list_devices()[-1]
    monkeypatch.setenv("CEPKIT_OPENCL_DEVICE", first["id"])
    assert select_device().name.strip() == first["device"]


def test_only_the_wheel_pocl_either_builds_or_says_how_to_install_one():
    libs = os.path.join(os.path.dirname(cl.__file__), ".libs")
    env = {**os.environ, "OCL_ICD_VENDORS": libs}
    env.pop("CEPKIT_OPENCL_DEVICE", None)
    run = subprocess.run([sys.executable, "-c", "from cepkit.gpu.device import runtime, PROBE; runtime().build(PROBE)"],
                         capture_output=True, text=True, env=env)
    if run.returncode:  # the wheel's PoCL cannot target this CPU: a clear NoOpenCL, not a build error
        assert "NoOpenCL" in run.stderr and "apt-get install pocl-opencl-icd" in run.stderr
