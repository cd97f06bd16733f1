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
