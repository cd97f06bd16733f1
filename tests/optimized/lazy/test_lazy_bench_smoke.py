"""The lazy benchmarks run on a small input: benchmarks/lazy_optimized.py's table (which checks the engines'
matches against each other and the reference) and the asv suite's OptimizedLazyVsEager."""
from __future__ import annotations

from benchmarks import lazy_optimized as L
from benchmarks.suites.bench_lazy import OptimizedLazyVsEager


def test_benchmark_table_on_a_small_stream():
    (row,) = L.run(3_000, 1_000, [100], 20, 1)
    assert row["matches"] > 0 and row["partial_match_ratio"] > 10 and row["order"] == "c,a,b"


def test_asv_suite_on_a_small_stream():
    bench = OptimizedLazyVsEager()
    counts = {}
    for engine in ("optimized-eager", "optimized-lazy"):
        bench.setup(engine, 100, 3_000)
        bench.time_run(engine, 100, 3_000)
        counts[engine] = bench.track_partial_matches(engine, 100, 3_000)
        assert bench.track_events_per_second(engine, 100, 3_000) > 0
    assert counts["optimized-eager"] > 10 * counts["optimized-lazy"]
