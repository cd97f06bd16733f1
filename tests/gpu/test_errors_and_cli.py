"""Bad input to the gpu engine gives clear errors, and the CLI's gpu engine prints what the reference prints."""
from __future__ import annotations

import os
import subprocess
import sys

import pandas as pd
import pytest

from cepkit.cli import main
from cepkit.gpu.aggregate import aggregate_rows
from cepkit.gpu.filter import filter_rows
from cepkit.gpu.join import join_rows_gpu
from cepkit.core.errors import EventError, QueryError
from cepkit.core.readers import from_pandas
from cepkit.front.windows.spec import WindowSpec

COUNT2 = WindowSpec("count", 2, 1)


def _batch(**cols):
    n = len(next(iter(cols.values())))
    return from_pandas(pd.DataFrame({"ts": range(n), **cols}), type_col=None, default_type="e")


def test_missing_columns_are_event_errors():
    b = _batch(v=[1, 2, 3])
    with pytest.raises(EventError, match="missing attribute column 'w'"):
        filter_rows(b, "w > 1")
    with pytest.raises(EventError, match="missing attribute column 'w'"):
        aggregate_rows(b, "w", COUNT2)
    with pytest.raises(EventError, match="missing attribute column 'w' in the second stream"):
        join_rows_gpu(b, b, "L.v < R.w", COUNT2, COUNT2)


def test_non_numeric_columns_are_event_errors():
    b = _batch(v=[1, 2, 3], s=["a", "b", "c"])
    with pytest.raises(EventError, match="non-numeric value 'a'"):
        aggregate_rows(b, "s", COUNT2)
    with pytest.raises(EventError, match="non-numeric value 'a'"):
        filter_rows(b, "s + 1 > 2")


def test_overflow_is_an_event_error_not_a_wrong_answer():
    b = _batch(v=[1, 2 ** 62, 3])
    with pytest.raises(EventError, match="row 2, column 'v'.*overflows 64-bit integers"):
        filter_rows(b, "v * 4 > 0")
    long = _batch(v=[1] * 1000 + [2 ** 62] + [5] * 500)
    with pytest.raises(EventError, match="row 1001, column 'v'"):
        filter_rows(long, "v * 4 > 0", batch_size=64)
    right = _batch(v=[1, 1, 1, 4])
    with pytest.raises(EventError, match="row 4.*overflows 64-bit integers .an event of the second stream"):
        join_rows_gpu(b, right, "L.v * R.v > 0", COUNT2, COUNT2, "warmup", batch_size=2)


def test_unknown_device_is_a_query_error():
    with pytest.raises(QueryError, match="no OpenCL device matches 'no-such-device'"):
        filter_rows(_batch(v=[1]), "v > 0", device="no-such-device")


@pytest.fixture
def events(tmp_path):
    left, right = tmp_path / "l.csv", tmp_path / "r.csv"
    left.write_text("id,ts,v,s\n1,0,2,a\n2,1,7,b\n3,3,5,a\n4,6,3,b\n5,7,4,a\n")
    right.write_text("id,ts,v,s\n9,2,6,a\n8,4,1,b\n7,7,4,b\n")
    return str(left), str(right)


@pytest.mark.parametrize("args", [
    ["filter", "{l}", "--where", "v > 3 AND s = 'a'"],
    ["aggregate", "{l}", "--attr", "v", "--funcs", "sum,count,min,max,avg", "--size", "2"],
    ["aggregate", "{l}", "--attr", "v", "--kind", "count", "--size", "3", "--slide", "2", "--format", "csv"],
    ["join", "{l}", "{r}", "--on", "L.v <= R.v", "--kind", "count", "--size", "2", "--active", "warmup"],
])
def test_cli_gpu_prints_what_the_reference_prints(events, args, capsys):
    argv = ["window"] + [a.format(l=events[0], r=events[1]) for a in args]
    assert main(argv) == 0
    want = capsys.readouterr()
    assert main(argv + ["--engine", "gpu"]) == 0
    got = capsys.readouterr()
    assert got.out == want.out and got.err == want.err


def test_cli_refusals_and_devices(events, capsys):
    assert main(["window", "filter", events[0], "--where", "v % 2.5 > 1", "--engine", "gpu"]) == 2
    assert "engine 'gpu' does not support '%' on non-integers" in capsys.readouterr().err
    assert main(["devices"]) == 0
    assert "selected:" in capsys.readouterr().out


def test_no_usable_opencl_gives_an_install_hint(tmp_path, events):
    env = {**os.environ, "OCL_ICD_VENDORS": str(tmp_path), "CEPKIT_OPENCL_DEVICE": ""}
    run = subprocess.run([sys.executable, "-m", "cepkit.cli", "window", "filter", events[0], "--where", "v > 3",
                          "--engine", "gpu"], capture_output=True, text=True, env=env)
    assert "Traceback" not in run.stderr
    if run.returncode:            # only the wheel's PoCL is visible: it may not target this CPU
        assert "OpenCL" in run.stderr and "pocl" in run.stderr.lower()


def test_unrepresentable_columns_are_refused_by_name():
    from cepkit.core.errors import Unsupported

    floats = from_pandas(pd.DataFrame({"ts": [0, 1], "id": [0.5, 1.5], "v": [1, 2]}), type_col=None,
                         default_type="e")
    with pytest.raises(Unsupported, match="non-integral float ids"):
        filter_rows(floats, "id > 1")
    mixed = _batch(v=pd.Series([1, "a", 2], dtype=object))
    with pytest.raises(Unsupported, match="mixing text, numbers or booleans .column 'v'"):
        filter_rows(mixed, "v = 1")
    with pytest.raises(EventError, match="non-numeric value 'a'") as info:  # ordered against a number: RD-12
        filter_rows(mixed, "v > 1")
    assert (info.value.row, info.value.column) == (2, "v")
