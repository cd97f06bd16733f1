"""The kernel pack (cepkit.spark_jobs.kernel_pack): what a driver compiled or loaded, as files an executor with
its own compile cache unpacks, byte for byte and with the modification times Numba checks."""
from __future__ import annotations

import os
import warnings

import cepkit
from cepkit.core.compile_cache import cache_dir
from cepkit.core.readers import read_events
from cepkit.spark_jobs import kernel_pack as KP

ROOT_EX = os.path.join(os.path.dirname(__file__), "..", "..", "examples")


def test_a_pack_holds_the_loaded_kernels_and_unpacks_them_exactly(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program = cepkit.compile(open(os.path.join(ROOT_EX, "query3.sase")).read(), engine="optimized")
    program.run(read_events(os.path.join(ROOT_EX, "fig3_stream.csv")))
    files = KP.loaded_cache_files(cache_dir())
    names = {p.name for p in files}
    assert any(n.startswith("runtime.run_loop-") and n.endswith(".nbi") for n in names), sorted(names)
    assert any(n.startswith("buffer.compact-") for n in names)   # a function of a loaded module, not called here
    pack = KP.build(cache_dir(), str(tmp_path))
    target = tmp_path / "executor-cache"
    assert KP.unpack(pack, target) == len(files)
    for p in files:
        copy = target / p.relative_to(cache_dir().resolve())
        assert copy.read_bytes() == p.read_bytes() and copy.stat().st_mtime_ns == p.stat().st_mtime_ns
    assert KP.unpack(pack, target) == 0   # equal files are left alone (local[...]: the driver's own cache)
