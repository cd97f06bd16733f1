"""The MATCH_RECOGNIZE parser: clause forms, quantifiers, names, and text round trips."""
from __future__ import annotations

import pytest

from cepkit.front.sql import ast as S
from cepkit.front.sql import parse
from cepkit.reference.sql import run_rows
from cepkit.front.sql.printer import pattern_text


def mr(body: str) -> S.MatchRecognize:
    return parse(f"SELECT * FROM t MATCH_RECOGNIZE ({body})")


@pytest.mark.parametrize("text,low,high,reluctant", [
    ("A*", 0, None, False), ("A+?", 1, None, True), ("A??", 0, 1, True), ("A{3}", 3, 3, False),
    ("A{2,}", 2, None, False), ("A{,4}", 0, 4, False), ("A{1,4}?", 1, 4, True)])
def test_quantifiers(text, low, high, reluctant):
    q = mr(f"PATTERN ({text})")
    assert q.pattern == S.PQuant(S.PVar("A"), low, high, reluctant)


def test_defaults():
    q = mr("PATTERN (A)")
    assert (q.rows, q.empty, q.skip.mode, q.strategy, q.within) == ("one", "show", "past_last", None, None)


@pytest.mark.parametrize("clause,mode,var", [
    ("AFTER MATCH SKIP PAST LAST ROW", "past_last", None), ("AFTER MATCH SKIP TO NEXT ROW", "next_row", None),
    ("AFTER MATCH SKIP TO FIRST b", "first", "B"), ("AFTER MATCH SKIP TO LAST B", "last", "B"),
    ("AFTER MATCH SKIP TO B", "last", "B")])
def test_skip_modes(clause, mode, var):
    q = mr(f"{clause} PATTERN (A B)")
    assert (q.skip.mode, q.skip.var) == (mode, var)


@pytest.mark.parametrize("clause,rows,empty,strategy", [
    ("ONE ROW PER MATCH", "one", "show", None), ("ALL ROWS PER MATCH", "all", "show", None),
    ("ALL ROWS PER MATCH OMIT EMPTY MATCHES", "all", "omit", None),
    ("ALL ROWS PER MATCH WITH UNMATCHED ROWS", "all", "unmatched", None),
    ("ALL MATCHES", "all_matches", "show", "contiguous"),
    ("ALL MATCHES SKIP_TILL_ANY_MATCH", "all_matches", "show", "skip_till_any")])
def test_rows_per_match(clause, rows, empty, strategy):
    q = mr(f"ORDER BY ts {clause} PATTERN (A B)")
    assert (q.rows, q.empty, q.strategy) == (rows, empty, strategy)


def test_within_forms_and_unparenthesized_pattern():
    q = parse("select * from t match_recognize (order by ts pattern A T* B within interval '30' minute "
              "define a as x = 1) as m;")
    assert q.within == S.Within(30, "min")
    assert pattern_text(q.pattern) == "A T* B"
    assert mr("ORDER BY ts PATTERN (A) WITHIN 5 EXCLUSIVE").within == S.Within(5, None, True)


def test_names_keywords_comments_and_quotes():
    q = parse('SELECT * FROM t MATCH_RECOGNIZE ( -- a comment\n ORDER BY ts\n'
              ' MEASURES LAST(A.last) AS x, A.count AS c, "b".v AS y\n'
              ' PATTERN (a "b") DEFINE a AS value > 0, "b" AS name = \'it\'\'s\')')
    assert [v.name for v in (q.pattern.items)] == ["A", "b"]
    table = run_rows(q, ["ts", "last", "count", "value", "v", "name"],
                     [{"ts": 1, "last": 5, "count": 2, "value": 1, "v": 0, "name": "x"},
                      {"ts": 2, "last": 6, "count": 3, "value": 0, "v": 7, "name": "it's"}])
    assert table.records() == [{"x": 5, "c": 2, "y": 7}]


def test_subset_permute_exclusion_anchor_nodes():
    q = mr("PATTERN (^ PERMUTE(A, B) {- C -} $) SUBSET U = (A, B)")
    assert isinstance(q.pattern.items[0], S.PAnchor) and isinstance(q.pattern.items[1], S.PPermute)
    assert isinstance(q.pattern.items[2], S.PExclude) and q.subset_map == {"U": ("A", "B")}


def test_long_match_needs_no_deep_recursion():
    # 20000 rows: far more than Python's default recursion depth (the VM advances threads row by row)
    rows = [{"ts": i, "v": i % 5} for i in range(20000)]
    table = run_rows("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES COUNT(*) AS n PATTERN (A+) "
                     "DEFINE A AS v >= 0)", ["ts", "v"], rows)
    assert table.records() == [{"n": 20000}]
