"""Every asv benchmark runs on a small input, and what it tracks is the reference engine's answer."""
from __future__ import annotations

import itertools

from benchmarks.suites import bench_reference as B
from cepkit import compile


def test_reference_benchmarks_run_on_a_small_input(monkeypatch):
    monkeypatch.setattr(B.ReferenceStock, "events", 2_000)
    for strategy, predicate in itertools.product(*B.ReferenceStock.params):
        bench = B.ReferenceStock()
        bench.setup(strategy, predicate)
        bench.time_run(strategy, predicate)
        expected = len(compile(B.TEMPLATE.format(strategy=strategy, pa=B.PREDICATES[predicate])).run(bench.batch))
        assert bench.track_matches(strategy, predicate) == expected
    B.FrontEnd().time_parse_query3()


def test_lazy_benchmark_runs_and_the_engines_agree(monkeypatch):
    from benchmarks.suites import bench_lazy as L

    monkeypatch.setattr(L.LazyVsEager, "events", 1_500)
    bench = L.LazyVsEager()
    bench.setup(20)
    bench.time_eager(20)
    bench.time_lazy(20)
    eager_matches, _ = L.counters("reference-eager", bench.batch, 20)
    assert bench.track_matches(20) == eager_matches > 0
    assert bench.track_partial_match_ratio(20) > 1  # a counter ratio, deterministic for the seeded stream
    assert bench.track_predicate_evaluation_ratio(20) > 1
