"""pytest-benchmark: the reference and optimized AFA engines on Q1-Q3 (benchmarks/afa_disorder.py) in order
and at 10 % disorder (issue 16), in one run.

Not part of `make test` (pytest's testpaths are tests/ and conformance/); run with
`pytest benchmarks/test_bench_afa.py`. Each case records input elements/s and output retractions/s in
extra_info; on the small stream the optimized engine's rows are checked against the reference's.
"""
from __future__ import annotations

import pytest

import cepkit
from benchmarks import afa_disorder as D
from benchmarks import afa_optimized as A

SMALL, LARGE = 10_000, 1_000_000   # the reference runs the small stream only


@pytest.mark.parametrize("ticks", [SMALL, LARGE])
@pytest.mark.parametrize("disorder", [0.0, 0.10])
@pytest.mark.parametrize("query", ["q1", "q2", "q3"])
@pytest.mark.parametrize("engine", ["reference", "optimized"])
def test_afa(benchmark, engine, query, disorder, ticks):
    if engine == "reference" and ticks > SMALL:
        pytest.skip("the reference runs the small stream only")
    frame = D.stream(query, ticks, late=disorder, retract=0.01 if disorder else 0.0)
    if engine == "optimized":
        A.timed(engine, query, frame.iloc[:2000], 100_000)   # warm: the compiled code
    result = benchmark.pedantic(lambda: A.timed(engine, query, frame, 100_000), rounds=1, iterations=1)
    benchmark.extra_info.update(result)
    if engine == "optimized" and ticks <= SMALL:
        text = A.ROOT.joinpath("examples", "afa", f"{query}.afa.yaml").read_text()
        got = cepkit.compile(text, language="afa", engine="optimized").run(frame).canonical()
        assert got == cepkit.compile(text, language="afa", engine="reference").run(frame).canonical()
