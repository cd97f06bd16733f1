"""Every asv benchmark runs on a small input, and what it tracks is the reference engine's answer."""
from __future__ import annotations

import itertools

from benchmarks.asv import bench_reference as B
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
