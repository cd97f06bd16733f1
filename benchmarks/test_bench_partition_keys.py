"""pytest-benchmark: the optimized engine on `[price]` queries with many distinct prices, the key index on
and off (benchmarks/partition_keys.py), engine only: program.run on a batch built beforehand, the kernel
loaded by a warm-up run. Not part of `make test`; run with `pytest benchmarks/test_bench_partition_keys.py`
(CEPKIT_BENCH_QUICK=1: 20,000 events). Each case records events/s; the second of a query's two cases also
records the off / on ratio."""
from __future__ import annotations

import os

import pytest

from benchmarks import partition_keys as P

EVENTS = 20_000 if os.environ.get("CEPKIT_BENCH_QUICK") == "1" else 100_000
SECONDS: dict = {}


@pytest.mark.parametrize("index", [False, True])
@pytest.mark.parametrize("query", P.QUERIES)
def test_partition_keys(benchmark, query, index):
    from cepkit import compile

    text = P.query_text(query)
    batch = P.stream(EVENTS)
    compile(text, engine="optimized", index=index).run(batch.slice(0, 3_000))

    def fresh():
        return (compile(text, engine="optimized", index=index),), {}

    matches = benchmark.pedantic(lambda program: program.run(batch), setup=fresh, rounds=1)
    seconds = benchmark.stats.stats.mean
    SECONDS[(query, index)] = seconds
    info = dict(events=EVENTS, matches=len(matches), events_per_second=EVENTS / seconds)
    if (query, not index) in SECONDS:
        info["off_over_on"] = SECONDS[(query, False)] / SECONDS[(query, True)]
    benchmark.extra_info.update(info)
