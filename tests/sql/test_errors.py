"""Every bad MATCH_RECOGNIZE input is a QueryError naming line and column (issue 6, "Bad input")."""
from __future__ import annotations

import pytest

from cepkit.core.errors import QueryError
from cepkit.front.sql import parse
from cepkit.reference.sql import run_rows

HEAD = "SELECT * FROM t MATCH_RECOGNIZE (\n"

STATIC = [
    # the list
    ("undefined variable in MEASURES", "  ORDER BY ts\n  MEASURES X.price AS p\n  PATTERN (A B))",
     (3, 12), "undefined pattern variable 'X'"),
    ("undefined variable in DEFINE", "  PATTERN (A B)\n  DEFINE B AS price > Z.price)", (3, 23),
     "undefined pattern variable 'Z'"),
    ("undefined variable in SUBSET", "  PATTERN (A B)\n  SUBSET U = (A, Q))", (3, 10), "undefined pattern variable 'Q'"),
    ("undefined variable in SKIP", "  AFTER MATCH SKIP TO FIRST Q\n  PATTERN (A B))", (2, 3),
     "undefined pattern variable 'Q'"),
    ("DEFINE of a variable not in PATTERN", "  PATTERN (A)\n  DEFINE B AS price > 1)", (3, 10), "not in PATTERN"),
    ("PREV in PARTITION BY", "  PARTITION BY PREV(k)\n  PATTERN (A))", (2, 16), "PREV is only allowed in DEFINE and MEASURES"),
    ("NEXT in ORDER BY", "  ORDER BY NEXT(ts)\n  PATTERN (A))", (2, 12), "NEXT is only allowed in DEFINE and MEASURES"),
    ("aggregate nesting", "  MEASURES SUM(AVG(A.price)) AS s\n  PATTERN (A+))", (2, 16), "aggregates cannot be nested"),
    ("aggregate in navigation", "  MEASURES LAST(SUM(A.price)) AS s\n  PATTERN (A+))", (2, 17),
     "aggregate is not allowed inside LAST"),
    ("navigation in aggregate", "  MEASURES SUM(PREV(A.price)) AS s\n  PATTERN (A+))", (2, 16),
     "PREV is not allowed inside an aggregate"),
    ("empty-match pattern with ALL MATCHES", "  ORDER BY ts\n  ALL MATCHES CONTIGUOUS\n  PATTERN (A*))", (4, 12),
     "can match no rows"),
    ("empty pattern with ALL MATCHES", "  ORDER BY ts\n  ALL MATCHES\n  PATTERN ())", (4, 11), "can match no rows"),
    # further rules of the standard
    ("PREV nested in PREV", "  PATTERN (A)\n  DEFINE A AS PREV(PREV(price)) > 1)", (3, 20), "cannot be nested"),
    ("two variables in one navigation", "  PATTERN (A B)\n  DEFINE B AS PREV(A.price + B.price) > 1)", (3, 15),
     "same pattern variable"),
    ("FINAL in DEFINE", "  PATTERN (A B)\n  DEFINE B AS FINAL LAST(A.price) > 1)", (3, 15), "FINAL is not allowed in DEFINE"),
    ("MATCH_NUMBER in DEFINE with ALL MATCHES", "  ALL MATCHES\n  PATTERN (A)\n  DEFINE A AS MATCH_NUMBER() > 1)",
     (4, 15), "MATCH_NUMBER() in DEFINE needs ONE ROW or ALL ROWS PER MATCH"),
    ("exclusion with unmatched rows", "  ALL ROWS PER MATCH WITH UNMATCHED ROWS\n  PATTERN (A {- B -}))", (3, 14),
     "cannot be used with ALL ROWS PER MATCH WITH UNMATCHED ROWS"),
    ("SKIP with ALL MATCHES", "  ALL MATCHES AFTER MATCH SKIP TO NEXT ROW\n  PATTERN (A B))", (2, 15),
     "cannot be combined with ALL MATCHES"),
    ("anchor with ALL MATCHES", "  ALL MATCHES\n  PATTERN (^ A))", (3, 12), "anchors"),
    ("WITHIN without ORDER BY", "  PATTERN (A B) WITHIN 5)", (2, 17), "WITHIN needs ORDER BY"),
    ("bad quantifier bounds", "  PATTERN (A{3,2}))", (2, 13), "upper bound is below"),
    ("SUM(*)", "  MEASURES SUM(*) AS s\n  PATTERN (A))", (2, 12), "only COUNT takes *"),
    ("PREV with RUNNING", "  MEASURES RUNNING PREV(A.price) AS s\n  PATTERN (A))", (2, 12), "not PREV"),
    ("duplicate measure", "  MEASURES A.price AS s, A.price AS S\n  PATTERN (A))", (2, 26), "defined twice"),
    ("duplicate DEFINE", "  PATTERN (A)\n  DEFINE A AS price > 1, A AS price > 2)", (3, 26), "defined twice"),
    ("SUBSET name clash", "  PATTERN (A B)\n  SUBSET A = (B))", (3, 10), "already a pattern variable"),
    ("unknown time unit", "  ORDER BY ts\n  PATTERN (A) WITHIN 3 fortnights)", (3, 24), "unknown time unit"),
    ("syntax error", "  PATTERN (A B\n  DEFINE A AS price > 1)", (3, 3), "unexpected 'DEFINE'"),
    ("unknown character", "  PATTERN (A # B))", (2, 14), "unexpected character '#'"),
    ("truncated query", "  PATTERN (A B)", (2, 16), "unexpected end of query"),
]


@pytest.mark.parametrize("name,body,where,message", STATIC, ids=[c[0] for c in STATIC])
def test_static_errors(name, body, where, message):
    with pytest.raises(QueryError) as info:
        parse(HEAD + body)
    assert message in info.value.message
    assert (info.value.line, info.value.column) == where, str(info.value)


RUNTIME = [
    ("PARTITION BY column not in the table", "  PARTITION BY sym\n  ORDER BY ts\n  PATTERN (A))", (2, 16),
     "column 'sym' is not in the table"),
    ("ORDER BY column not in the table", "  ORDER BY time\n  PATTERN (A))", (2, 12), "column 'time'"),
    ("measure column not in the table", "  ORDER BY ts\n  MEASURES A.nope AS x\n  PATTERN (A))", (3, 12),
     "column 'nope'"),
    ("DEFINE column not in the table", "  ORDER BY ts\n  PATTERN (A)\n  DEFINE A AS nope > 1)", (4, 15),
     "column 'nope'"),
    ("WITHIN with a unit over unit-less timestamps", "  ORDER BY ts\n  PATTERN (A) WITHIN 3 MINUTES)", (3, 15),
     "needs the time unit"),
    ("SKIP TO a variable absent from the match", "  ORDER BY ts\n  AFTER MATCH SKIP TO LAST B\n  PATTERN (A B?))",
     (3, 3), "has no row of B"),
]


@pytest.mark.parametrize("name,body,where,message", RUNTIME, ids=[c[0] for c in RUNTIME])
def test_errors_found_when_binding_the_table(name, body, where, message):
    with pytest.raises(QueryError) as info:
        run_rows(HEAD + body, ["ts", "price"], [{"ts": 1, "price": 2}, {"ts": 2, "price": 3}])
    assert message in info.value.message
    assert (info.value.line, info.value.column) == where, str(info.value)


def test_select_of_an_unknown_column():
    with pytest.raises(QueryError) as info:
        run_rows("SELECT nope FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A))", ["ts"], [{"ts": 1}])
    assert (info.value.line, info.value.column) == (1, 8)


@pytest.mark.parametrize("measure,bad", [("SUM(A.x)", True), ("PREV(x) * 2", True), ("COUNT(A.x) + 1", False),
                                         ("LAST(x)", False)])
def test_text_where_a_number_is_needed_is_an_event_error_with_row_and_column(measure, bad):
    from cepkit.core.errors import EventError

    q = f"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES {measure} AS s PATTERN (A+))"
    rows = [{"ts": 1, "x": 1}, {"ts": 2, "x": "a"}]
    if bad:
        with pytest.raises(EventError) as info:
            run_rows(q, ["ts", "x"], rows)
        assert (info.value.row, info.value.column) == (2, "x")
    else:
        assert len(run_rows(q, ["ts", "x"], rows).rows) == 1


def test_a_chain_of_600_with_names_is_a_query_error_not_a_traceback():
    """600 WITH names, each reading the one before: the front end's recursion runs out before the depth check
    (a RecursionError traceback, issue 30); it is a QueryError with line and column."""
    from cepkit.core.errors import QueryError
    from cepkit.front.sql import parse

    names = ["t0 AS (SELECT * FROM ticker)"] + [f"t{i} AS (SELECT * FROM t{i - 1})" for i in range(1, 600)]
    text = ("WITH " + ", ".join(names) + " SELECT * FROM t599 MATCH_RECOGNIZE (ORDER BY ts MEASURES A.price AS p "
            "ONE ROW PER MATCH PATTERN (A B) DEFINE B AS price < PREV(price))")
    with pytest.raises(QueryError, match="nests too deeply|nested more than") as raised:
        parse(text)
    assert raised.value.line and raised.value.column
