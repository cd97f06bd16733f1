"""The TPStream language: the thesis' queries parse; every bad input is a QueryError with its position."""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cepkit.core.errors import QueryError
from cepkit.front.language import ast as A
from cepkit.front.tpstream.parser import parse_definitions, parse_tpstream
from cepkit.front.tpstream.query import Duration

ROOT = Path(__file__).resolve().parents[2]
LISTING_5_1 = (ROOT / "examples" / "tpstream" / "aggressive_drivers.tps").read_text()


def test_listing_5_1():
    q = parse_tpstream(LISTING_5_1)
    assert q.source == "CarSensors" and q.partition_by == ("car_id",)
    a, b, c = q.definitions
    assert a.condition == A.Compare(">", A.AttrRef("", "accel"), A.Const(8))
    assert (a.at_least, a.at_most) == (Duration(5, "s"), None)
    assert (b.at_least, b.at_most) == (Duration(4, "s"), Duration(30, "s"))
    assert c.condition == A.Compare("<", A.AttrRef("", "accel"), A.Const(-9))
    assert [(t.left, set(t.relations), t.right) for t in q.pattern] == [
        ("A", {"meets", "overlaps", "starts", "during"}, "B"),
        ("B", {"contains", "finished_by", "overlaps", "meets"}, "C"),  # the thesis' "finishes"
        ("A", {"before"}, "C")]
    assert q.within == Duration(5, "min")
    assert [(r.func, r.situation, r.attr, r.name) for r in q.returns] == [
        ("first", "B", "car_id", "id"), ("avg", "B", "speed", "avg_speed")]


def test_spellings_keywords_comments():
    q = parse_tpstream("from s /* c */ define a as x > 1 and not (y = 'k') at most 3, b as b.x <= 2.5\n"
                       "pattern a met-by;metBy;MET_BY b // same relation\nwithin 10 return COUNT(a.x)")
    assert q.pattern[0].relations == frozenset({"met_by"})
    assert q.definitions[0].at_most == Duration(3, None)
    assert q.definitions[1].condition == A.Compare("<=", A.AttrRef("b", "x"), A.Const(Fraction(5, 2)))
    assert q.returns[0].name == "count_a_x"


def _error(text: str) -> QueryError:
    with pytest.raises(QueryError) as info:
        parse_tpstream(text)
    return info.value


BASE = "FROM s\nDEFINE A AS x > 0,\n       B AS y > 0\nPATTERN {p}\nWITHIN 10"


def _at(text: str, marker: str) -> tuple[int, int]:
    """1-based line and column of the marker's position: `marker` is `before|at`, the error points at
    the first `at` that follows the first `before`."""
    before, _bar, at = marker.rpartition("|")
    i = text.index(at, text.index(before) + len(before) if before else 0)
    line = text.count("\n", 0, i) + 1
    return line, i - (text.rfind("\n", 0, i) + 1) + 1


@pytest.mark.parametrize("text, marker, words", [
    # Bad input named by the issue
    (BASE.format(p="A overlap B"), "overlap", ["unknown relation 'overlap'", "did you mean 'overlaps'"]),
    (BASE.format(p="A met_byy B"), "met_byy", ["unknown relation 'met_byy'", "did you mean 'met_by'"]),
    (BASE.format(p="A finish B"), "finish", ["did you mean 'finishes'"]),
    (BASE.format(p="A meets B AND B before C"), "before |C", ["situation 'C' is used in PATTERN but not defined"]),
    (BASE.format(p="X meets B"), "X", ["situation 'X' is used in PATTERN but not defined"]),
    ("FROM s DEFINE A AS speed > 1,\n B AS speed > max(A.speed) PATTERN A meets B WITHIN 5", "max",
     ["references an aggregate of situation A", "max(A.speed)"]),
    ("FROM s DEFINE A AS x > 0 BETWEEN 30 s AND 4 s, B AS y > 0 PATTERN A meets B WITHIN 5 min", "30",
     ["inverted duration range"]),
    ("FROM s DEFINE A AS x > 0 BETWEEN 1 minute AND 30 s, B AS y > 0 PATTERN A meets B WITHIN 5 min", "1 minute",
     ["inverted duration range"]),
    ("FROM s DEFINE A AS x > 0 AT MOST 0, B AS y > 0 PATTERN A meets B WITHIN 5", "MOST |0",
     ["empty duration range"]),
    ("FROM s DEFINE A AS x > 0 BETWEEN 0 AND 0, B AS y > 0 PATTERN A meets B WITHIN 5", "AND |0",
     ["empty duration range"]),
    # Other mistakes
    ("FROM s DEFINE A AS x > 0, B AS avg(x) > 1 PATTERN A meets B WITHIN 5", "avg", ["cannot aggregate"]),
    ("FROM s DEFINE A AS x > 0, B AS A.x > 1 PATTERN A meets B WITHIN 5", "B AS |A.x",
     ["reads A.x, an attribute of another situation"]),
    ("FROM s DEFINE A AS x > 0, B AS f(x) > 1 PATTERN A meets B WITHIN 5", "f(", ["unknown function 'f'"]),
    ("FROM s DEFINE A AS x > 0, A AS y > 0, B AS z > 0 PATTERN A meets B WITHIN 5", ", |A AS", ["defined twice"]),
    ("FROM s DEFINE A AS x > 0, B AS y > 0 PATTERN A meets A WITHIN 5", "meets |A", ["related to itself"]),
    ("FROM s DEFINE A AS x > 0, B AS y > 0, C AS z > 0 PATTERN A meets B WITHIN 5", "C AS",
     ["'C' is defined but not used"]),
    ("FROM s DEFINE A AS x > 0, B AS y > 0 PATTERN A meets B WITHIN 5 RETURN median(A.x)", "median",
     ["unknown aggregate 'median'"]),
    ("FROM s DEFINE A AS x > 0, B AS y > 0 PATTERN A meets B WITHIN 5 RETURN sum(Z.x)", "sum",
     ["RETURN reads situation 'Z'"]),
    ("FROM s DEFINE A AS x > 0, B AS y > 0 PATTERN A meets B WITHIN 5 RETURN sum(A.x) AS n, sum(B.x) AS n",
     "sum(B", ["RETURN names 'n' twice"]),
    ("FROM s DEFINE A AS x > 0, B AS y > 0 PATTERN A meets B WITHIN 5 fortnights", "fortnights",
     ["unknown time unit 'fortnights'"]),
    ("FROM s DEFINE A AS x > 0, B AS y > 0 PATTERN A meets B WITHIN 0", "WITHIN |0", ["WITHIN must be a positive"]),
    ("FROM s DEFINE A AS x > 0, B AS y > 0 PATTERN A meets B WITHIN -3", "3", ["WITHIN must be a positive"]),
    ("FROM s DEFINE A AS x > 0 AT LEAST 2 s, B AS y > 0 PATTERN A meets B WITHIN 5", "WITHIN |5",
     ["mixes durations with a time unit"]),
    ("FROM s DEFINE A AS accel > 8m/s2, B AS y > 0 PATTERN A meets B WITHIN 5", "8|m", ["unexpected 'm'"]),
    ("FROM s DEFINE A AS x > 0, B AS y > 0 PATTERN A meets B", "meets B|", ["unexpected end of query", "WITHIN"]),
    ("FROM s PARTITION BY k, k DEFINE A AS x > 0, B AS y > 0 PATTERN A meets B WITHIN 5", "k, |k",
     ["'k' appears twice"]),
])
def test_bad_input(text, marker, words):
    err = _error(text)
    assert (err.line, err.column) == _at(text, marker), str(err)
    for w in words:
        assert w in str(err)


def test_unknown_relation_lists_all_thirteen():
    err = _error(BASE.format(p="A touches B"))
    assert len(err.expected) == 13 and "finished_by" in err.expected


def test_definitions_alone():
    (d,) = parse_definitions("S AS x > 0 BETWEEN 1 AND 3")
    assert (d.at_least, d.at_most) == (Duration(1), Duration(3))
    with pytest.raises(QueryError):
        parse_definitions("S AS x > 0, S AS y > 0")


TOKENS = st.sampled_from(["FROM", "s", "DEFINE", "A", "B", "AS", "x", ">", "0", "AT", "LEAST", "MOST",
                          "BETWEEN", "AND", ",", "PATTERN", "meets", "before", "met-by", ";", "WITHIN",
                          "5", "s", "RETURN", "avg", "(", "A.x", ")", "-", "PARTITION", "BY", "'q'", "€"])


@given(st.lists(TOKENS, max_size=30))
def test_any_text_gives_a_query_or_a_query_error(tokens):
    try:
        parse_tpstream(" ".join(tokens))
    except QueryError as err:
        assert err.line is not None and err.column is not None
