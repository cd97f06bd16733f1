"""The streaming job (spark_jobs/stream.py) over a directory source: files arriving in several micro-batches,
out of order within the watermark, give the single-process answer over all events in (ts, id) order; a
restart from the checkpoint loses and duplicates nothing; late rows are counted and reported; bad input
is refused before Spark writes anything."""
from __future__ import annotations

import json
import os
import time

import pandas as pd
import pytest

import cepkit
from benchmarks.workloads.stock import generate
from cepkit.cli import main
from cepkit.core.errors import EventError
from cepkit.core.readers import from_pandas
from cepkit.front.language import parse
from cepkit.spark_jobs import stream_checkpoint as K
from cepkit.spark_jobs.stream import run_stream
from cepkit.spark_jobs.stream_source import MissingConnector, StreamSource, require_kafka
from tests.spark.helpers import (expected_rows, ordered, output_rows, single_table, stream_value_types,
                                 typed_stream, value_types)

KLEENE = ("PATTERN SEQ(stock+ a[], stock b) WHERE skip_till_next_match { [symbol] and a[1].price % 5 = 0 "
          "and a[i].price > avg(a[..i-1].price) and b.volume < 200 } WITHIN 40 "
          "RETURN a[1].price AS first_price, avg(a[].price) AS avg_price")
UNBOUNDED = "PATTERN SEQ(stock a, stock b) WHERE skip_till_next_match { [symbol] and b.price > a.price + 3 }"
NEGATION = ("PATTERN SEQ(stock a, stock b, !(stock n)) WHERE skip_till_any_match { [symbol] and "
            "a.price % 3 = 0 and b.price > a.price + 1 and n.volume > 900 } WITHIN 8")


def write_files(directory, frame: pd.DataFrame, cuts: list[int], shift: int = 10, seed: int = 0) -> list[str]:
    """Write `frame` (in ts order) as Parquet files split at the positions `cuts`; the events within `shift`
    ticks of a file's end move to the next file, and each file's rows are shuffled (disorder across and
    within micro-batches)."""
    frame = frame.sort_values(["ts", "id"]).reset_index(drop=True)
    bounds = [0, *cuts, len(frame)]
    part = pd.Series(0, index=frame.index)
    for i in range(1, len(bounds) - 1):
        end_ts = frame.ts.iloc[bounds[i] - 1]
        part[bounds[i]:] = i
        part[(frame.ts > end_ts - shift) & (part == i - 1)] = i  # late-ish: still above the watermark
    os.makedirs(directory, exist_ok=True)
    names = []
    for i in range(len(bounds) - 1):
        name = os.path.join(directory, f"part-{i:03d}.parquet")
        frame[part == i].sample(frac=1, random_state=seed + i).to_parquet(name, index=False)
        in_order(name, i)
        names.append(name)
    return names


def in_order(path, i: int) -> None:
    """Spark's file source takes new files oldest first: file i is i seconds younger than file 0."""
    os.utime(path, (time.time() - 100 + i,) * 2)


def stream_rows(spark, out, text: str) -> list:
    return frame_stream_rows(spark.read.parquet(str(out)).toPandas(), text)  # through the sink's log: committed files


def frame_stream_rows(frame: pd.DataFrame, text: str) -> list:
    """A stream's output (its committed rows, read through the sink's log) as `output_rows`."""
    q = parse(text)
    returns = [r.name for r in q.returns]
    return output_rows(typed_stream(frame, returns), [c.var for c in q.pattern.components if not c.negated], returns)


def with_flush(frame: pd.DataFrame) -> pd.DataFrame:
    """The events and one of a new key far ahead, whose watermark makes every other key's events final
    (a stream has no end: its last matches are emitted once the watermark passes them)."""
    far = pd.DataFrame({c: [frame[c].iloc[0]] for c in frame.columns})
    far[["id", "ts", "symbol"]] = [10**6, 10**6, 10**3]
    return pd.concat([frame, far.astype(frame.dtypes.to_dict())], ignore_index=True)


def test_stream_equals_batch_and_restarts_from_checkpoint(spark, tmp_path):
    """Two runs on one checkpoint (one file, then two more): every file a micro-batch, events out of order
    across files within the watermark; the union of the output is the single-process answer."""
    frame = with_flush(generate(400, symbols=3, seed=11))
    src, out, ckpt = tmp_path / "src", tmp_path / "out", tmp_path / "ckpt"
    staged = write_files(tmp_path / "staged", frame, [130, 260], shift=10)
    lines: list[str] = []
    src.mkdir()
    for name in staged[:1]:
        os.rename(name, src / os.path.basename(name))
    source = StreamSource(path=str(src), max_files_per_trigger=1)
    options = {"watermark": 20, "once": True, "spark": spark, "partitions": 2, "engine": "reference",
               "report": lines.append}
    first = run_stream(KLEENE, source, str(out), str(ckpt), **options)
    for name in staged[1:]:
        os.rename(name, src / os.path.basename(name))
    second = run_stream(KLEENE, source, str(out), str(ckpt), **options)
    expected = expected_rows(KLEENE, frame)
    assert expected and stream_rows(spark, out, KLEENE) == expected
    # the stream's exact JSON text, typed over its whole output, has `cepkit run --format parquet`'s types
    returns = ["first_price", "avg_price"]
    single = single_table(cepkit.compile(KLEENE, engine="reference").run(from_pandas(ordered(frame))))
    assert spark.read.parquet(str(out)).schema["avg_price"].dataType.simpleString() == "string"
    assert stream_value_types(spark, out, returns) == value_types(single, returns)
    # the checkpoint of an earlier version (its RETURN values json_safe text, no "values" recorded) is refused
    path = ckpt / K.FINGERPRINT
    earlier = {k: v for k, v in json.loads(path.read_text())["options"].items() if k != "values"}
    path.unlink()
    K.record(str(ckpt), KLEENE, earlier)
    with pytest.raises(K.CheckpointError, match=r"options differ \(values\)"):
        run_stream(KLEENE, source, str(out), str(ckpt), **options)
    assert first.rows_in + second.rows_in == len(frame)  # nothing read twice, nothing skipped
    assert sum(b.rows_in > 0 for b in first.batches) == 1 and sum(b.rows_in > 0 for b in second.batches) == 2
    assert first.matches + second.matches == len(expected) and first.late_dropped == second.late_dropped == 0
    assert any("rows in" in line and "matches out" in line for line in lines)


def test_late_rows_are_counted_and_reported(spark, tmp_path, capsys):
    """The command line over JSON-lines files. Rows at or below the watermark are dropped, counted in the
    progress line and the summary, and reported; the output is the single-process answer over the rows
    kept (trailing negation: a key's program closes once the watermark passes its window)."""
    frame = with_flush(generate(200, symbols=2, seed=3))
    src, out, ckpt = tmp_path / "src", tmp_path / "out", tmp_path / "ckpt"
    early, rest = frame[frame.ts < 150], frame[frame.ts >= 150]
    late = early[early.ts < 100].sample(n=7, random_state=1)  # arrive after ts 150..: below the watermark
    on_time = early.drop(late.index)
    src.mkdir()
    on_time.to_json(src / "a.jsonl", orient="records", lines=True)  # JSON lines: the schema from the first file
    pd.concat([late, rest]).to_json(src / "b.jsonl", orient="records", lines=True)
    in_order(src / "a.jsonl", 0)
    in_order(src / "b.jsonl", 1)
    query = tmp_path / "q.sase"
    query.write_text(NEGATION)
    code = main(["spark", "stream", str(query), str(src), str(out), "--checkpoint", str(ckpt), "--once",
                 "--max-files-per-trigger", "1", "--watermark", "5", "--partitions", "2", "--engine", "reference"])
    err = capsys.readouterr().err
    assert code == 0 and len(late) == 7
    assert "batch 1: " in err and ", 7 late rows dropped," in err  # the micro-batch's progress line
    assert "warning: 7 late rows were dropped" in err and "7 late rows DROPPED" in err  # warning and summary
    expected = expected_rows(NEGATION, frame.drop(late.index))
    assert expected and stream_rows(spark, out, NEGATION) == expected


def test_bad_input_is_refused_before_output(spark, tmp_path, capsys):
    frame = generate(40, symbols=2, seed=1)
    src, out, ckpt = tmp_path / "src", tmp_path / "out", tmp_path / "ckpt"
    query = tmp_path / "q.sase"
    query.write_text(KLEENE)

    # a missing source directory: exit 3 with the path, no traceback, nothing written
    code = main(["spark", "stream", str(query), str(tmp_path / "nowhere"), str(out), "--checkpoint", str(ckpt)])
    err = capsys.readouterr().err
    assert code == 3 and "no such directory" in err and "Traceback" not in err

    # a schema that changes between files
    src.mkdir()
    frame.iloc[:20].to_parquet(src / "a.parquet", index=False)
    frame.iloc[20:].astype({"price": "float64"}).to_parquet(src / "b.parquet", index=False)
    with pytest.raises(EventError, match="schema changes"):
        run_stream(KLEENE, StreamSource(path=str(src)), str(out), str(ckpt), spark=spark)
    assert not out.exists()
    (src / "b.parquet").unlink()

    # datetime timestamps (the stream's event time is integer ticks)
    frame.astype({"ts": "datetime64[ms]"}).to_parquet(tmp_path / "a-dt.parquet", index=False)
    dated = tmp_path / "dated"
    dated.mkdir()
    os.rename(tmp_path / "a-dt.parquet", dated / "a.parquet")
    with pytest.raises(EventError, match="integer timestamps"):
        run_stream(KLEENE, StreamSource(path=str(dated)), str(out), str(tmp_path / "dt-ckpt"), spark=spark)
    assert not out.exists()

    # a checkpoint of another query, or other options
    K.record(str(ckpt), NEGATION, {"engine": "reference"})
    with pytest.raises(K.CheckpointError, match="its query text differ"):
        run_stream(KLEENE, StreamSource(path=str(src)), str(out), str(ckpt), spark=spark)
    code = main(["spark", "stream", str(query), str(src), str(out), "--checkpoint", str(ckpt), "--once"])
    err = capsys.readouterr().err
    assert code == 2 and "belongs to another stream" in err and not out.exists()

    # an output directory holding another stream's output, with a new checkpoint
    (out / "_spark_metadata").mkdir(parents=True)
    with pytest.raises(K.CheckpointError, match="another stream's output"):
        run_stream(KLEENE, StreamSource(path=str(src)), str(out), str(tmp_path / "new-ckpt"), spark=spark)
    assert not (tmp_path / "new-ckpt").exists()

    # Kafka without Spark's connector (not installed here): the package to add, exit 2, no traceback
    try:
        require_kafka(spark)
    except MissingConnector:
        code = main(["spark", "stream", str(query), str(tmp_path / "k-out"), "--checkpoint", str(tmp_path / "k-ckpt"),
                     "--kafka", "localhost:9092", "--topic", "events", "--schema",
                     "ts long, id long, type string, symbol long, price long, volume long"])
        err = capsys.readouterr().err
        assert code == 2 and "spark-sql-kafka-0-10_2.13" in err and "Traceback" not in err


def test_a_file_that_does_not_fit_the_schema_fails_its_micro_batch(spark, tmp_path):
    """A JSON-lines file whose price turns to text: an EventError naming the file; nothing committed."""
    frame = generate(60, symbols=2, seed=2)
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    frame.iloc[:30].to_json(src / "a.jsonl", orient="records", lines=True)
    bad = frame.iloc[30:].astype({"price": str})
    bad["price"] = "x" + bad["price"]
    bad.to_json(src / "b.jsonl", orient="records", lines=True)
    with pytest.raises(EventError, match="b.jsonl' does not fit it .*price"):
        run_stream(KLEENE, StreamSource(path=str(src)), str(out), str(tmp_path / "ckpt"), once=True, spark=spark,
                   partitions=2, engine="reference")
    assert not (out / "_spark_metadata" / "0").exists()


@pytest.mark.parametrize("text", [KLEENE, NEGATION, UNBOUNDED], ids=["kleene", "negation", "no-window"])
def test_key_step_keeps_state_across_micro_batches(text):
    """Without Spark: the per-key step over disordered micro-batches, its state pickled between batches (the
    default engine's program included), gives the single-process answer once the watermark passes the end (a
    query without WITHIN keeps its programs)."""
    import pyarrow as pa

    from cepkit.spark_jobs import stream_state as ST
    from cepkit.spark_jobs.source import Columns
    from cepkit.spark_jobs.stream import default_engine, stream_spec

    frame = generate(300, symbols=3, seed=7)
    spec = stream_spec(text, default_engine(), Columns(), "type", id_is_int=True, delay=70)
    batches = [frame.iloc[i:i + 60].sample(frac=1, random_state=i) for i in range(0, 300, 60)]
    states: dict = {}
    found, seen_max = [], None
    for chunk in [*batches, frame.iloc[:0]]:
        watermark = -10**9 if seen_max is None else (seen_max - 70 if len(chunk) else 10**9)
        for key in sorted(set(frame.symbol)):
            mine = chunk[chunk.symbol == key]
            state = states.get(key, ST.KeyState(None, None, ST.NO_TS))
            state = ST.KeyState(ST.load_table(ST.dump_table(state.pending)) if state.pending is not None else None,
                                ST.load_program(ST.dump_program(state.program)) if state.program else None,
                                state.last_fed, state.max_seen)
            matches, states[key], _, late = ST.step(spec, (key,), state, pa.Table.from_pandas(
                mine, preserve_index=False), watermark)
            found += matches
            assert late == 0
        seen_max = max(seen_max or -10**9, int(chunk.ts.max())) if len(chunk) else seen_max
    assert all(s.pending is None and (s.program is None) == (spec.context is not None) for s in states.values())
    got = sorted((m.key(), int(m.ts)) for m in found)
    assert got and got == sorted((row[0], row[1]) for row in expected_rows(text, frame))
