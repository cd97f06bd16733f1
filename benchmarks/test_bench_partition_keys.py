"""pytest-benchmark: the optimized engine on `[price]` queries with many distinct prices, the key index on
and off (benchmarks/partition_keys.py), engine only. Not part of `make test`; run with
`pytest benchmarks/test_bench_partition_keys.py` (CEPKIT_BENCH_QUICK=1: 20,000 events). Each case records
events/s; the off / on ratio of a query is in the `index on` case's extra_info."""
from __future__ import annotations

import os

import pytest

from benchmarks import partition_keys as P

EVENTS = 20_000 if os.environ.get("CEPKIT_BENCH_QUICK") == "1" else 100_000
SECONDS: dict = {}


@pytest.mark.parametrize("index", [False, True])
@pytest.mark.parametrize("query", P.QUERIES)
def test_partition_keys(benchmark, query, index):
    result = {}

    def run():
        result["seconds"], result["matches"] = P.run_once(query, EVENTS, index)

    benchmark.pedantic(run, rounds=1, iterations=1)
    SECONDS[(query, index)] = result["seconds"]
    info = dict(events=EVENTS, matches=result["matches"], events_per_second=EVENTS / result["seconds"])
    if index and (query, False) in SECONDS:
        info["off_over_on"] = SECONDS[(query, False)] / result["seconds"]
    benchmark.extra_info.update(info)
