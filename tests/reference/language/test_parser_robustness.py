"""Whatever text a user writes, the front end answers with an AST or a QueryError, never another exception."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from cepkit import compile
from cepkit.core.errors import QueryError

TOKENS = ["PATTERN", "SEQ", "(", ")", "A", "B+", "a", "b", "a[]", "b[ ]", ",", "!(", "~(", "WHERE", "{", "}",
          "skip_till_next_match", "partition-contiguity", "strict_contiguity(a, b)", "AND", "and", "or", "not",
          "[x]", "a.x", "b.x", "a[1].x", "a[i].x", "a[i-1].x", "a[a.LEN].x", "b[b.LEN].x", "avg(a[..i-1].x)",
          "count(b[].x)", "max(a[].x)", "a.LEN", ">", "<", "=", "!=", ">=", "+", "-", "*", "/", "%", "80%*",
          "1", "0", "2.5", "'s'", "TRUE", "WITHIN", "5", "hours", "EVENTS", "hourz", "-3", "RETURN", "AS", "n",
          "/* c */", "#", "[", "]", ".", "..", "i", "a[7].x"]


@given(st.lists(st.sampled_from(TOKENS), max_size=25))
def test_token_soup_gives_ast_or_query_error(tokens):
    text = " ".join(tokens)
    try:
        compile(text)
    except QueryError as exc:
        assert str(exc)


@given(st.text(max_size=60))
def test_arbitrary_text_gives_ast_or_query_error(text):
    try:
        compile("PATTERN SEQ(A a, B+ b[]) WHERE skip_till_any_match { " + text + " }")
    except QueryError as exc:
        assert str(exc)


@given(st.lists(st.sampled_from(TOKENS[12:48]), min_size=1, max_size=12))
def test_where_clauses_give_ast_or_query_error(tokens):
    try:
        compile("PATTERN SEQ(A a, B+ b[], !(C c)) WHERE skip_till_any_match { " + " ".join(tokens) + " }")
    except QueryError as exc:
        assert str(exc)
