"""Readable results (issue 18 item 2): timestamps in the input's form, --ts-format, every language and output
format (docs/semantics.md TS-1..TS-3)."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from tests.cepkit.test_cli import jsonl, run_cli

from cepkit.cli import main

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
SASE = "PATTERN SEQ(A a, B b)\nRETURN a.v AS av\n"




@pytest.fixture
def query(tmp_path) -> Path:
    p = tmp_path / "q.sase"
    p.write_text(SASE)
    return p


def _events(tmp_path, ts_a: str, ts_b: str, name: str = "ev.csv") -> Path:
    p = tmp_path / name
    p.write_text(f"type,ts,v\nA,{ts_a},1\nB,{ts_b},2\n")
    return p


def test_iso_in_iso_out_keeps_nanoseconds_and_the_zone(tmp_path, capsys, query):
    """TS-1: datetimes in, ISO 8601 out, every digit down to the nanosecond and the input's UTC offset."""
    ev = _events(tmp_path, "2024-01-01T00:00:00+02:00", "2024-01-01T00:00:00.000000007+02:00")
    code, out, err = run_cli(capsys, "run", query, ev)
    assert code == 0, err
    (m,) = jsonl(out)
    assert m["ts"] == "2024-01-01T00:00:00.000000007+02:00"
    assert pd.Timestamp(m["ts"]).value == pd.Timestamp("2023-12-31T22:00:00.000000007Z").value  # exact instant


def test_naive_iso_stays_naive_and_mixed_offsets_are_shown_in_utc(tmp_path, capsys, query):
    code, out, _ = run_cli(capsys, "run", query, _events(tmp_path, "2024-01-01 10:00:00", "2024-01-01 10:00:01"))
    assert code == 0 and jsonl(out)[0]["ts"] == "2024-01-01T10:00:01"
    ev = _events(tmp_path, "2024-01-01T10:00:00+02:00", "2024-01-01T10:00:01+01:00", "mixed.csv")
    code, out, _ = run_cli(capsys, "run", query, ev)
    assert code == 0 and jsonl(out)[0]["ts"] == "2024-01-01T09:00:01+00:00"


def test_numbers_stay_ticks_and_ts_format_overrides(tmp_path, capsys, query):
    ev = _events(tmp_path, "5", "90")
    code, out, _ = run_cli(capsys, "run", query, ev)
    assert code == 0 and jsonl(out)[0]["ts"] == 90
    code, out, _ = run_cli(capsys, "run", query, ev, "--ts-unit", "s", "--ts-format", "iso")
    assert code == 0 and jsonl(out)[0]["ts"] == "1970-01-01T00:01:30"
    code, out, _ = run_cli(capsys, "run", query, ev, "--ts-unit", "min", "--ts-format", "%d %H:%M", "--format", "csv")
    assert code == 0 and out.splitlines()[1].split(",")[2] == "01 01:30"
    dt = _events(tmp_path, "2024-01-01T00:00:00Z", "2024-01-01T00:00:01Z", "dt.csv")
    code, out, _ = run_cli(capsys, "run", query, dt, "--ts-format", "ticks")
    assert code == 0 and jsonl(out)[0]["ts"] == 1704067201000000000


def test_ts_format_errors_are_one_line(tmp_path, capsys, query):
    ev = _events(tmp_path, "5", "90")
    with pytest.raises(SystemExit) as exc:
        main(["run", str(query), str(ev), "--ts-format", "date"])
    assert exc.value.code == 2
    assert "--ts-format: expected auto, ticks, iso or a strftime pattern" in capsys.readouterr().err
    code, out, err = run_cli(capsys, "run", query, ev, "--ts-format", "iso")
    assert code == 2 and out == ""
    assert err.startswith("error: --ts-format iso shows timestamps as times") and "--ts-unit" in err
    assert "Traceback" not in err


def test_parquet_gets_a_timestamp_type_with_the_zone(tmp_path, capsys, query):
    ev = _events(tmp_path, "2024-01-01T00:00:00+02:00", "2024-01-01T00:00:00.000000007+02:00")
    out = tmp_path / "m.parquet"
    code, _, err = run_cli(capsys, "run", query, ev, "--format", "parquet", "--output", out)
    assert code == 0, err
    field = pq.read_schema(out).field("ts")
    assert str(field.type) == "timestamp[ns, tz=+02:00]"
    assert pq.read_table(out).column("ts").cast("int64").to_pylist() == [1704060000000000007]


def test_tpstream_situations_and_detection_time_are_timestamps(tmp_path, capsys):
    cars = pd.read_csv(EX / "tpstream" / "car_sensors.csv")
    cars["ts"] = [pd.Timestamp("2024-03-01T09:00:00+01:00") + pd.Timedelta(seconds=int(t)) for t in cars["ts"]]
    ev = tmp_path / "cars.csv"
    cars.assign(ts=[t.isoformat() for t in cars["ts"]]).to_csv(ev, index=False)
    code, out, err = run_cli(capsys, "run", EX / "tpstream" / "aggressive_drivers.tps", ev)
    assert code == 0, err
    first = jsonl(out)[0]
    assert first["situations"]["A"] == ["2024-03-01T09:00:10+01:00", "2024-03-01T09:00:17+01:00"]
    assert first["ts"] == "2024-03-01T09:00:41+01:00"
    code, out, _ = run_cli(capsys, "run", EX / "tpstream" / "aggressive_drivers.tps", ev, "--format", "csv")
    row = pd.read_csv(__import__("io").StringIO(out)).iloc[0]
    assert row["A_ts"] == "2024-03-01T09:00:10+01:00" and row["ts"] == "2024-03-01T09:00:41+01:00"


def test_early_open_situations_stay_exact_nulls(tmp_path, capsys):
    """An open situation (TPStream early output) is null: the other ticks stay exact integers (no float64
    column) and Parquet gets a timestamp column with nulls."""
    cars = pd.read_csv(EX / "tpstream" / "car_sensors.csv")
    ev = tmp_path / "cars.csv"
    cars.assign(ts=[(pd.Timestamp("2024-03-01T09:00:00.000000001+01:00") + pd.Timedelta(seconds=int(t))).isoformat()
                    for t in cars["ts"]]).to_csv(ev, index=False)
    query = EX / "tpstream" / "aggressive_drivers.tps"
    code, out, err = run_cli(capsys, "run", query, ev, "--early", "--format", "csv", "--ts-format", "ticks")
    assert code == 0, err
    row = out.splitlines()[1].split(",")
    assert row[1] == "1709280010000000001" and row[6] == ""  # A_ts exact, C_te open
    out_path = tmp_path / "early.parquet"
    code, _, err = run_cli(capsys, "run", query, ev, "--early", "--format", "parquet", "--output", out_path)
    assert code == 0, err
    table = pq.read_table(out_path)
    assert str(table.schema.field("C_te").type) == "timestamp[ns, tz=+01:00]"
    assert table.column("C_te").null_count == len(table) and \
        table.column("A_ts").cast("int64").to_pylist()[0] == 1709280010000000001


def test_sql_ts_measures_and_window_ts(tmp_path, capsys):
    t = pd.read_csv(EX / "sql" / "ticker.csv")
    t["ts"] = [f"2024-03-01T09:00:{int(x):02d}.5Z" for x in t["ts"]]
    ev = tmp_path / "ticker.csv"
    t.to_csv(ev, index=False)
    code, out, err = run_cli(capsys, "run", EX / "sql" / "v_shape.sql", ev)
    assert code == 0, err
    row = jsonl(out)[0]
    assert row["start_ts"] == "2024-03-01T09:00:01.500000+00:00" and row["start_price"] == 10
    w = pd.read_csv(EX / "sql" / "trades.csv")
    w["ts"] = [f"2024-03-01T09:00:{int(x):02d}" for x in w["ts"]]
    wev = tmp_path / "trades.csv"
    w.to_csv(wev, index=False)
    code, out, err = run_cli(capsys, "run", EX / "sql" / "volume.win", wev)
    assert code == 0, err
    assert jsonl(out)[0]["ts"] == "2024-03-01T09:00:05"
    code, out, err = run_cli(capsys, "window", "filter", wev, "--where", "v > 100", "--format", "csv")
    assert code == 0, err
    assert out.splitlines()[1].startswith("2024-03-01T09:00:03,")  # `cepkit window` too
    code, out, _ = run_cli(capsys, "window", "filter", wev, "--where", "v > 100", "--ts-format", "ticks")
    assert jsonl(out)[0]["ts"] == pd.Timestamp("2024-03-01T09:00:03").value


def test_afa_lifetimes_as_times_with_a_unit(capsys):
    code, out, err = run_cli(capsys, "run", EX / "afa" / "q1.afa.yaml", EX / "afa" / "q1.events.csv",
                             "--ts-format", "iso", "--ts-unit", "s")
    assert code == 0, err
    first = jsonl(out)[0]
    assert first["le"] == "1970-01-01T00:00:05" and first["re"] == "1970-01-01T00:00:08"
    code, out, _ = run_cli(capsys, "run", EX / "afa" / "q1.afa.yaml", EX / "afa" / "q1.events.csv")
    assert jsonl(out)[0]["le"] == 5


@pytest.mark.parametrize("tz", [None, "UTC", "+02:00", "-05:30", "Europe/Berlin", "America/New_York"])
def test_column_conversion_is_the_one_value_text(tz):
    """TimeForm.texts (numpy, a column at once) writes what TimeForm.text (pandas' isoformat) writes."""
    import random

    from cepkit.forms import TimeForm

    rnd = random.Random(7)
    form = TimeForm("auto", unit="ns", datetime=True, tz=tz)
    values = [rnd.randrange(-2**62, 2**62) // rnd.choice([1, 1000, 10**9]) for _ in range(500)]
    values += [0, -1, 10**9, -10**9 - 1, None, 1.5, float("inf"), "x"]
    assert form.texts(values) == [form.text(v) for v in values]
    ticks = TimeForm("%Y-%m-%d %H:%M:%S.%f", unit="ms")
    assert ticks.texts([0, 1234, 2**62]) == ["1970-01-01 00:00:00.000000", "1970-01-01 00:00:01.234000", 2**62]
