"""Allen relations: the 13 definitions, inverses, spellings, the thesis' naming, and the buffer's
binary-search ranges against the definitions."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cepkit.front.tpstream import allen
from cepkit.reference.tpstream.buffer import Buffer
from cepkit.reference.tpstream.situations import Situation


@st.composite
def intervals(draw):
    ts = draw(st.integers(0, 12))
    return ts, ts + draw(st.integers(1, 6))


@given(intervals(), intervals())
def test_exactly_one_relation_and_inverse(a, b):
    r = allen.classify(a, b)
    assert allen.classify(b, a) == allen.INVERSE[r]
    assert allen.INVERSE[allen.INVERSE[r]] == r


def test_every_relation_is_reachable_and_has_an_inverse():
    seen = {allen.classify((a, a + la), (b, b + lb)) for a in range(4) for b in range(4)
            for la in range(1, 4) for lb in range(1, 4)}
    assert seen == set(allen.RELATIONS) and len(allen.RELATIONS) == 13
    assert set(allen.INVERSE) == set(allen.RELATIONS)


def test_finishes_is_allens_and_the_thesis_calls_it_finished_by():
    # Allen: A finishes B when A starts later and both end together (spec/004 §5.3, A1).
    assert allen.classify((3, 8), (1, 8)) == "finishes"
    assert allen.THESIS_NAME["finishes"] == "finished by"
    assert allen.classify((1, 8), (3, 8)) == "finished_by"
    assert allen.THESIS_NAME["finished_by"] == "finishes"


@pytest.mark.parametrize("text, name", [("met_by", "met_by"), ("met-by", "met_by"), ("metBy", "met_by"),
                                        ("OVERLAPS", "overlaps"), ("finished-by", "finished_by"),
                                        ("overlapped_by", "overlapped_by"), ("started-by", "started_by")])
def test_spellings(text, name):
    assert allen.lookup(text) == name


@pytest.mark.parametrize("text, close", [("overlap", "overlaps"), ("befor", "before"), ("met_byy", "met_by"),
                                         ("finish", "finishes"), ("contain", "contains"), ("xyzzy", None)])
def test_closest(text, close):
    assert allen.lookup(text) is None
    got = allen.closest(text)
    assert got in allen.RELATIONS
    if close:
        assert got == close


@given(intervals(), st.lists(intervals(), max_size=8), st.sets(st.sampled_from(allen.RELATIONS), min_size=1),
       st.integers(0, 6))
def test_buffer_ranges_equal_the_definitions(p, ys, rels, purge):
    # a buffer holds pairwise disjoint situations of one stream, sorted by ts
    disjoint, end = [], -1
    for a, e in sorted(ys):
        if a >= end:
            disjoint.append((a, e))
            end = e
    buf = Buffer()
    for a, e in disjoint:
        buf.add(Situation(0, a, e, ()))
    buf.purge(purge)
    got = {(buf.items[i].ts, buf.items[i].te) for i in buf.related(rels, *p)}
    want = {y for y in disjoint if y[0] >= purge and any(allen.holds(r, p, y) for r in rels)}
    assert got == want
