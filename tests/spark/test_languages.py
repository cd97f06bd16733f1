"""Every language on Spark (cepkit.spark_jobs.languages): for MATCH_RECOGNIZE (by PARTITION BY, and by time slice),
TPStream, AFA (by key) and the SASE+ forms the flat path refuses (AND / OR, RFID, count windows) the Spark
output equals the single-process output computed here; what cannot be split exactly is refused by name."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import cepkit
from cepkit.core.errors import EventError, QueryError
from cepkit.core.match import canonical_key, json_safe
from cepkit.core.readers import from_pandas
from cepkit.spark_jobs.job import run_job
from cepkit.spark_jobs.source import Columns
from tests.spark.helpers import cell_json, cli_parquet, ordered, same_as_single

EX = Path(__file__).resolve().parents[2] / "examples"


def _jt(value) -> str:
    return json.dumps(json_safe(value), default=str, allow_nan=False)


def _bindings(pairs) -> tuple:
    return canonical_key({v: ids for v, ids in pairs if ids is not None and len(ids)})


def expected(table, key=None) -> list:
    """A single-process MatchTable as comparable rows."""
    return [(key, _bindings(m.bindings), int(m.ts), m.detected, m.sign if m.lifetime else None,
             tuple(_jt(x) for x in m.lifetime) if m.lifetime else None,
             tuple(_jt(v) for _, v in m.payload)) for m in table]


def spark_rows(out: Path, table) -> list:
    """The Spark job's output rows in the same form (the layout of the single-process table)."""
    return frame_rows(pd.read_parquet(out), table.layout)


def frame_rows(frame: pd.DataFrame, layout) -> list:
    rows = []
    for rec in frame.to_dict("records"):
        lifetime = (rec["lifetime_start"], rec["lifetime_end"]) if layout.speculative else None
        rows.append((rec.get("key"), _bindings([(v, rec[v]) for v in layout.variables]), int(rec["ts"]),
                     None if not layout.detection or pd.isna(rec["detected"]) else int(rec["detected"]),
                     int(rec["sign"]) if layout.speculative else None, lifetime,
                     tuple(cell_json(rec[c]) for c in layout.payload_columns())))
    return sorted(rows, key=repr)


def check_single(spark, tmp_path, query: str, events: Path, **kw) -> None:
    """The Spark job's output equals `cepkit run --format parquet` (MATCH_RECOGNIZE, TPStream: the language's own
    columns, docs/spark.md "Output"), schema and rows, and has rows."""
    single = cli_parquet(query, events, tmp_path / "single.parquet", ts_unit=kw.get("ts_unit"))
    out = tmp_path / "out"
    kw.setdefault("engine", "reference")
    summary = run_job(query, str(events), str(out), spark=spark, **kw)
    assert same_as_single(out, single) == summary.matches == single.num_rows > 0


def check(spark, tmp_path, query: str, events: Path, want: list, table, **kw) -> None:
    out = tmp_path / "out"
    kw.setdefault("engine", "reference")  # the optimized engines' cold Numba compiles in the workers cost minutes
    summary = run_job(query, str(events), str(out), spark=spark, **kw)
    assert summary.matches == len(want)
    assert spark_rows(out, table) == sorted(want, key=repr)
    assert want, "the input must give matches"


def ticker(n: int, symbols: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"symbol": rng.choice([f"S{i}" for i in range(symbols)], n),
                         "ts": np.sort(rng.integers(0, n // 2, n)), "price": rng.integers(1, 12, n)})


def test_sql_by_partition(spark, tmp_path):
    """V shapes per symbol, every row (ALL ROWS PER MATCH, MATCH_NUMBER): split by PARTITION BY; ids are file
    rows."""
    text = (EX / "sql" / "v_shape_all_rows.sql").read_text()
    path = tmp_path / "ticker.csv"
    ticker(300, 4, 3).to_csv(path, index=False)
    check_single(spark, tmp_path, text, path, partitions=3)


def test_sql_all_matches_by_time_slice(spark, tmp_path):
    """ALL MATCHES with WITHIN and no PARTITION BY: time slices (several, with context) give every match once."""
    text = (EX / "sql" / "insider.sql").read_text()
    rng = np.random.default_rng(5)
    n = 300
    frame = pd.DataFrame({"ts": np.arange(1, n + 1), "p": rng.integers(1, 70, n), "v": rng.integers(1, 1500, n)})
    path = tmp_path / "trades.parquet"
    frame.to_parquet(path, index=False)
    check_single(spark, tmp_path, text, path, slice_length=25)


def test_sql_refusals_by_name(spark, tmp_path):
    v_shape = (EX / "sql" / "v_shape.sql").read_text().replace("PARTITION BY symbol", "")
    with pytest.raises(QueryError, match="AFTER MATCH SKIP.*PARTITION BY"):
        run_job(v_shape, str(EX / "sql" / "ticker.csv"), str(tmp_path / "o"), spark=spark)
    unbounded = (EX / "sql" / "insider.sql").read_text().replace("WITHIN 10", "")
    with pytest.raises(QueryError, match="ALL MATCHES without WITHIN"):
        run_job(unbounded, str(EX / "sql" / "trades.csv"), str(tmp_path / "o"), spark=spark)
    assert not (tmp_path / "o").exists()


def test_tpstream_by_partition(spark, tmp_path):
    text = (EX / "tpstream" / "aggressive_drivers.tps").read_text()
    path = EX / "tpstream" / "car_sensors.csv"
    check_single(spark, tmp_path, text, path, ts_unit="s", partitions=2)
    with pytest.raises(QueryError, match="no PARTITION BY"):
        run_job(text.replace("PARTITION BY car_id", ""), str(path), str(tmp_path / "o"), spark=spark, ts_unit="s")


def test_afa_by_key(spark, tmp_path):
    """Q1 per symbol: each symbol's rows and every punctuation, in file order, to one AFA."""
    text = (EX / "afa" / "q1.afa.yaml").read_text()
    base = pd.read_csv(EX / "afa" / "q1.events.csv", dtype=str)
    rows = []
    for rec in base.to_dict("records"):
        if rec["kind"] == "insert":
            rows.append({**rec, "sym": "X"})
            rows.append({**rec, "sym": "Y", "change": str(-int(rec["change"]))})
        else:
            rows.append({**rec, "sym": None})
    frame = pd.DataFrame(rows)
    path = tmp_path / "q1.csv"
    frame.to_csv(path, index=False)
    want = []
    for key in ("X", "Y"):
        part = tmp_path / f"{key}.csv"
        frame[(frame.sym == key) | frame.sym.isna()].to_csv(part, index=False)
        table = cepkit.run(text, str(part), engine="reference")
        want += expected(table, key)
    check(spark, tmp_path, text, path, want, table, key="sym", partitions=2)
    with pytest.raises(QueryError, match="--key"):
        run_job(text, str(path), str(tmp_path / "o"), spark=spark)
    with pytest.raises(EventError, match="no column 'nope'"):  # bad input, found before any output
        run_job(text, str(path), str(tmp_path / "o"), spark=spark, key="nope")
    assert not (tmp_path / "o").exists()


SASE = {  # AND of a sequence and a type; OR nested in a sequence, with a count window (position slices)
    "and": "PATTERN AND(SEQ(Login l, Transfer t), Alert a) WHERE [user] AND t.amount > 500 WITHIN 30",
    "or-count-window": "PATTERN SEQ(Login l, OR(Transfer t, Alert a)) WHERE [user] WITHIN 6 EVENTS",
}


def sase_events(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"id": np.arange(n), "ts": np.sort(rng.integers(0, n, n)),
                         "type": rng.choice(["Login", "Transfer", "Alert"], n, p=[0.5, 0.4, 0.1]),
                         "user": rng.choice(["u1", "u2", "u3"], n), "amount": rng.integers(0, 1000, n)})


@pytest.mark.parametrize("name", list(SASE))
def test_sase_forms_by_slice(spark, tmp_path, name):
    frame = sase_events(240, 7)
    path = tmp_path / "ev.parquet"
    frame.to_parquet(path, index=False)
    table = cepkit.compile(SASE[name], engine="reference").run(from_pandas(ordered(frame)))
    check(spark, tmp_path, SASE[name], path, expected(table), table, slice_length=20)


def test_sase_rfid(spark, tmp_path):
    """The SASE RFID form (leading-context negation in the middle), tags as [id], row ids in `eid`."""
    text = (EX / "rfid" / "shoplifting.sase").read_text()
    rng = np.random.default_rng(2)
    n = 200
    frame = pd.DataFrame({"eid": np.arange(n), "ts": np.sort(rng.integers(0, 3000, n)),
                          "type": rng.choice(["SHELF-READING", "COUNTER-READING", "EXIT-READING"], n),
                          "id": rng.choice([f"tag{i}" for i in range(6)], n)})
    path = tmp_path / "rfid.parquet"
    frame.to_parquet(path, index=False)
    table = cepkit.compile(text, engine="reference").run(
        from_pandas(frame.sort_values(["ts", "eid"], kind="stable"), id_col="eid", ts_unit="min"))
    check(spark, tmp_path, text, path, expected(table), table, columns=Columns(id="eid"), ts_unit="min",
          slice_length=1500)


def test_sase_refusal_without_window(spark, tmp_path):
    with pytest.raises(QueryError, match="no WITHIN window"):
        run_job("PATTERN AND(Login l, Alert a) WHERE [user]", str(EX / "lazy" / "fraud.csv"), str(tmp_path / "o"),
                spark=spark)


@pytest.mark.parametrize("name", list(SASE))
@pytest.mark.parametrize("length", [2, 7])
def test_slices_at_their_edges_without_spark(name, length):
    """The task body alone over slices cut as the job cuts them (short slices: matches across every edge)."""
    import pyarrow as pa

    from cepkit.core import registry
    from cepkit.front.language import parse
    from cepkit.spark_jobs import generic_tasks as G
    from cepkit.spark_jobs import languages as L
    from cepkit.spark_jobs import plan as P

    frame = ordered(sase_events(80, 9))
    q = parse(SASE[name])
    table = cepkit.compile(SASE[name], engine="reference").run(from_pandas(frame))
    program = registry.get_engine("sase", "reference").compile(SASE[name])
    by_pos = q.window.kind == "events"
    tick = np.arange(len(frame)) if by_pos else frame.ts.to_numpy()
    sp = P.slice_plan(int(tick.min()), int(tick.max()), L.sase_window_ticks(q, None, 1), 4, length)
    pieces = pd.DataFrame([dict(r, **{G.SLICE_COL: j, G.TICK_COL: int(t)})
                           for r, t in zip(frame.to_dict("records"), tick) for j in sp.slices_of(int(t))]
                          ).sort_values([G.SLICE_COL, "ts", "id"], kind="stable")  # as the job sorts them
    spec = G.GenericSpec(lang="sase", engine="reference", query=SASE[name], options=(), ts_col="ts", id_col="id",
                         type_col="type", default_type=None, ts_unit=None, type_names=tuple(sorted(set(frame.type))),
                         group_cols=(G.SLICE_COL,), schema=G.output_schema(program.layout, pa.int64()),
                         layout=program.layout, slice_length=sp.length, slice_t_min=sp.t_min)
    batches = pa.Table.from_pandas(pieces, preserve_index=False).to_batches(max_chunksize=7)
    out = pa.Table.from_batches(list(G.match_groups(spec, iter(batches))), schema=spec.schema).to_pandas()
    assert sorted(frame_rows(out, table.layout), key=repr) == sorted(expected(table), key=repr)
    assert len(table)
