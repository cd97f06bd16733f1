"""The optimized TPStream engine against the reference on random streams and queries (random conditions,
duration bounds, Allen-relation graphs, partitions), fed in random chunk sizes."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import cepkit
from cepkit.core.match_table import MatchTable
from tests.tpstream.strategies import planted, queries, streams

BOUNDED = settings(max_examples=max(30, min(200, settings().max_examples // 5)))


@st.composite
def cases(draw):
    partitioned = draw(st.booleans())
    if not partitioned and draw(st.booleans()):
        return draw(planted())
    return draw(queries(partitioned)), draw(streams(partitioned, min_events=draw(st.sampled_from((0, 12, 20)))))


def _fed(program, batch, cuts: list[int]) -> MatchTable:
    tables, start = [], 0
    for cut in sorted(set(c for c in cuts if 0 < c < len(batch))) + [len(batch)]:
        if cut > start:
            tables.append(program.feed(batch.slice(start, cut)))
        start = cut
    return MatchTable.concat(program.layout, tables + [program.close()])


@BOUNDED
@given(cases(), st.lists(st.integers(0, 28), max_size=6))
def test_optimized_equals_reference_fed_in_chunks(case, cuts):
    q, batch = case
    expected = cepkit.compile(q, language="tpstream", engine="reference").run(batch)
    got = _fed(cepkit.compile(q, language="tpstream", engine="optimized"), batch, cuts)
    assert got.canonical() == expected.canonical()


EARLY = settings(max_examples=max(30, min(150, settings().max_examples // 7)))


@EARLY
@given(cases(), st.lists(st.integers(0, 28), max_size=6))
def test_optimized_early_output_equals_reference_fed_in_chunks(case, cuts):
    """Early mode: each situation's events up to the detection time, ts = detected = that time, NAME.end
    null while ongoing, RETURN values over the events so far; rows detected at a feed's events come out of
    that feed."""
    q, batch = case
    expected = cepkit.compile(q, language="tpstream", engine="reference", mode="early").run(batch)
    got = _fed(cepkit.compile(q, language="tpstream", engine="optimized", mode="early"), batch, cuts)
    assert got.canonical() == expected.canonical()


@EARLY
@given(cases(), st.sampled_from(("exact", "early")))
def test_optimized_rows_come_in_the_references_order(case, mode):
    """Over the whole stream the rows come in the reference's order: by ts, then partition (in the order of its
    first event), then the situations' starts (reference/tpstream/run.py), not partition by partition."""
    q, batch = case
    expected = cepkit.compile(q, language="tpstream", engine="reference", mode=mode).run(batch)
    got = cepkit.compile(q, language="tpstream", engine="optimized", mode=mode).run(batch)
    assert [(m.ts, m.bindings) for m in got] == [(m.ts, m.bindings) for m in expected]


def test_the_examples_rows_come_in_the_references_order():
    """aggressive_drivers: car 1's second match (ts 227) after car 2's (ts 136), in both modes."""
    from pathlib import Path

    ex = Path(__file__).resolve().parents[3] / "examples" / "tpstream"
    for mode in ("exact", "early"):
        tables = [cepkit.run(ex / "aggressive_drivers.tps", ex / "car_sensors.csv", ts_unit="s", engine=e, mode=mode)
                  for e in ("reference", "optimized")]
        assert [(m.ts, m.bindings) for m in tables[1]] == [(m.ts, m.bindings) for m in tables[0]]
        assert len(tables[0]) == 3
