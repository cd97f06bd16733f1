"""`cepkit run Q.sql --engine E`: the rows come from the chosen engine's program (issue 19), and the
optimized engine writes exactly what the reference writes (differential: the reference is the oracle)."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import cepkit.reference.sql.run as sql_run
from cepkit.cli import main

EX = Path(__file__).resolve().parents[2] / "examples" / "sql"


@pytest.fixture()
def reference_calls(monkeypatch):
    """How many times the reference matcher (cepkit.reference.sql.run.run_rows) ran."""
    calls = []
    real = sql_run.run_rows

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(sql_run, "run_rows", counted)
    return calls


def _tables(tmp_path):
    """The ticker with an `id` column last and datetimes for ts (the columns' order and the time form)."""
    t = pd.read_csv(EX / "ticker.csv")
    t["id"] = [100 + 3 * k for k in range(len(t))]
    t.to_csv(tmp_path / "tick_id.csv", index=False)
    t["ts"] = [f"2024-03-01T09:00:{int(x):02d}.5Z" for x in t["ts"]]
    t.to_csv(tmp_path / "tick_dt.csv", index=False)
    q = tmp_path / "outer.sql"   # an outer query over an ALL ROWS table: renamed ts, computed column, WHERE
    q.write_text("SELECT m.s, m.t, m.price * 2 AS p2 FROM (SELECT symbol, ts, price, id FROM ticker WHERE price > 4) "
                 "MATCH_RECOGNIZE (PARTITION BY symbol ORDER BY ts MEASURES CLASSIFIER() AS var ALL ROWS PER MATCH "
                 "PATTERN (A B+ C+) DEFINE B AS B.price < PREV(B.price), C AS C.price > PREV(C.price)) "
                 "AS m (s, t, var, price, id) WHERE m.var <> 'A' ORDER BY m.t DESC")
    return tmp_path


CASES = [  # (query, events or None, extra arguments)
    ("v_shape.sql", "ticker.csv", ()),                             # ONE ROW PER MATCH
    ("v_shape_all_rows.sql", "ticker.csv", ("--limit", "4")),      # ALL ROWS PER MATCH, the first 4 rows
    ("v_shape_all_rows.sql", "tick_id.csv", ()),                   # the table's own id, in its place
    ("v_shape.sql", "tick_dt.csv", ("--ts-format", "iso")),        # timestamp measures in the time form
    ("crimes_listing31.sql", "crimes.csv", ("--ts-unit", "min")),  # ALL MATCHES with WITHIN
    ("trino_v_shape.sql", None, ()),                               # Trino's form: VALUES, no events
    ("outer.sql", "tick_id.csv", ()),                              # the outer query
]


def _run(capsys, query, events, extra, fmt, engine):
    argv = ["run", str(query)] + ([str(events)] if events else []) + ["--format", fmt, "--engine", engine, *extra]
    code = main(argv)
    out = capsys.readouterr()
    assert code == 0, out.err
    summary = out.err.strip().splitlines()[-1]
    return out.out, summary


@pytest.mark.parametrize("query, events, extra", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_optimized_writes_the_references_rows(tmp_path, capsys, reference_calls, query, events, extra):
    here = _tables(tmp_path)
    qpath = here / query if query == "outer.sql" else EX / query
    epath = None if events is None else (here / events if (here / events).exists() else EX / events)
    for fmt in ("jsonl", "csv"):
        before = len(reference_calls)
        want, want_summary = _run(capsys, qpath, epath, extra, fmt, "reference")
        assert len(reference_calls) > before   # the reference engine's program is the reference matcher
        got, summary = _run(capsys, qpath, epath, extra, fmt, "optimized")
        assert len(reference_calls) == before + 1   # the optimized run did not call it
        assert got == want and want
        assert "engine optimized" in summary
        assert summary.split(" in ")[0] == want_summary.split(" in ")[0]   # "N rows from M events"


def test_replay_runs_from_a_table(capsys):
    """The replay engine reads a store written for the table; its rows are the reference's."""
    want, _ = _run(capsys, EX / "v_shape.sql", EX / "ticker.csv", (), "jsonl", "reference")
    got, summary = _run(capsys, EX / "v_shape.sql", EX / "ticker.csv", (), "jsonl", "replay")
    assert got == want and "engine replay" in summary


def test_replay_refuses_what_a_store_cannot_hold(capsys):
    """VALUES (the front step's refusal, with its position) and a table timed by another column than ts."""
    code = main(["run", str(EX / "trino_v_shape.sql"), "--engine", "replay"])
    err = capsys.readouterr().err
    assert code == 2 and "engine 'replay' does not support VALUES input" in err and "line 5" in err
    code = main(["run", str(EX / "trino_orders.sql"), str(EX / "orders.csv"), "--engine", "replay"])
    err = capsys.readouterr().err
    assert code == 2 and "engine 'replay' does not support a table whose timestamp column is" in err
