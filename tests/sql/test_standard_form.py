"""MATCH_RECOGNIZE as users write it (docs/semantics.md SQ-F): the outer SELECT / WHERE / ORDER BY, the
match's alias and column list, WITH / VALUES / subquery inputs, keywords in any case, row order from ORDER
BY alone; the refusals with line and column; `cepkit run` of a query carrying its rows. Expected answers of
Trino's own queries live in conformance/cases/sql/trino_form.yaml; here every engine is compared with the
reference."""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import pandas as pd
import pytest

import cepkit
from cepkit.cli import main
from cepkit.core.errors import EventError, QueryError
from cepkit.front.sql import ast as S
from cepkit.front.sql.parse import parse

V_SHAPE = """SELECT m.id AS row_id, m.match, m.val, m.label
FROM (VALUES (1, 90), (2, 80), (3, 70), (4, 80), (5, 90), (6, 50), (7, 40), (8, 60)) t(id, value)
MATCH_RECOGNIZE (
  ORDER BY id
  MEASURES MATCH_NUMBER() AS match, RUNNING LAST(value) AS val, CLASSIFIER() AS label
  ALL ROWS PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A B+ C+)
  DEFINE B AS B.value < PREV (B.value), C AS C.value > PREV (C.value)
) AS m"""   # the inner query of TF-trino-simple-query: the optimized engine compiles it once


def rows(table) -> list[dict]:
    return [dict(m.payload) for m in table]


def run(query, events=None, engine="reference", **read):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cepkit.run(query, events, engine=engine, read_options=read or None)


# ------------------------------------------------------------------------------------------- parser forms
def test_plain_select_stays_the_engines_select():
    q = parse("select m.x, y from t match_recognize (order by ts measures a.x as x, a.y as y pattern (a)) m")
    assert q.outer is None and q.source is None
    assert [c.col for c in q.select] == ["x", "y"]
    assert parse("SELECT m.* FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A)) AS m").select is None


def test_outer_query_and_inputs_parse():
    q = parse("""with t (a, b) as (values (1, 'x'), (2, 'y')), u AS (SELECT a AS k, b FROM t WHERE a > 0)
                 SELECT m.k kk, m.b AS bb, m.k + 1 FROM u MATCH_RECOGNIZE (ORDER BY k PATTERN (A)) AS m (k, b)
                 WHERE m.k > 0 ORDER BY kk DESC;""")
    assert q.outer.alias == "M" and q.outer.columns == ("k", "b")
    assert [i.name for i in q.outer.items] == ["kk", "bb", None]
    assert q.outer.order_by[0].descending
    assert isinstance(q.source, S.Subquery) and [(i.col, i.name) for i in q.source.items] == [("a", "k"), ("b", "b")]
    assert q.source.input == S.Values(("a", "b"), ((1, "x"), (2, "y")))


@pytest.mark.parametrize("case", [str.lower, str.upper, str.title])
def test_keywords_in_any_case(case):
    text = case(V_SHAPE.replace("m.match", "m.match"))
    assert parse(text).outer is not None


@pytest.mark.parametrize("query, line, column, words", [
    ("SELECT m.id, rank() OVER (ORDER BY m.id) FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A)) m",
     1, 21, "window function (OVER)"),
    ("SELECT * FROM t\nJOIN u ON t.a = u.a MATCH_RECOGNIZE (ORDER BY ts PATTERN (A))", 2, 1, "JOIN"),
    ("SELECT m.x FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.x AS x PATTERN (A)) m\nGROUP BY m.x", 2, 1,
     "GROUP BY"),
    ("SELECT * FROM (VALUES (1, 2), (3, 4, 5)) t(a, b) MATCH_RECOGNIZE (ORDER BY a PATTERN (A))", 1, 31,
     "VALUES row 2 has 3 values"),
    ("SELECT * FROM (VALUES (1, 2)) t(a, b, c) MATCH_RECOGNIZE (ORDER BY a PATTERN (A))", 1, 15,
     "column list names 3 columns"),
    ("SELECT * FROM (VALUES (1, 'a'), ('b', 2)) t(a, b) MATCH_RECOGNIZE (ORDER BY a PATTERN (A))", 1, 33,
     "mixes number (row 1) and text (row 2)"),
    ("SELECT x.id FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.id AS id PATTERN (A)) AS m", 1, 8,
     "unknown qualifier 'X'"),
    ("SELECT x.* FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A)) AS m", 1, 8, "unknown qualifier 'X'"),
    ("SELECT m.id FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.id AS id PATTERN (A)) AS m\n"
     "WHERE CLASSIFIER() = 'A'", 2, 7, "outer WHERE cannot use"),
    ("SELECT * FROM (SELECT a + 1 FROM t) MATCH_RECOGNIZE (ORDER BY ts PATTERN (A))", 1, 23,
     "computed columns are not supported"),
    ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A)) m ORDER BY m.ts NULLS FIRST", 1, 75,
     "NULLS FIRST / LAST"),
])
def test_refusals_name_the_construct_and_position(query, line, column, words):
    with pytest.raises(QueryError) as err:
        parse(query)
    assert words in err.value.message, err.value
    assert (err.value.line, err.value.column) == (line, column), err.value


# ------------------------------------------------------------------------------------------- running
def test_every_engine_agrees_with_the_reference_on_the_outer_forms():
    # the inner query of TF-derived-with-subquery-outer (the optimized engine compiles it once)
    query = """WITH t (name, value) AS (VALUES ('b', 3), ('a', 1), ('c', 2), ('d', 5), ('e', 4))
    SELECT m.name AS who, m.value * 10 ten, m.lbl FROM (SELECT * FROM t WHERE value <> 4) match_recognize (
        order by name
        measures classifier() as lbl
        all rows per match
        pattern (a b+)
        define b as b.value > prev(b.value)
      ) AS m WHERE m.value > 1 ORDER BY ten DESC"""
    want = rows(run(query))
    assert want == [{"who": "d", "ten": 50, "lbl": "B"}, {"who": "b", "ten": 30, "lbl": "B"},
                    {"who": "c", "ten": 20, "lbl": "A"}]
    assert rows(run(query, engine="optimized")) == want
    with pytest.raises(QueryError, match="replay.*VALUES input"):
        run(query, engine="replay")


def test_plain_projection_keeps_the_engines_arrow_columns():
    table = run(V_SHAPE, engine="optimized")
    assert table.to_arrow().column_names[-4:] == ["row_id", "match", "val", "label"]
    assert rows(table) == rows(run(V_SHAPE))


def test_text_order_by_without_ts_and_within_on_an_integer_key(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("name,price\nc,3\na,1\nb,2\n")
    q = "SELECT m.* FROM t MATCH_RECOGNIZE (ORDER BY name MEASURES FIRST(A.name) AS f, COUNT(*) AS n " \
        "PATTERN (A B+) DEFINE B AS B.price > PREV(B.price)) AS m"
    assert rows(run(q, str(path))) == [{"f": "a", "n": 3}]   # ordered as text: a b c, not read as times
    typed = pd.DataFrame({"d": ["2021-01-02", "2021-01-01"], "price": [2, 1]})   # text by type: not times
    q2 = q.replace("ORDER BY name", "ORDER BY d").replace("A.name", "A.d")
    assert rows(run(q2, typed)) == [{"f": "2021-01-01", "n": 2}]
    within = "SELECT m.* FROM t MATCH_RECOGNIZE (ORDER BY k MEASURES COUNT(*) AS n PATTERN (A B+) WITHIN 2 " \
             "DEFINE B AS B.k > PREV(B.k)) AS m"
    frame = pd.DataFrame({"k": [10, 11, 12, 13]})
    assert rows(run(within, frame)) == [{"n": 3}]   # k is the time: 10..12 spans 2, the fourth row is out


def test_values_and_events_are_one_or_the_other(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("ts,id\n1,1\n")
    with pytest.raises(QueryError, match="carries its own rows"):
        run(V_SHAPE, str(path))
    with pytest.raises(QueryError, match="no events"):
        run("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A))")


def test_subquery_where_over_a_file_is_three_valued(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("ts,v\n1,5\n2,\n3,7\n4,1\n")
    q = "SELECT m.v FROM (SELECT ts, v FROM t WHERE NOT v < 3) MATCH_RECOGNIZE (ORDER BY ts " \
        "MEASURES A.v AS v PATTERN (A)) AS m ORDER BY m.v DESC"
    assert rows(run(q, str(path))) == [{"v": 7}, {"v": 5}]   # null: NOT unknown is unknown, the row is dropped
    bad = "SELECT * FROM (SELECT * FROM t WHERE v < 'x') MATCH_RECOGNIZE (ORDER BY ts PATTERN (A))"
    with pytest.raises(QueryError, match="compares a number .column v. with the text 'x'") as err:
        run(bad, str(path))   # Trino refuses it at analysis (docs/semantics.md SQ-N1)
    assert (err.value.line, err.value.column) == (1, 40)


# ------------------------------------------------------------------------------------------- the CLI
def cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_runs_a_query_that_carries_its_rows(capsys):
    example = Path(__file__).resolve().parents[2] / "examples" / "sql" / "trino_v_shape.sql"
    code, out, err = cli(capsys, "run", example)   # Trino's testSimpleQuery, its answer
    assert code == 0, err
    got = [json.loads(line) for line in out.splitlines()]
    assert [tuple(r.values()) for r in got] == [(1, 1, 90, "A"), (2, 1, 80, "B"), (3, 1, 70, "B"), (4, 1, 80, "C"),
                                                (5, 1, 90, "C"), (6, 2, 50, "A"), (7, 2, 40, "B"), (8, 2, 60, "C")]
    assert list(got[0]) == ["id", "match", "val", "label"]


def test_cli_needs_events_otherwise(tmp_path, capsys):
    q = tmp_path / "q.sql"
    q.write_text("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A))")
    code, _, err = cli(capsys, "run", q)
    assert code == 2 and "no events" in err
    s = tmp_path / "q.sase"
    s.write_text("PATTERN SEQ(A a) WITHIN 5")
    code, _, err = cli(capsys, "run", s)
    assert code == 2 and "give the events file" in err


@pytest.mark.parametrize("alias", ["as x", "AS x", "x"])
def test_table_alias_in_any_case(alias):
    q = parse(f"select * from t {alias} match_recognize (order by ts pattern (a)) as m")
    assert q.table == "t" and q.outer is None


def test_star_leaves_out_made_up_ids():
    q = "SELECT m.* FROM (VALUES 3, 1, 2) t(v) MATCH_RECOGNIZE (ORDER BY v MEASURES CLASSIFIER() AS c " \
        "ALL ROWS PER MATCH PATTERN (A B) DEFINE B AS B.v > A.v) AS m"
    assert rows(run(q)) == [{"v": 1, "c": "A"}, {"v": 2, "c": "B"}]


@pytest.mark.parametrize("outer", [
    "SELECT m.k, m.top * 3 - m.k AS x, m.avg_v FROM t {mr} AS m WHERE m.top > 2 OR m.avg_v IS NULL "
    "ORDER BY m.avg_v DESC, x",
    "SELECT m.lbl, m.k * 4611686018427387904 AS big FROM t {mr} AS m WHERE NOT m.lbl = 'B' ORDER BY big",
    "SELECT m.avg_v, m.k FROM t {mr} AS m WHERE m.avg_v > 1.5 AND m.k <> 3 ORDER BY m.lbl DESC, m.k DESC",
])
def test_columnar_outer_step_equals_the_row_by_row_one(outer):
    """reference/sql/outer_arrow.py (column by column) against front.apply_rows (exact values row by row):
    nulls, text, fractions (AVG), integers past 64 bits, both sort directions."""
    from cepkit.reference.sql import front, outer_arrow
    from cepkit.front.sql.outer import Step

    mr = ("MATCH_RECOGNIZE (PARTITION BY p ORDER BY k MEASURES CLASSIFIER() AS lbl, LAST(B.v) AS top, "
          "AVG(B.v) AS avg_v ALL ROWS PER MATCH WITH UNMATCHED ROWS PATTERN (A B+) DEFINE B AS B.v > PREV(B.v))")
    q = parse(outer.format(mr=mr))
    frame = pd.DataFrame({"p": [1, 1, 1, 2, 2, 2, 2, 1], "k": [1, 2, 3, 4, 5, 6, 7, 8],
                          "v": [5, 6, 8, 1, 1, 2, 4, 3]})
    from cepkit.reference.sql.engine import to_table

    inner = cepkit.compile(q.inner, language="sql").run(to_table(frame, q.inner))
    step = Step(q, inner.layout.payload)
    assert outer_arrow.applies(step)
    columnar = outer_arrow.apply(step, inner, front.Layout(inner.layout.variables, step.names))
    rows_ = front.apply_rows(step, inner)
    assert len(rows_) > 0 and columnar.rows() == rows_.rows()
