"""pytest-benchmark: gpu vs Numba vs reference on filter, windowed aggregation and join (not part of
`make test`): `python -m pytest -p no:cacheprovider benchmarks/test_bench_gpu_windows.py`.
CEPKIT_BENCH_EVENTS sets the stream size (default 1e6; the reference gets 20,000 events)."""
from __future__ import annotations

import os

import pytest

from benchmarks import gpu_windows as G

EVENTS = int(os.environ.get("CEPKIT_BENCH_EVENTS", 1_000_000))
REFERENCE_EVENTS = 20_000
_STREAMS: dict = {}


def _streams(operator: str, n: int):
    if (operator, n) not in _STREAMS:
        _STREAMS[(operator, n)] = G.streams_for(operator, n)
    return _STREAMS[(operator, n)]


@pytest.mark.parametrize("engine", G.ENGINES)
@pytest.mark.parametrize("operator", G.OPERATORS)
def test_gpu_windows(benchmark, operator, engine):
    n = REFERENCE_EVENTS if engine == "reference" else EVENTS
    streams = _streams(operator, n)
    if engine != "reference":
        assert G.agree(operator, _streams(operator, REFERENCE_EVENTS))
    G.measure(operator, engine, streams, repeat=0)       # warm: program build, JIT
    m = benchmark.pedantic(lambda: G.measure(operator, engine, streams, repeat=1), rounds=3, iterations=1)
    benchmark.extra_info.update(events=m.events, events_per_second=m.events_per_second,
                                bytes_per_second=m.bytes_per_second,
                                kernel_events_per_second=m.kernel_events_per_second, results=m.results)
