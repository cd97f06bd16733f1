"""The SASE+ front end: both spellings parse to one AST; every mistake is a QueryError at its position."""
from __future__ import annotations

from fractions import Fraction

import pytest

from cepkit.core.errors import QueryError
from cepkit.front.language import ast as A
from cepkit.front.language import parse
from cepkit.front.language.printer import query_to_text

PAPER_Q3 = ("PATTERN SEQ(Stock+ a[ ], Stock b) WHERE skip_till_next_match(a[ ], b) { [symbol] and "
            "a[1].volume > 1000 and a[i].price > avg(a[..i-1].price) and b.volume < 80%*a[a.LEN].volume } "
            "WITHIN 1 hour")
SASE1 = ("PATTERN SEQ(stock+ a[], stock b) WHERE partition-contiguity AND [symbol] AND a[1].price%500=0 "
         "AND a[i].price>a[i-1].price AND b.volume<150 WITHIN 500")


def test_paper_query3_ast():
    q = parse(PAPER_Q3)
    assert q.strategy is A.Strategy.SKIP_TILL_NEXT_MATCH
    assert [(c.event_type, c.var, c.kleene) for c in q.pattern.components] == [("Stock", "a", True), ("Stock", "b", False)]
    assert q.window == A.Window(1, "h", "time", False)
    items = q.where.items
    assert items[0] == A.EquivTest("symbol")
    assert items[2] == A.Compare(">", A.AttrRef("a", "price", A.Index.CURRENT),
                                 A.Agg("avg", "a", "price", A.AggScope.PREFIX))
    # 80%*x is a percentage, not a modulo
    assert items[3].right == A.BinOp("*", A.Const(Fraction(4, 5)), A.AttrRef("a", "volume", A.Index.LAST))


def test_sase1_query_file_form():
    q = parse(SASE1)
    assert q.strategy is A.Strategy.PARTITION_CONTIGUITY
    assert q.window == A.Window(500, None, "time", False)
    # a[1].price%500=0 is a modulo
    assert q.where.items[1] == A.Compare("=", A.BinOp("%", A.AttrRef("a", "price", A.Index.FIRST), A.Const(500)),
                                         A.Const(0))


@pytest.mark.parametrize("text", [PAPER_Q3, SASE1,
                                  "PATTERN SEQ(Shelf a, ~(Register b), Exit c) WHERE skip_till_next_match(a,b,c) "
                                  "{ [tag_id] } WITHIN 12 hours RETURN a.tag_id AS tag, c.ts",
                                  "pattern(stock+ a[ ], stock b) where skip_till_next_match {[symbol] ∧ "
                                  "a[i].price ≥ max(a[..i-1].price) ∧ not (b.volume >= 150 or b.price = 3)} "
                                  "within 500 events RETURN count(a[].price), sum(a[..a.LEN].price) AS s"])
def test_printing_round_trips(text):
    q = parse(text)
    assert parse(query_to_text(q)) == q


def test_negation_forms_and_positions():
    q = parse("PATTERN SEQ(!(A x), B b, ∼(C y), D+ d[], !(E z)) WHERE skip_till_any_match { }")
    assert [c.negated for c in q.pattern.components] == [True, False, True, False, True]


def test_missing_strategy_defaults_to_skip_till_any_match():
    q = parse("PATTERN SEQ(A a, B b) WHERE a.x > 1")
    assert q.strategy is A.Strategy.SKIP_TILL_ANY_MATCH and q.strategy_defaulted


def _error(text: str) -> QueryError:
    with pytest.raises(QueryError) as info:
        parse(text)
    return info.value


@pytest.mark.parametrize("text, line, column, words", [
    ("PATTERN SEQ(A a, B b)\nWHERE skip_till_any_match { c.x > 1 }", 2, 29, "unknown variable 'c'"),
    ("PATTERN SEQ(A a, B b)\nWHERE skip_till_any_match { a[i].x > 1 }", 2, 29, "not a Kleene variable"),
    ("PATTERN SEQ(A a, B b)\nWHERE skip_till_any_match { avg(a[..i-1].x) > 1 }", 2, 29, "needs a Kleene variable"),
    ("PATTERN SEQ(A+ a[], B b)\nWHERE skip_till_any_match { a.x > 1 }", 2, 29, "is a Kleene variable"),
    ("PATTERN SEQ(A a, B b\nWHERE skip_till_any_match { }", 2, 1, "unexpected 'WHERE'"),
    ("PATTERN SEQ(A a, B b) WHERE skip_till_any_match { (a.x > 1 }", 1, 60, "unexpected '}'"),
    ("PATTERN SEQ(A a, B b) WHERE skip_till_any_match { a.x > 1", 1, 58, "unexpected end of query"),
    ("PATTERN SEQ(A a, B b) WHERE skip_till_nxt_match(a, b) { }", 1, 29, "did you mean skip_till_next_match"),
    ("PATTERN SEQ(A a, B b) WHERE partition-contiguty AND [x]", 1, 29, "did you mean partition_contiguity"),
    ("PATTERN SEQ(A a, B b) WITHIN 5 hourz", 1, 32, "unknown time unit 'hourz'"),
    ("PATTERN SEQ(A a, B b) WITHIN -5 hours", 1, 31, "window must be positive"),
    ("PATTERN SEQ(A a, B b) WITHIN 0", 1, 30, "window must be positive"),
    ("PATTERN SEQ(A a, B a)", 1, 18, "declared twice"),
    ("PATTERN SEQ(A a, B b) WHERE skip_till_any_match { a[7].x > 1 }", 1, 53, "unsupported Kleene index"),
    ("PATTERN SEQ(A+ a[], B b) RETURN a[i].x", 1, 33, "no meaning in RETURN"),
    ("PATTERN SEQ(A a, !(B b)) RETURN b.x", 1, 33, "cannot be returned"),
    ("PATTERN SEQ(!(B b))", 1, 9, "at least one component"),
    ("PATTERN SEQ(A a, B b) WHERE skip_till_any_match { a.x # 1 }", 1, 55, "unexpected character '#'"),
])
def test_query_errors_name_line_and_column(text, line, column, words):
    err = _error(text)
    assert (err.line, err.column) == (line, column), str(err)
    assert words in str(err)
    assert str(err).startswith(f"line {line}, column {column}: ")


def test_syntax_errors_say_what_was_expected():
    err = _error("PATTERN SEQ(A a, B b WHERE skip_till_any_match { }")
    assert "')'" in err.expected and "','" in err.expected
