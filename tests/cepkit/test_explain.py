"""`cepkit explain` for every language: each file is read in its own language, never as SASE+."""
from __future__ import annotations

from pathlib import Path

import pytest

from cepkit.cli import main

EX = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize("query, expect", [
    ("query3.sase", ["-- NFA^b", "-- engines (sase)", "optimized"]),
    ("sase1_stock.query", ["-- NFA^b", "partition_contiguity"]),
    ("sql/v_shape.sql", ["-- row-pattern program", "match A", "split", "done", "-- engines (sql)"]),
    ("tpstream/aggressive_drivers.tps", ["TPQuery", "SituationDef(name='A')", "-- engines (tpstream)"]),
    ("afa/q1.afa.yaml", ["-- AFA Q1", "arc a0: q0 -> q1", "fence e.change < -p.delta", "-- engines (afa)"]),
])
def test_explain_every_language(query, expect, capsys):
    assert main(["explain", str(EX / query)]) == 0
    out = capsys.readouterr().out
    for text in expect:
        assert text in out, (text, out[:2000])


def test_explain_reports_errors_of_the_right_language(tmp_path, capsys):
    bad = tmp_path / "bad.sql"
    bad.write_text("SELECT * FROM t MATCH_RECOGNIZE (\n  ORDER BY ts\n  PATTERN (A B\n)")
    assert main(["explain", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "line 4" in err and "SEQ" not in err


def test_explain_finds_the_language_from_the_text(tmp_path, capsys):
    q = tmp_path / "query.txt"
    q.write_text((EX / "sql/v_shape.sql").read_text())
    assert main(["explain", str(q)]) == 0
    assert "-- row-pattern program" in capsys.readouterr().out


def test_window_queries_run_and_explain_through_the_one_dispatch(tmp_path, capsys):
    """A .win FILTER / AGGREGATE query under `cepkit run` prints what `cepkit window` prints."""
    trades = str(EX / "sql" / "trades.csv")
    for query, flags in (("big_trades.win", ["filter", trades, "--where", "p > 50 OR v > 1000"]),
                         ("volume.win", ["aggregate", trades, "--attr", "v", "--kind", "count", "--size", "5",
                                         "--funcs", "sum,avg"])):
        assert main(["run", str(EX / "sql" / query), trades, "--format", "csv"]) == 0
        ran = capsys.readouterr().out
        assert main(["window", *flags, "--format", "csv"]) == 0
        assert ran == capsys.readouterr().out and ran.count("\n") > 2
    assert main(["explain", str(EX / "sql" / "volume.win")]) == 0
    assert "WindowQuery(operator='aggregate'" in capsys.readouterr().out
    join = tmp_path / "j.win"
    join.write_text("JOIN ON L.v = R.v WINDOW COUNT 4\n")
    assert main(["run", str(join), trades]) == 2
    assert "cepkit window join" in capsys.readouterr().err


def test_explain_is_the_same_under_every_hash_seed():
    """A set in the AST (a TPStream constraint's relations) is printed sorted, not in hash order."""
    import os
    import subprocess
    import sys

    outs = set()
    for seed in ("0", "1", "2", "3"):
        done = subprocess.run([sys.executable, "-m", "cepkit", "explain", str(EX / "tpstream" / "aggressive_drivers.tps")],
                              capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONHASHSEED": seed})
        assert done.returncode == 0, done.stderr
        assert "relations=frozenset({'during', 'meets', 'overlaps', 'starts'})" in done.stdout
        outs.add(done.stdout)
    assert len(outs) == 1
