"""pytest-benchmark: sequential pattern matching, gpu (both launch modes) vs optimized vs reference (not part of `make test`):
`python -m pytest -p no:cacheprovider benchmarks/test_bench_gpu_pattern.py`. CEPKIT_BENCH_EVENTS sets the
gpu stream size (default 20,000; the reference gets 1,500 events)."""
from __future__ import annotations

import os

import pytest

from benchmarks import gpu_pattern as G

EVENTS = int(os.environ.get("CEPKIT_BENCH_EVENTS", 20_000))
REFERENCE_EVENTS = 1_500


@pytest.mark.parametrize("engine", G.ENGINES)
@pytest.mark.parametrize("window", G.WINDOWS)
def test_gpu_pattern(benchmark, window, engine):
    data = G.rows(REFERENCE_EVENTS if engine == "reference" else EVENTS)
    if engine in G.GPU:
        assert G.agree(window, G.rows(REFERENCE_EVENTS))
    m = benchmark.pedantic(lambda: G.measure(engine, window, data, repeat=1), rounds=2, iterations=1)
    benchmark.extra_info.update(events=m.events, events_per_second=m.events_per_second, matches=m.matches,
                                matching_seconds=m.match_seconds, kernel_seconds=m.kernel_seconds)
