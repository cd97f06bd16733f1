"""The gpu pattern benchmark runs on small streams: the engines agree, the figures are consistent and the
table and the asv suite render."""
from __future__ import annotations

from benchmarks import gpu_pattern as G
from benchmarks.suites import bench_gpu_pattern as B


def test_gpu_pattern_benchmark_runs_on_small_streams(monkeypatch):
    measures = G.run(events=600, reference_events=150, windows=(40,), repeat=1)   # raises on disagreement
    opt = next(m for m in measures if m.engine == "optimized")
    for engine in ("gpu-batch", "gpu-event"):
        gpu = next(m for m in measures if m.engine == engine)
        assert gpu.kernel_seconds and gpu.kernel_seconds <= gpu.match_seconds <= gpu.seconds
        assert f"| 40 | {engine} | 600 |" in G.table(measures)
        assert opt.matches == gpu.matches and opt.events == 600
    monkeypatch.setattr(G, "WINDOWS", (30,))
    monkeypatch.setattr(B.GpuPattern, "events", 400)
    monkeypatch.setattr(B.GpuPattern, "reference_events", 100)
    suite = B.GpuPattern()
    results = suite.setup_cache()
    assert suite.track_ratio_vs_reference(results, 30, "reference") == 1.0
    assert suite.track_kernel_events_per_second(results, 30, "gpu-batch") > 0
    assert suite.track_ratio_vs_gpu_event(results, 30, "gpu-event") == 1.0
    assert suite.track_ratio_vs_optimized(results, 30, "optimized") == 1.0
