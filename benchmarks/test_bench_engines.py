"""pytest-benchmark: reference vs optimized on the spec/000 experiment queries, in one run.

Not part of `make test` (pytest's testpaths are tests/ and conformance/); run with `make bench-pytest`
(CEPKIT_BENCH_QUICK=1 for small streams). Each case records events/s, matches/s and matches in
extra_info; the optimized engine's answer is checked against the reference's on the same stream.
"""
from __future__ import annotations

import pytest

from benchmarks import engine_compare as C

TABLE: dict = {}  # printed as the ratio table at the end of the run (benchmarks/conftest.py)


@pytest.mark.parametrize("window", C.WINDOWS)
@pytest.mark.parametrize("query", C.QUERIES)
@pytest.mark.parametrize("engine", C.ENGINES)
def test_engine(benchmark, engine, query, window):
    if not C.available(engine):
        pytest.skip(f"engine {engine} is not registered")
    from cepkit import compile

    text = C.query_text(query, window)
    batch = C.stream(C.stream_size(engine, window, query), query == "q3")
    compile(text, engine=engine).run(batch.slice(0, min(len(batch), 2_000)))  # warm: code generation, JIT

    def run():
        return compile(text, engine=engine).run(batch)

    matches = benchmark.pedantic(run, rounds=1, iterations=1)
    seconds = benchmark.stats.stats.mean
    info = dict(events=len(batch), matches=len(matches),
                events_per_second=len(batch) / seconds, matches_per_second=len(matches) / seconds)
    benchmark.extra_info.update(info)
    TABLE[(engine, query, window)] = info
    if engine != "reference" and len(batch) <= C.REFERENCE_EVENTS:
        expected = compile(text, engine="reference").run(batch)
        assert sorted(m.key() for m in matches) == sorted(m.key() for m in expected)
