"""Whatever a user writes, MATCH_RECOGNIZE answers with rows or a QueryError / EventError (never another
exception): token soups in every clause, arbitrary text, and valid queries over messy tables."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cepkit.core.errors import EventError, QueryError
from cepkit.front.sql import parse
from cepkit.reference.sql import run_rows

HEAD = "SELECT * FROM t MATCH_RECOGNIZE ("
CLAUSE_TOKENS = ["PARTITION BY", "ORDER BY", "MEASURES", "ONE ROW PER MATCH", "ALL ROWS PER MATCH", "ALL MATCHES",
                 "AFTER MATCH SKIP", "TO NEXT ROW", "PAST LAST ROW", "TO FIRST", "PATTERN", "DEFINE", "SUBSET",
                 "WITHIN", "EXCLUSIVE", "AS", "(", ")", ",", "A", "B", "x", "ts", "A.x", "B.x", "*", "+", "?", "|",
                 "{", "}", "{-", "-}", "^", "$", "1", "2.5", "'s'", "PREV(", "NEXT(", "FIRST(", "LAST(",
                 "CLASSIFIER()", "MATCH_NUMBER()", "COUNT(*)", "SUM(", "AVG(", "RUNNING", "FINAL", "=", "<", ">=",
                 "AND", "OR", "NOT", "IS NULL", "BETWEEN", "PERMUTE(", "=", "minutes", "INTERVAL", "-- c\n", "#"]


@given(st.lists(st.sampled_from(CLAUSE_TOKENS), max_size=30))
def test_token_soup_gives_ast_or_query_error(tokens):
    try:
        parse(HEAD + " ".join(tokens) + ")")
    except QueryError as exc:
        assert str(exc) and exc.line is not None


@given(st.text(max_size=60))
def test_arbitrary_text_gives_ast_or_query_error(text):
    try:
        parse(HEAD + "ORDER BY ts PATTERN (A B*) DEFINE B AS " + text + ")")
    except QueryError as exc:
        assert str(exc)


values = st.one_of(st.none(), st.integers(-3, 3), st.sampled_from(["a", "b", "3"]), st.booleans(),
                   st.fractions(max_denominator=3, min_value=-2, max_value=2))
EXPRS = ["x", "A.x", "PREV(x)", "NEXT(A.x, 2)", "FIRST(B.x)", "LAST(x, 1)", "x + 1", "x / A.x", "-x", "x % 2",
         "SUM(B.x)", "AVG(x)", "MIN(B.x)", "MAX(x)", "COUNT(*)", "CLASSIFIER()", "'a'", "NULL"]


@settings(deadline=None, max_examples=max(50, settings().max_examples // 4))
@given(st.lists(st.fixed_dictionaries({"x": values, "k": values}), max_size=8), st.sampled_from(EXPRS),
       st.sampled_from(EXPRS), st.sampled_from(["<", "=", ">=", "!="]),
       st.sampled_from(["ONE ROW PER MATCH", "ALL ROWS PER MATCH WITH UNMATCHED ROWS",
                        "ALL MATCHES SKIP_TILL_ANY_MATCH"]), st.booleans())
def test_valid_queries_over_messy_tables(rows, left, right, op, mode, partition):
    for i, r in enumerate(rows):
        r["ts"] = i
    define_right = right if right not in ("CLASSIFIER()",) else "'B'"
    query = (f"SELECT * FROM t MATCH_RECOGNIZE ({'PARTITION BY k ' if partition else ''}ORDER BY ts "
             f"MEASURES {left} AS m1, {right} AS m2 {mode} PATTERN (A B* C?) "
             f"DEFINE B AS {left} {op} {define_right}, C AS x IS NOT NULL)")
    try:
        table = run_rows(query, ["ts", "x", "k"], rows)
    except (QueryError, EventError) as exc:
        assert str(exc)
    else:
        assert all(len(r) == len(table.columns) for r in table.rows)
