"""`cepkit run Q.sql TABLE`: ONE ROW and ALL ROWS output, formats, table binding, exit codes."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from cepkit.cli import main

EX = Path(__file__).resolve().parents[2] / "examples" / "sql"


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_one_row_per_match_jsonl(capsys):
    code, out, err = run_cli(capsys, "run", EX / "v_shape.sql", EX / "ticker.csv")
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert [(r["symbol"], r["start_ts"], r["end_ts"], r["match_no"]) for r in rows] == [
        ("ACME", 1, 5, 1), ("ACME", 6, 8, 2), ("GLOBEX", 1, 3, 1)]
    assert "3 rows from 11 events" in err and "ONE ROW PER MATCH" in err


def test_all_rows_per_match_csv(tmp_path, capsys):
    out_path = tmp_path / "out.csv"
    code, _, err = run_cli(capsys, "run", EX / "v_shape_all_rows.sql", EX / "ticker.csv", "--format", "csv",
                           "--output", out_path)
    assert code == 0, err
    df = pd.read_csv(out_path)
    assert list(df.columns) == ["symbol", "ts", "var", "match_no", "rows_so_far", "match_rows", "price"]
    assert df["var"].tolist() == list("ABBCCABCABC")
    assert df["match_rows"].tolist() == [5] * 5 + [3] * 3 + [3] * 3


def test_parquet_table_and_ts_unit(tmp_path, capsys):
    out_path = tmp_path / "out.parquet"
    code, _, err = run_cli(capsys, "run", EX / "crimes_listing31.sql", EX / "crimes.csv", "--ts-unit", "min",
                           "--format", "parquet", "--output", out_path)
    assert code == 0, err
    assert pd.read_parquet(out_path).to_dict("records") == [
        {"a_id": 1, "b_id": 3, "c_id": 5}, {"a_id": 7, "b_id": 8, "c_id": 9}]


def test_table_without_ts_column_orders_by_its_own_key(tmp_path, capsys):
    (tmp_path / "t.csv").write_text("seq,v\n3,5\n1,1\n2,2\n")
    q = tmp_path / "q.sql"
    q.write_text("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY seq MEASURES COUNT(*) AS n, LAST(A.seq) AS s "
                 "PATTERN (A+))")
    code, out, err = run_cli(capsys, "run", q, tmp_path / "t.csv")
    assert code == 0, err
    assert [json.loads(line) for line in out.splitlines()] == [{"n": 3, "s": 3}]


def test_query_error_exit_2_with_position(tmp_path, capsys):
    q = tmp_path / "q.sql"
    q.write_text("SELECT * FROM t MATCH_RECOGNIZE (\n  PARTITION BY nope\n  ORDER BY ts\n  PATTERN (A))")
    code, _, err = run_cli(capsys, "run", q, EX / "ticker.csv")
    assert code == 2
    assert "line 2, column 16" in err and "nope" in err


def test_event_error_exit_3(tmp_path, capsys):
    (tmp_path / "t.csv").write_text("ts,v\n1,2\nx,3\n")
    q = tmp_path / "q.sql"
    q.write_text("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (A))")
    code, _, err = run_cli(capsys, "run", q, tmp_path / "t.csv")
    assert code == 3
    assert "column 'ts'" in err


def test_other_engines_are_refused(capsys):
    code, _, err = run_cli(capsys, "run", EX / "v_shape.sql", EX / "ticker.csv", "--engine", "brute")
    assert code == 2 and "cannot run MATCH_RECOGNIZE" in err
