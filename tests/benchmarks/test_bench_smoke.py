"""Every asv benchmark runs (on a small input) and its track_ values agree with the reference run."""
from __future__ import annotations

import itertools

from benchmarks.asv import bench_reference as B


def test_reference_benchmarks_run_on_a_small_input(monkeypatch):
    monkeypatch.setattr(B.ReferenceStock, "events", 2_000)
    for strategy, predicate in itertools.product(*B.ReferenceStock.params):
        bench = B.ReferenceStock()
        bench.setup(strategy, predicate)
        bench.time_run(strategy, predicate)
        assert bench.track_matches(strategy, predicate) >= 0
    B.FrontEnd().time_parse_query3()
