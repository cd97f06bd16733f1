"""The output layout as Trino gives it (docs/semantics.md SQ-L): the CLI prints the columns of every
layout vector (conformance/cases/sql/trino_layout.yaml) in the vector's order, with its rows; the loader's
expected_columns; the refusals the layout brings (a column list after SELECT * of a table, an ORDER BY
column named twice under ALL ROWS PER MATCH)."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from cepkit.cli import main
from cepkit.conformance.sql_loader import load_sql_cases, norm_row
from cepkit.core.errors import QueryError
from cepkit.front.sql.parse import parse

CASES = {c.id: c for c in load_sql_cases() if c.path.endswith("trino_layout.yaml")}
LAYOUT = [c for c in CASES.values() if c.expected_columns is not None and c.events is None]   # VALUES rows
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "sql"


def test_layout_vectors_exist():
    assert len(LAYOUT) >= 20


@pytest.mark.parametrize("case", LAYOUT, ids=str)
def test_cli_prints_the_vectors_columns_in_order(case, tmp_path, capsys):
    query = tmp_path / "q.sql"
    query.write_text(case.query)
    assert main(["run", "--format", "jsonl", "--no-progress", str(query)]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert all(tuple(r) == case.expected_columns for r in rows)
    assert sorted(norm_row(r) for r in rows) == sorted(norm_row(r) for r in case.expected_rows)
    assert main(["run", "--format", "csv", "--no-progress", str(query)]) == 0
    header = next(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert tuple(header) == case.expected_columns


def _jsonl(capsys, *paths) -> list[dict]:
    assert main(["run", "--format", "jsonl", "--no-progress", *map(str, paths)]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]


def test_trinos_docs_example_runs_as_its_vector_says(capsys):
    """examples/sql/trino_orders.sql over orders.csv (ISO dates as the ORDER BY key) is TL-docs-orders-example."""
    case = CASES["TL-docs-orders-example"]
    query = EXAMPLES / "trino_orders.sql"
    text = "\n".join(line for line in query.read_text().splitlines() if not line.startswith("--"))
    assert text.split() == case.query.split()
    rows = _jsonl(capsys, query, EXAMPLES / "orders.csv")
    assert all(tuple(r) == case.expected_columns for r in rows)
    assert sorted(norm_row(r) for r in rows) == sorted(norm_row(r) for r in case.expected_rows)


def test_loader_checks_expected_columns(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("cases:\n  - {id: x, title: t, source: s, origin: sql2016, query: q, events: [{id: 1, ts: 1}],\n"
                   "     expected_columns: [a, b], expected_rows: [{a: 1}]}\n")
    with pytest.raises(ValueError, match="exactly the expected_columns"):
        load_sql_cases(tmp_path)
    bad.write_text("cases:\n  - {id: x, title: t, source: s, origin: sql2016, query: q, events: [{id: 1, ts: 1}],\n"
                   "     expected_columns: [a], expected_matches: []}\n")
    with pytest.raises(ValueError, match="given with expected_rows"):
        load_sql_cases(tmp_path)


def test_column_list_after_star_of_a_table_is_refused_with_position():
    with pytest.raises(QueryError, match="known only when it is read") as exc:
        parse("SELECT * FROM (SELECT * FROM t) u(a, b) MATCH_RECOGNIZE (ORDER BY a PATTERN (A) DEFINE A AS true)")
    assert (exc.value.line, exc.value.column) == (1, 15)


def test_order_by_column_twice_is_refused_only_where_it_is_output():
    one = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts, ts DESC MEASURES CLASSIFIER() AS c {} "
           "PATTERN (A) DEFINE A AS true)")
    parse(one.format("ONE ROW PER MATCH"))
    with pytest.raises(QueryError, match="ORDER BY names column 'ts' twice") as exc:
        parse(one.format("ALL ROWS PER MATCH"))
    assert (exc.value.line, exc.value.column) == (1, 47)


def test_rows_compare_by_value_not_by_column_order():
    """The conformance check pins the order through expected_columns, not through the row mappings."""
    assert norm_row({"a": 1, "b": 2}) == norm_row({"b": 2, "a": 1})
