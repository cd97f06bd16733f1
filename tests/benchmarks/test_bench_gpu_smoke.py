"""The gpu window benchmarks run on small streams: the engines agree and the table renders."""
from __future__ import annotations

from benchmarks import gpu_windows as G
from benchmarks.suites import bench_gpu_windows as B


def test_gpu_window_benchmarks_run_on_small_streams(monkeypatch):
    measures = G.run(events=4_000, reference_events=600, repeat=1)      # raises if the engines disagree
    assert {(m.operator, m.engine) for m in measures} == {(o, e) for o in G.OPERATORS for e in G.ENGINES}
    assert all(m.results > 0 for m in measures if m.engine != "reference")
    gpu = [m for m in measures if m.engine == "gpu"]
    assert all(m.kernel_seconds and m.kernel_seconds <= m.seconds for m in gpu)
    assert "| filter | gpu |" in G.table(measures)
    monkeypatch.setattr(B.GpuWindows, "events", 3_000)
    monkeypatch.setattr(B.GpuWindows, "reference_events", 500)
    suite = B.GpuWindows()
    results = suite.setup_cache()
    assert suite.track_ratio_vs_reference(results, "join", "reference") == 1.0
    assert suite.track_bytes_per_second(results, "aggregate", "gpu") > 0
