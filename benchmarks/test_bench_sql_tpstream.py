"""pytest-benchmark: MATCH_RECOGNIZE (reference, optimized, pandas-match-recognize) and TPStream (reference,
optimized) on the same data, in one run (issue 15).

Not part of `make test` (pytest's testpaths are tests/ and conformance/); run with `make bench-pytest`.
Each case records rows/s in extra_info; the optimized engines' and the peer's output is checked against the
reference's on the same data. pandas-match-recognize is the `peers` extra: skipped where it is missing.
"""
from __future__ import annotations

import warnings

import pytest

from benchmarks import sql_optimized as S
from benchmarks import tpstream_optimized as T

SMALL, LARGE = 20_000, 1_000_000   # the reference and the peer run the small table only


@pytest.mark.parametrize("rows", [SMALL, LARGE])
@pytest.mark.parametrize("query", list(S.QUERIES))
@pytest.mark.parametrize("engine", ["reference", "optimized", "pandas-match-recognize"])
def test_sql(benchmark, engine, query, rows):
    warnings.simplefilter("ignore")
    if engine != "optimized" and rows > SMALL:
        pytest.skip("the reference and the peer run the small table only")
    frame = S.ticker(rows)
    text = S.QUERIES[query]
    if engine == "pandas-match-recognize":
        if S.peer_seconds(text, frame.head(100), 1) is None:
            pytest.skip("pandas-match-recognize is not installed (the peers extra)")
        n = benchmark.pedantic(lambda: S.peer_seconds(text, frame, 1)[1], rounds=1, iterations=1)
    else:
        S.engine_seconds(text, frame.head(1000), engine, 1)   # warm: the compiled code
        n = benchmark.pedantic(lambda: S.engine_seconds(text, frame, engine, 1)[1], rounds=1, iterations=1)
    benchmark.extra_info.update(rows=rows, matches=n, rows_per_second=rows / benchmark.stats.stats.mean)
    if rows <= SMALL and engine != "reference":
        assert n == S.engine_seconds(text, frame, "reference", 1)[1]


@pytest.mark.parametrize("events", [10_000, 1_000_000])
@pytest.mark.parametrize("mode", ["exact", "early"])
@pytest.mark.parametrize("query", list(T.QUERIES))
@pytest.mark.parametrize("engine", ["reference", "optimized"])
def test_tpstream(benchmark, engine, query, mode, events):
    if engine == "reference" and events > 10_000:
        pytest.skip("the reference runs the small stream only")
    batch = T.batch(events)
    T.measure(engine, query, T.batch(2_000), mode)   # warm
    n = benchmark.pedantic(lambda: T.measure(engine, query, batch, mode)[1], rounds=1, iterations=1)
    benchmark.extra_info.update(events=events, matches=n, events_per_second=events / benchmark.stats.stats.mean)
    if engine == "optimized" and events <= 10_000:
        assert n == T.measure("reference", query, batch, mode)[1]
