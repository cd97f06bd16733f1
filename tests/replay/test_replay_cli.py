"""Stores, `cepkit replay-plan`, `cepkit replay`, fallbacks on damaged or missing indexes, and the
`cepkit window` subcommands."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from cepkit.cli import main
from cepkit.core.readers import from_pandas
from cepkit.reference.replay.plan import execute, plan, replay
from cepkit.reference.replay.store import ReplayWarning, Store, StoreError, write_store

EX = Path(__file__).resolve().parents[2] / "examples" / "sql"


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def store_dir(tmp_path, capsys):
    d = tmp_path / "store"
    code, _, err = run_cli(capsys, "store", EX / "trades.csv", d, "--block-size", "5", "--index", "p,v")
    assert code == 0, err
    return d


def test_replay_plan_prints_indexes_intervals_and_fraction(store_dir, capsys):
    code, out, err = run_cli(capsys, "replay-plan", EX / "insider.sql", store_dir, "--use", "A")
    assert code == 0, err
    assert "* A@1" in out and "p < 10" in out
    assert "replay intervals (1): [2, 22]" in out
    assert "blocks read: 5 of 6 (83.3%)" in out


def test_replay_plan_full_replay_without_all_matches(tmp_path, store_dir, capsys):
    q = tmp_path / "q.sql"
    q.write_text("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.ts AS a PATTERN (A) DEFINE A AS p < 10)")
    code, out, _ = run_cli(capsys, "replay-plan", q, store_dir)
    assert code == 0 and "plan: full replay (index-based replay needs ALL MATCHES" in out
    assert "blocks read: 6 of 6 (100.0%)" in out


def test_replay_runs_and_matches_full_replay(store_dir, capsys):
    code, out, err = run_cli(capsys, "replay", EX / "insider.sql", store_dir)
    assert code == 0, err
    assert [json.loads(x) for x in out.splitlines()] == [{"a_ts": 2, "b_ts": 3, "d_ts": 8, "waited": 4}]
    assert "index replay read 2 of 6 blocks" in err


@pytest.mark.parametrize("damage", ["corrupt", "missing"])
def test_damaged_index_falls_back_to_full_replay_with_a_warning(store_dir, capsys, damage):
    path = store_dir / "index-p.parquet"
    if damage == "corrupt":
        data = bytearray(path.read_bytes())
        data[len(data) // 2] ^= 0xFF
        path.write_bytes(bytes(data))
    else:
        path.unlink()
    code, out, err = run_cli(capsys, "replay", EX / "insider.sql", store_dir)
    assert code == 0, err
    assert "warning: secondary index on 'p' is unusable" in err and "falling back to full replay" in err
    assert [json.loads(x) for x in out.splitlines()] == [{"a_ts": 2, "b_ts": 3, "d_ts": 8, "waited": 4}]
    assert "full replay read 6 of 6 blocks" in err


def test_python_api_warns_and_answers_like_full_replay(tmp_path):
    frame = pd.DataFrame({"ts": range(40), "p": [i % 7 for i in range(40)]})
    store = write_store(from_pandas(frame, type_col=None, default_type="e"), tmp_path, block_size=4,
                        secondary=["p"])
    q = ("SELECT * FROM s MATCH_RECOGNIZE (ORDER BY ts MEASURES FIRST(A.ts) AS a, LAST(B.ts) AS b ALL MATCHES "
         "PATTERN (A T* B) WITHIN 3 DEFINE A AS p = 0, B AS p = 2)")
    want = execute(plan(q, store, "none"))
    assert want.rows
    (tmp_path / "index-p.parquet").write_bytes(b"garbage")
    with pytest.warns(ReplayWarning, match="unusable"):
        got, p = replay(q, Store(tmp_path))
    assert p.mode == "full" and got.rows == want.rows


def test_not_a_store(tmp_path, capsys):
    with pytest.raises(StoreError):
        Store(tmp_path)
    code, _, err = run_cli(capsys, "replay-plan", EX / "insider.sql", tmp_path)
    assert code == 1 and "not a cepkit store" in err


def test_unknown_variable_in_use(store_dir, capsys):
    code, _, err = run_cli(capsys, "replay-plan", EX / "insider.sql", store_dir, "--use", "Q")
    assert code == 2 and "no usable index for pattern variable 'Q'" in err


def test_window_subcommands(tmp_path, capsys):
    ev = tmp_path / "e.csv"
    ev.write_text("ts,v\n0,2\n1,7\n3,5\n6,3\n7,4\n")
    code, out, _ = run_cli(capsys, "window", "filter", ev, "--where", "v > 3")
    assert code == 0 and [json.loads(x)["ts"] for x in out.splitlines()] == [1, 3, 7]
    code, out, _ = run_cli(capsys, "window", "aggregate", ev, "--attr", "v", "--kind", "count", "--size", "2",
                           "--funcs", "sum,count")
    assert code == 0 and [json.loads(x) for x in out.splitlines()][1] == {"ts": 3, "sum": 12, "count": 2}
    right = tmp_path / "r.csv"
    right.write_text("ts,v\n3,3\n5,6\n")
    left = tmp_path / "l.csv"
    left.write_text("ts,v\n1,1\n2,7\n4,2\n")
    code, out, _ = run_cli(capsys, "window", "join", left, right, "--on", "L.v <= R.v", "--kind", "count",
                           "--size", "2", "--active", "warmup")
    assert code == 0 and [(r["left_v"], r["right_v"], r["ts"]) for r in map(json.loads, out.splitlines())] == [
        (1, 3, 3), (2, 3, 4), (2, 6, 5)]
    code, _, err = run_cli(capsys, "window", "filter", ev, "--where", "v >")
    assert code == 2 and "unexpected end" in err
    code, _, err = run_cli(capsys, "window", "aggregate", ev, "--attr", "v", "--size", "2", "--slide", "3")
    assert code == 2 and "slide" in err


def test_window_aggregate_over_a_store(store_dir, capsys):
    code, out, err = run_cli(capsys, "window", "aggregate", store_dir, "--attr", "v", "--size", "10", "--slide",
                             "10", "--funcs", "sum,max")
    assert code == 0, err
    assert [json.loads(x) for x in out.splitlines()] == [
        {"ts": 10, "sum": 5900, "max": 5000}, {"ts": 20, "sum": 5900, "max": 5000}, {"ts": 30, "sum": 1000, "max": 100}]
    assert "index (C_index" in err
