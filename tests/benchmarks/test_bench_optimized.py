"""The reference-vs-optimized benchmarks run on small streams, and the ratio table renders them."""
from __future__ import annotations

from benchmarks import engine_compare as C
from benchmarks import ratio_table as R
from benchmarks.suites import bench_optimized as B


def test_engine_suite_and_ratio_table(monkeypatch):
    monkeypatch.setattr(C, "QUERIES", ["p2s3", "q3"])
    monkeypatch.setattr(C, "WINDOWS", [500])
    monkeypatch.setattr(C, "stream_size", lambda engine, window, name="": 3_000)
    suite = B.EngineStock()
    results = suite.setup_cache()
    for engine in C.ENGINES:
        if not C.available(engine):
            continue
        for query in C.QUERIES:
            suite.setup(results, engine, query, 500)
            m = results[(engine, query, 500)]
            assert m.events == 3_000 and suite.track_events_per_second(results, engine, query, 500) > 0
            assert suite.track_matches_per_second(results, engine, query, 500) == m.matches / m.seconds
    # the engines agree on the match counts they track
    counts = {(q, e): results[(e, q, 500)].matches for e in C.ENGINES if C.available(e) for q in C.QUERIES}
    for q in C.QUERIES:
        assert len({n for (qq, _), n in counts.items() if qq == q}) == 1
    table = R.render({k: {"events_per_second": v.events_per_second, "matches_per_second": v.matches_per_second,
                          "matches": v.matches, "peak_memory_mb": v.peak_mb} for k, v in results.items()})
    assert "p2s3" in table and "q3" in table and "x" in table


def test_query_texts_parse():
    from cepkit.front.language import parse

    for name in ["p1s2", "p1s3", "p2s2", "p2s3", "p3s2", "p3s3", "q3"]:
        for window in (500, 2000):
            q = parse(C.query_text(name, window))
            assert q.window.amount == window
