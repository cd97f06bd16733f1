"""`cepkit run` on TPStream queries: the aggressive-driver example with and without --early, formats, errors."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from cepkit.cli import main
from tests.cepkit.test_cli import jsonl, run_cli

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples" / "tpstream"
QUERY = EX / "aggressive_drivers.tps"
CARS = EX / "car_sensors.csv"




def _key(m: dict) -> tuple:
    return (json.dumps(m["partition"], sort_keys=True), tuple(sorted((n, v[0]) for n, v in m["situations"].items())))


def test_aggressive_drivers_same_matches_earlier_or_equal_with_early(capsys):
    code, out, err = run_cli(capsys, "run", QUERY, CARS, "--ts-unit", "s")
    assert code == 0, err
    exact = {_key(m): m for m in jsonl(out)}
    code, out, err = run_cli(capsys, "run", QUERY, CARS, "--ts-unit", "s", "--early")
    assert code == 0, err
    assert "early mode" in err
    early = {_key(m): m for m in jsonl(out)}
    assert exact and set(exact) == set(early)
    for k, m in exact.items():
        assert m["ts"] == max(te for _ts, te in m["situations"].values())  # Def 5.7: the largest end time
        assert early[k]["ts"] <= m["ts"]
        assert m["id"] == m["partition"]["car_id"]
    assert any(early[k]["ts"] < m["ts"] for k, m in exact.items())


def test_cli_equals_brute_force_on_a_prefix(tmp_path, capsys):
    cut = tmp_path / "cars.csv"
    frame = pd.read_csv(CARS)
    frame[frame.ts < 100].to_csv(cut, index=False)
    results = []
    for engine in ("reference", "brute"):
        for early in ((), ("--early",)):
            code, out, err = run_cli(capsys, "run", QUERY, cut, "--ts-unit", "s", "--engine", engine, *early)
            assert code == 0, err
            results.append(jsonl(out))
    assert results[0] == results[2] and results[1] == results[3]
    assert results[0]


@pytest.mark.parametrize("fmt", ["csv", "table", "parquet"])
def test_formats(tmp_path, capsys, fmt):
    out_path = tmp_path / f"out.{fmt}"
    code, out, err = run_cli(capsys, "run", QUERY, CARS, "--ts-unit", "s", "--format", fmt, "--output", out_path)
    assert code == 0, err
    table = pd.read_parquet(out_path) if fmt == "parquet" else None
    if fmt == "csv":
        table = pd.read_csv(out_path)
    if table is not None:
        assert list(table.columns) == ["car_id", "A_ts", "A_te", "B_ts", "B_te", "C_ts", "C_te", "ts", "id",
                                       "avg_speed"]
    else:
        assert "avg_speed" in out_path.read_text()


def test_language_flag_and_suffix(tmp_path, capsys):
    q = tmp_path / "q.txt"
    q.write_text(QUERY.read_text())
    code, _out, err = run_cli(capsys, "run", q, CARS, "--ts-unit", "s", "--language", "tpstream")
    assert code == 0, err
    code, out, err = run_cli(capsys, "run", q, CARS, "--ts-unit", "s")  # no known suffix: found from the text
    assert code == 0 and "tpstream" in err, err
    code, _out, err = run_cli(capsys, "run", q, CARS, "--ts-unit", "s", "--language", "sase")  # as SASE+
    assert code == 2


def _write(tmp_path, text: str, rows: list[dict]) -> tuple[Path, Path]:
    q = tmp_path / "q.tps"
    q.write_text(text)
    ev = tmp_path / "ev.csv"
    pd.DataFrame(rows).to_csv(ev, index=False)
    return q, ev


ROWS = [{"ts": 1, "car": 1, "x": 0, "y": 0}, {"ts": 2, "car": 1, "x": 1, "y": 0}, {"ts": 3, "car": 1, "x": 0, "y": 1}]


@pytest.mark.parametrize("text, rows, extra, code, words", [
    ("FROM s DEFINE A AS x > 0, B AS y > 0\nPATTERN A overlap B WITHIN 5", ROWS, (), 2,
     ["line 2, column 11", "did you mean 'overlaps'"]),
    ("FROM s DEFINE A AS x > 0, B AS w > 0 PATTERN A meets B WITHIN 5", ROWS, (), 3,
     ["missing attribute column 'w'", "the condition of B"]),
    ("FROM s DEFINE A AS x > 0, B AS y > 0 PATTERN A meets B WITHIN 5 s", ROWS, (), 2,
     ["needs the unit of the event timestamps"]),
    ("FROM s DEFINE A AS x > 0, B AS y > 0 PATTERN A meets B WITHIN 5", ROWS, ("--ts-unit", "s"), 2,
     ["has no time unit"]),
    ("FROM s PARTITION BY car DEFINE A AS x > 0, B AS y > 0 PATTERN A meets B WITHIN 5",
     ROWS + [{"ts": 3, "car": 1, "x": 0, "y": 0}], (), 3, ["row 4", "column 'ts'", "share timestamp 3"]),
    ("FROM s DEFINE A AS x > 0, B AS y > 0 PATTERN A meets B WITHIN 5", ROWS, ("--engine", "nfab"), 2,
     ["cannot run TPStream"]),
])
def test_errors(tmp_path, capsys, text, rows, extra, code, words):
    q, ev = _write(tmp_path, text, rows)
    got, _out, err = run_cli(capsys, "run", q, ev, *extra)
    assert got == code, err
    for w in words:
        assert w in err
    assert "Traceback" not in err


def test_brute_refuses_long_inputs_and_device_needs_gpu(capsys):
    """brute's event limit comes from its program (at feed): a bound, exit 4 as the SASE brute-force engine's
    (exit 1 before: the fuzz, seed 12); --device is for --engine gpu only."""
    code, out, err = run_cli(capsys, "run", QUERY, CARS, "--ts-unit", "s", "--engine", "brute")
    assert code == 4 and out == ""
    assert "engine 'brute' enumerates every configuration and takes at most 300 events (got 720)" in err
    code, _out, err = run_cli(capsys, "run", QUERY, CARS, "--ts-unit", "s", "--device", "0")
    assert code == 2 and "--device chooses the OpenCL device of --engine gpu" in err


def test_written_from_the_match_table(tmp_path, capsys):
    """Without PARTITION BY no "partition" key; an ongoing situation's end (early output) is null; every
    time in the run's form; csv: NAME_ts, NAME_te, ts, RETURN values."""
    q, ev = _write(tmp_path, "FROM s DEFINE A AS x > 0, B AS y > 0 PATTERN A overlaps B WITHIN 10 seconds "
                   "RETURN sum(A.x) AS total",
                   [{"ts": t, "x": x, "y": y} for t, x, y in [(1, 0, 0), (2, 1, 0), (3, 1, 1), (4, 0, 1), (5, 0, 0)]])
    code, out, err = run_cli(capsys, "run", q, ev, "--early", "--ts-unit", "s", "--ts-format", "%H:%M:%S")
    assert code == 0, err
    assert out == ('{"situations": {"A": ["00:00:02", "00:00:04"], "B": ["00:00:03", null]}, "ts": "00:00:04", '
                   '"total": 2}\n')
    assert "1 matches from 5 events" in err and "(tpstream, early mode, engine optimized; whole input read:" in err   # the default: the fastest
    code, out, err = run_cli(capsys, "run", q, ev, "--ts-unit", "s", "--format", "csv")
    assert code == 0, err
    assert out == "A_ts,A_te,B_ts,B_te,ts,total\n2,4,3,5,5,2\n"
