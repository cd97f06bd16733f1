"""Numbers are numbers (issue 30, item 2; docs/semantics.md SQ-N1): a numeric column that mixes integral and
fractional values computes exactly in every clause, errors name their clause and their input, and a number
compared with a text literal is a query error at the comparison. The answers of every SQL engine are the
conformance cases conformance/cases/sql/numbers.yaml; these are the CLI's side and the evaluator's."""
from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from cepkit.cli import main
from cepkit.core.errors import EventError
from cepkit.front.sql import columnar
from cepkit.front.sql.parse import parse

ISSUE = """SELECT m.id, m.val * 2 AS dbl
FROM {source}
  MATCH_RECOGNIZE (
    ORDER BY id
    MEASURES RUNNING LAST(value) AS val
    ALL ROWS PER MATCH
    PATTERN (A)
  ) AS m
"""


def cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("engine", ["reference", "optimized"])
@pytest.mark.parametrize("form", ["values", "csv"])
def test_the_issues_query_doubles_a_decimal_column(tmp_path, capsys, engine, form):
    """`m.val * 2` over 90.5, 80, 70 was exit 3 ("'*' in the subquery's WHERE needs numbers")."""
    query = tmp_path / "q.sql"
    if form == "values":
        query.write_text(ISSUE.format(source="(VALUES (1, 90.5), (2, 80), (3, 70)) t(id, value)"))
        argv = ["run", query]
    else:
        query.write_text(ISSUE.format(source="t"))
        (tmp_path / "t.csv").write_text("id,value\n1,90.5\n2,80\n3,70\n")
        argv = ["run", query, tmp_path / "t.csv"]
    code, out, err = cli(capsys, *argv, "--engine", engine)
    assert code == 0, err
    assert [json.loads(line) for line in out.splitlines()] == [{"id": 1, "dbl": 181}, {"id": 2, "dbl": 160},
                                                              {"id": 3, "dbl": 140}]


def test_an_error_over_values_names_the_outer_clause_and_the_query(tmp_path, capsys):
    query = tmp_path / "q.sql"
    query.write_text("SELECT m.id, m.label * 2 AS x\n"
                     "FROM (VALUES (1, 90.5), (2, 80)) t(id, value)\n"
                     "  MATCH_RECOGNIZE (ORDER BY id MEASURES CLASSIFIER() AS label ALL ROWS PER MATCH PATTERN (A)) AS m\n")
    code, _, err = cli(capsys, "run", query)
    assert code == 3
    assert f"event error: {query} (its VALUES rows): '*' in the outer SELECT (line 1, column 22 of the query) " \
           "needs numbers" in err, err
    assert "None" not in err and "subquery" not in err


def test_an_error_in_a_subquery_names_it_and_the_file(tmp_path, capsys):
    query = tmp_path / "q.sql"
    query.write_text("SELECT * FROM (SELECT * FROM t WHERE name * 2 > 1) MATCH_RECOGNIZE (ORDER BY id PATTERN (A))")
    events = tmp_path / "t.csv"
    events.write_text("id,name\n1,a\n2,b\n")
    code, _, err = cli(capsys, "run", query, events)
    assert code == 3
    assert f"event error: {events}: '*' in the subquery's WHERE (line 1, column 43 of the query) needs numbers" in err


def _where(text: str):
    return parse(f"SELECT * FROM (SELECT * FROM t WHERE {text}) MATCH_RECOGNIZE (ORDER BY id PATTERN (A))").source.where


def test_the_columnar_evaluator_computes_a_mixed_column_exactly():
    """ints and Fractions in one object column (a decimal column as the evaluator reads it), with a null;
    0.1 * 3 = 0.3 holds exactly (binary floats give 0.30000000000000004)."""
    e = _where("v * 3 = 0.3 OR v * 2 = 181")
    col = np.array([Fraction(181, 2), 80, None, Fraction(1, 10)], dtype=object)
    floats = np.array([90.5, 80.0, np.nan, 0.1])   # the reader's float64 form of the same column
    for given in (col, floats):
        values, null = columnar.evaluate(e, lambda ref: given, 4, "the outer WHERE")
        assert [bool(v) for v, n in zip(values, null) if not n] == [True, False, True]
        assert null.tolist() == [False, False, True, False]


def test_the_columnar_evaluator_refuses_text_mixed_with_numbers_naming_the_clause():
    col = np.array([1, "a"], dtype=object)
    with pytest.raises(EventError, match=r"'\+' in the outer ORDER BY \(line 1, column 40 of the query\) needs numbers"):
        columnar.evaluate(_where("v + 1 > 0"), lambda ref: col, 2, "the outer ORDER BY")
