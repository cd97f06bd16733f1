"""The streaming job for MATCH_RECOGNIZE (PARTITION BY, WITHIN), TPStream (exact and early output) and AFA
(by key, signed rows) over a directory source, files in several micro-batches: the streamed rows equal the
single-process output computed here (semantics SP-S9..SP-S13); what the stream cannot run is refused by name."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import cepkit
from cepkit.cli import main
from cepkit.core.errors import EventError, QueryError
from cepkit.spark_jobs.stream import run_stream
from cepkit.spark_jobs.stream_keyed import check_event_rows
from cepkit.spark_jobs.stream_source import StreamSource
from tests.spark.helpers import single_table, stream_value_types, typed_stream, value_types
from tests.spark.test_languages import expected, frame_rows
from tests.spark.test_stream import in_order, write_files

EX = Path(__file__).resolve().parents[2] / "examples"
SQL = """SELECT * FROM ticker MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY ts
  MEASURES FIRST(A.price) AS start_price, LAST(B.price) AS top_price, COUNT(B.*) AS ups, LAST(C.ts) AS end_ts
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A B+ C) WITHIN 20
  DEFINE A AS price < 4, B AS price >= 6, C AS price < 5
)"""


def streamed(spark, out: Path, table) -> list:
    """The stream's rows (through the sink's log) in the comparable form of test_languages."""
    frame = typed_stream(spark.read.parquet(str(out)).toPandas(), list(table.layout.payload_columns()))
    return frame_rows(frame, table.layout)


def stream_files(spark, tmp_path, query: str, frame: pd.DataFrame, cuts: list[int], **kw):
    """`frame` written as files (disordered within 3 ticks across and within them), streamed once."""
    src, out, ckpt = tmp_path / "src", tmp_path / "out", tmp_path / "ckpt"
    write_files(src, frame, cuts, shift=3)
    kw = {"watermark": 5, "once": True, "spark": spark, "partitions": 1, "report": lambda line: None, **kw}
    summary = run_stream(query, StreamSource(path=str(src), max_files_per_trigger=1), str(out), str(ckpt), **kw)
    assert summary.rows_in == len(frame) and summary.late_dropped == 0
    return out, summary


def flushed(frame: pd.DataFrame, key: str, **values) -> pd.DataFrame:
    """The events and one of a new key far ahead, whose watermark makes every other key's events final."""
    far = {c: frame[c].iloc[0] for c in frame.columns}
    far.update({key: "ZZ", "ts": int(frame.ts.max()) + 1000, "id": len(frame), **values})
    return pd.concat([frame, pd.DataFrame([far]).astype(frame.dtypes.to_dict())], ignore_index=True)


def sql_ticker() -> pd.DataFrame:
    """240 rows of three symbols (ties in ts), and the flush row."""
    rng = np.random.default_rng(4)
    n = 240
    frame = pd.DataFrame({"symbol": rng.choice(["A", "B", "C"], n), "ts": np.arange(n) // 2 * 3 + rng.integers(0, 2, n),
                          "id": np.arange(n), "price": rng.integers(1, 10, n)})
    return flushed(frame, "symbol", price=1)


def test_sql_partition_stream(spark, tmp_path):
    """ONE ROW PER MATCH per symbol with WITHIN: a partition's matches are written once the watermark passes
    its last row by WITHIN (SP-S9); the rows are those of the single-process run over all rows."""
    frame = sql_ticker()
    table = cepkit.run(SQL, frame, language="sql", engine="reference")
    out, summary = stream_files(spark, tmp_path, SQL, frame, [120], language="sql", engine="reference")
    want = sorted(expected(table), key=repr)
    assert len(want) > 5 and streamed(spark, out, table) == want
    cols = list(table.layout.payload)  # and the types `cepkit run --format parquet` gives the MEASURES
    assert stream_value_types(spark, out, cols) == value_types(single_table(table), cols)
    assert summary.matches == len(want)


def tpstream_input() -> pd.DataFrame:
    frame = pd.read_csv(EX / "tpstream" / "car_sensors.csv")
    frame = frame[frame.car_id.isin([1, 2])].reset_index(drop=True)
    frame["id"] = np.arange(len(frame))
    frame["car_id"] = frame.car_id.astype(str)
    return flushed(frame, "car_id", speed=0, accel=0)


@pytest.mark.parametrize("early", [False, True], ids=["exact", "early"])
def test_tpstream_partition_stream(spark, tmp_path, early):
    """Per car: exact output (a configuration once its last situation ends) and early output (once known at
    an event's time, open situations with a null end) equal the optimized engine's single-process rows
    (SP-S10)."""
    text = (EX / "tpstream" / "aggressive_drivers.tps").read_text()
    frame = tpstream_input()
    mode = {"mode": "early"} if early else {}
    table = cepkit.run(text, frame, engine="optimized", read_options={"ts_unit": "s"}, **mode)
    out, _ = stream_files(spark, tmp_path, text, frame, [240], language="tpstream", ts_unit="s",
                          early=early)
    want = sorted(expected(table), key=repr)
    assert want and streamed(spark, out, table) == want


def afa_input() -> pd.DataFrame:
    """Q1's disordered stream (insertions and retractions) for two symbols, in arrival order."""
    base = pd.read_csv(EX / "afa" / "q1.shuffled.csv")
    rows = []
    for rec in base.to_dict("records"):
        rows.append({**rec, "sym": "X"})
        rows.append({**rec, "sym": "Y", "change": -rec["change"] if rec["le"] % 3 else rec["change"]})
    return pd.DataFrame(rows)


def test_afa_signed_rows_stream(spark, tmp_path):
    """Each micro-batch's rows of a key are fed at once in arrival order; the speculative insertions and the
    retractions (sign -1) are written as the key's AFA gives them, so the rows equal the single-process
    run over each key's rows in arrival order (SP-S11). Two runs on one checkpoint (one file, then two
    more): the keys' AFAs come back from the state store."""
    text = (EX / "afa" / "q1.afa.yaml").read_text()
    frame = afa_input()
    src, out, ckpt, staged = tmp_path / "src", tmp_path / "out", tmp_path / "ckpt", tmp_path / "staged"
    src.mkdir()
    staged.mkdir()
    for i, part in enumerate(np.array_split(np.arange(len(frame)), 3)):
        frame.iloc[part].to_parquet(staged / f"part-{i}.parquet", index=False)
    want = []
    for key in ("X", "Y"):
        table = cepkit.run(text, frame[frame.sym == key].reset_index(drop=True), engine="reference")
        want += expected(table, key)
    runs = []
    for names in (["part-0.parquet"], ["part-1.parquet", "part-2.parquet"]):
        for name in names:
            os.rename(staged / name, src / name)
            in_order(src / name, int(name[5]))
        runs.append(run_stream(text, StreamSource(path=str(src), max_files_per_trigger=1), str(out), str(ckpt),
                               once=True, spark=spark, partitions=1, report=lambda line: None, language="afa",
                               key="sym", engine="reference"))
    got = streamed(spark, out, table)
    assert got == sorted(want, key=repr) and sum(r.matches for r in runs) == len(want)
    assert any(r[4] == -1 for r in got) and any(r[4] == 1 for r in got)  # retractions and insertions
    assert sum(b.matches_out > 0 for r in runs for b in r.batches) >= 2  # written as the micro-batches arrive
    assert runs[1].matches > 0 and sum(r.rows_in for r in runs) == len(frame)


def test_stream_refusals_by_name(spark, tmp_path, capsys):
    src, out, ckpt = tmp_path / "src", str(tmp_path / "out"), str(tmp_path / "ckpt")
    source = StreamSource(path=str(src))
    cases = [(SQL.replace("PARTITION BY symbol", ""), "sql", {}, "no PARTITION BY"),
             (SQL.replace(" WITHIN 20", ""), "sql", {}, "no WITHIN"),
             (SQL.replace("price < 4", "price < PREV(price)"), "sql", {}, "PREV"),
             ((EX / "tpstream" / "aggressive_drivers.tps").read_text().replace("PARTITION BY car_id", ""),
              "tpstream", {}, "no PARTITION BY"),
             ((EX / "tpstream" / "aggressive_drivers.tps").read_text(), "tpstream", {"engine": "reference"},
              "at close only"),
             ((EX / "afa" / "q1.afa.yaml").read_text(), "afa", {}, "--key")]
    for text, lang, kw, message in cases:
        with pytest.raises(QueryError, match=message):
            run_stream(text, source, out, ckpt, spark=spark, language=lang, ts_unit="s", **kw)
    assert not os.path.exists(out) and not os.path.exists(ckpt)
    query = tmp_path / "q.sql"  # the command line: the language from the suffix, exit 2, no traceback
    query.write_text(SQL.replace(" WITHIN 20", ""))
    assert main(["spark", "stream", str(query), str(src), out, "--checkpoint", ckpt]) == 2
    err = capsys.readouterr().err
    assert "cannot run this MATCH_RECOGNIZE query: it has no WITHIN" in err and "Traceback" not in err
    src.mkdir()  # AFA's arrival order within a file is Spark's Parquet row index: JSON lines are refused
    afa_input().iloc[:4].to_json(src / "a.jsonl", orient="records", lines=True)
    with pytest.raises(QueryError, match="AFA stream reads Parquet files"):
        run_stream((EX / "afa" / "q1.afa.yaml").read_text(), source, out, ckpt, spark=spark, key="sym")
    assert not os.path.exists(out)
    punctuated = pa.table({"kind": ["insert", "punctuate"], "le": [1, 2], "sym": ["X", None]})
    with pytest.raises(EventError, match="'punctuate' row reaches every key"):  # in the key's step (SP-S12)
        check_event_rows(punctuated)


def stream_in_two_runs(spark, tmp_path, query: str, frame: pd.DataFrame, cuts: list[int], **kw) -> tuple[Path, list]:
    """`frame` as files (disordered within 3 ticks), streamed by two runs on one checkpoint: the first file,
    then the others (the second run takes each key's state from the state store)."""
    src, out, ckpt, staged = tmp_path / "src", tmp_path / "out", tmp_path / "ckpt", tmp_path / "staged"
    names = write_files(staged, frame, cuts, shift=3)
    src.mkdir()
    kw = {"watermark": 5, "once": True, "spark": spark, "partitions": 1, "report": lambda line: None, **kw}
    runs = []
    for part in (names[:1], names[1:]):
        for name in part:
            os.rename(name, src / os.path.basename(name))
            in_order(src / os.path.basename(name), int(os.path.basename(name)[5:8]))
        runs.append(run_stream(query, StreamSource(path=str(src), max_files_per_trigger=1), str(out), str(ckpt), **kw))
    assert sum(r.rows_in for r in runs) == len(frame) and all(r.late_dropped == 0 for r in runs)
    return out, runs


def test_sql_and_tpstream_streams_restart_from_their_checkpoint(spark, tmp_path):
    """Issue 31, item 4: MATCH_RECOGNIZE and TPStream streams stopped after their first file and started again
    on the same checkpoint give the single-process rows, each once (the partitions' rows and programs come
    back from the state store)."""
    frame = sql_ticker()
    table = cepkit.run(SQL, frame, language="sql", engine="reference")
    out, runs = stream_in_two_runs(spark, tmp_path / "sql", SQL, frame, [80, 160], language="sql",
                                   engine="reference")
    want = sorted(expected(table), key=repr)
    assert len(want) > 5 and streamed(spark, out, table) == want
    assert sum(r.matches for r in runs) == len(want) and runs[1].matches > 0

    text = (EX / "tpstream" / "aggressive_drivers.tps").read_text()
    cars = tpstream_input()
    table = cepkit.run(text, cars, engine="optimized", read_options={"ts_unit": "s"})
    out, runs = stream_in_two_runs(spark, tmp_path / "tps", text, cars, [120, 240], language="tpstream", ts_unit="s")
    want = sorted(expected(table), key=repr)
    assert want and streamed(spark, out, table) == want
    assert sum(r.matches for r in runs) == len(want)
