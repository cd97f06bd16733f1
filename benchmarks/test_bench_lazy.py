"""pytest-benchmark: lazy vs eager evaluation, both optimized (Numba), at type frequency ratios 1, 10, 100 and
1000 (benchmarks/lazy_optimized.py has the stream and the query), in one run each.

Not part of `make test`; run with `python -m pytest -p no:cacheprovider benchmarks/test_bench_lazy.py`
(CEPKIT_BENCH_EVENTS sets the stream size, default 200,000). Each case records events/s, partial matches
created and matches in extra_info; every engine's matches are checked equal to optimized-eager's.
"""
from __future__ import annotations

import os

import pytest

from benchmarks import lazy_optimized as L

EVENTS = int(os.environ.get("CEPKIT_BENCH_EVENTS", 200_000))
MATCHES: dict = {}


@pytest.mark.parametrize("ratio", [1, 10, 100, 1000])
@pytest.mark.parametrize("engine", ["optimized-eager", "optimized-lazy", "optimized-tree"])
def test_lazy_vs_eager(benchmark, engine, ratio):
    text = L.QUERY.format(window=20)
    batch = L.batch(EVENTS, ratio)
    L.measure(engine, text, batch.slice(0, 2000))  # warm: load the cached kernels
    result = benchmark.pedantic(lambda: L.measure(engine, text, batch), rounds=1, iterations=1)
    benchmark.extra_info.update(events=EVENTS, matches=result["matches"], partial_matches=result["partial_matches"],
                                events_per_second=EVENTS / benchmark.stats.stats.mean)
    assert MATCHES.setdefault(ratio, result["matches"]) == result["matches"]
