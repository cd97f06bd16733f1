"""`cepkit run` reads and feeds SASE events in chunks by default (docs/semantics.md SD): the output is the
whole-input output byte for byte, errors name rows from the file start, the summary line says when the
whole input is read, and the reader never holds more than a chunk."""
from __future__ import annotations

import io
import json
import sys
import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.parquet as pq
import pytest

import cepkit.runner as sase_runner  # CHUNK_SIZE: the events `cepkit run` feeds at a time
from cepkit.cli import main
from cepkit.core import event_chunks
from cepkit.core.errors import EventError
from cepkit.core.event_chunks import SeenIds, iter_events

EX = Path(__file__).resolve().parents[2] / "examples"
FORMATS = ["jsonl", "csv", "table", "parquet"]


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def output(tmp_path, capsys, name: str, *argv) -> bytes | pa.Table:
    """The output file's bytes; a Parquet file's table (row groups per chunk make other bytes)."""
    target = tmp_path / name
    code, _, err = run(capsys, "run", *argv, "--output", target)
    assert code == 0, err
    output.err = err  # type: ignore[attr-defined]
    return pq.read_table(target) if "parquet" in argv else target.read_bytes()


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, Path]:
    """fig. 3 as CSV, JSON lines and Parquet, and a stocks stream without an id column."""
    d = tmp_path_factory.mktemp("streams")
    csv = d / "fig3.csv"
    shutil.copy(EX / "fig3_stream.csv", csv)
    table = pcsv.read_csv(csv, convert_options=pcsv.ConvertOptions(column_types={"ts": pa.string()}))
    pq.write_table(table, d / "fig3.parquet")
    (d / "fig3.jsonl").write_text("".join(json.dumps(r) + "\n" for r in table.to_pylist()))
    lines = (EX / "stocks.csv").read_text().splitlines()[:401]
    (d / "noid.csv").write_text("\n".join(line.split(",", 1)[1] for line in lines) + "\n")
    return {"csv": csv, "jsonl": d / "fig3.jsonl", "parquet": d / "fig3.parquet", "noid": d / "noid.csv"}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("source", ["csv", "jsonl", "parquet"])
def test_chunked_output_is_whole_output(tmp_path, capsys, inputs, fmt, source):
    """query3 (RETURN items: csv held) over fig. 3 in every input format: chunks of 2 events == whole."""
    argv = [EX / "query3.sase", inputs[source], "--format", fmt]
    whole = output(tmp_path, capsys, "whole", *argv, "--chunk-size", "0")
    assert output(tmp_path, capsys, "chunked", *argv, "--chunk-size", "2") == whole
    assert output(tmp_path, capsys, "default", *argv) == whole
    assert output(tmp_path, capsys, "whole2", *argv, "--whole") == whole


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("query, events, engine", [
    ("Q1.query", "noid", "reference"), ("Q1.query", "noid", "optimized"),
    ("lazy/fraud.sase", "lazy/fraud.csv", "reference-lazy")])
def test_chunked_output_without_return(tmp_path, capsys, inputs, fmt, query, events, engine):
    """No RETURN (csv streamed): SASE 1.0's Q1 over a stream with no id column (ids are row numbers across
    chunks), and the lazy engines' example (its order estimated from the first chunk), each engine:
    chunks of 7 events == whole."""
    events = inputs.get(events) or EX / events
    argv = [EX / query, events, "--format", fmt, "--engine", engine, "--dialect", "sase+"]
    whole = output(tmp_path, capsys, "whole", *argv, "--chunk-size", "0")
    assert output(tmp_path, capsys, "chunked", *argv, "--chunk-size", "7") == whole


RISING = """PATTERN SEQ(stock+ a[], stock b)
WHERE partition_contiguity { [symbol] and a[1].price % 500 = 0 and a[i].price > a[i-1].price and b.volume < 150 }
WITHIN 500
RETURN b.volume AS v, a[1].price AS p
"""


@pytest.mark.parametrize("fmt, chunk", [("csv", "7"), ("parquet", "7")])
def test_appended_output_is_whole_output(tmp_path, capsys, inputs, fmt, chunk):
    """RETURN items typed alike in every chunk: CSV lines and Parquet row groups appended per chunk, equal
    to the whole output; the summary says nothing is held."""
    query = tmp_path / "rising.sase"
    query.write_text(RISING)
    argv = [query, inputs["noid"], "--format", fmt]
    whole = output(tmp_path, capsys, "whole", *argv, "--whole")
    assert output(tmp_path, capsys, "chunked", *argv, "--chunk-size", chunk) == whole
    assert "written at the end" not in output.err
    if fmt == "parquet":
        assert pq.ParquetFile(tmp_path / "chunked").metadata.num_row_groups == 2
    code, out, _ = run(capsys, "run", *argv[:-2], "--format", "csv", "--chunk-size", chunk)
    assert code == 0 and out.encode() == output(tmp_path, capsys, "whole", *argv[:-2], "--format", "csv", "--whole")


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_output_typed_differently_per_chunk_is_written_anew(tmp_path, capsys, fmt):
    """query3 over fig. 3 in chunks of 2: avg_price 118 comes alone in a chunk (an integer there, a float
    over all rows), so the output is written at the end from the chunks kept on disk, as the whole run."""
    argv = [EX / "query3.sase", EX / "fig3_stream.csv", "--format", fmt]
    whole = output(tmp_path, capsys, "whole", *argv, "--whole")
    assert output(tmp_path, capsys, "chunked", *argv, "--chunk-size", "2") == whole
    assert f"{fmt} output written at the end: a chunk's column types differ" in output.err


def test_streamed_csv_on_stdout_and_with_no_match(capsys, inputs):
    argv = ["run", EX / "Q1.query", inputs["noid"], "--format", "csv", "--dialect", "sase+"]
    whole = run(capsys, *argv, "--whole")
    assert run(capsys, *argv, "--chunk-size", "5")[1] == whole[1] and whole[1].count("\n") > 1
    few = inputs["noid"].with_name("few.csv")
    few.write_text("".join(inputs["noid"].read_text().splitlines(True)[:4]))
    code, out, err = run(capsys, "run", EX / "Q1.query", few, "--format", "csv", "--dialect", "sase+", "--chunk-size", "2")
    assert (code, out) == (0, "a,b,ts\n") and "0 matches" in err


def bad_stream(tmp_path, line: str) -> Path:
    """fig. 3 repeated to 80 rows (ids made unique), then `line` (row 81)."""
    rows = (EX / "fig3_stream.csv").read_text().splitlines()
    body = [f"x{k}," + r.split(",", 1)[1].replace("2008-06-10", f"2008-06-{10 + k // 8:02d}")
            for k, r in enumerate(rows[1:] * 10)]
    path = tmp_path / "bad.csv"
    path.write_text("\n".join([rows[0], *body, line]) + "\n")
    return path


@pytest.mark.parametrize("line, message", [
    ("x80,2008-06-21T09:30:00,Stock,Goog,abc,5", "row 81"),
    ("x3,2008-06-21T09:30:00,Stock,Goog,100,5", "duplicate event id 'x3'"),
])
def test_error_in_a_late_chunk_names_the_row_from_the_file_start(tmp_path, capsys, line, message):
    path = bad_stream(tmp_path, line)
    argv = ["run", EX / "query3.sase", path]
    code, _, whole = run(capsys, *argv, "--whole")
    assert code == 3 and message in whole and "row 81" in whole
    code, _, chunked = run(capsys, *argv, "--chunk-size", "6")
    assert code == 3 and chunked == whole


def test_failed_default_run_leaves_output_untouched(tmp_path, capsys):
    path = bad_stream(tmp_path, "x80,2008-06-21T09:30:00,Stock,Goog,abc,5")
    out = tmp_path / "out.jsonl"
    out.write_bytes(b"old\n")
    sase_runner.CHUNK_SIZE, size = 4, sase_runner.CHUNK_SIZE
    try:
        code, _, _ = run(capsys, "run", EX / "query3.sase", path, "--output", out)
    finally:
        sase_runner.CHUNK_SIZE = size
    assert code == 3 and out.read_bytes() == b"old\n"


@pytest.mark.parametrize("extra, why", [(["--sort"], "whole input read: --sort"),
                                        (["--engine", "brute"], "whole input read: engine brute")])
def test_summary_says_when_the_whole_input_is_read(capsys, extra, why):
    code, _, err = run(capsys, "run", EX / "query3.sase", EX / "fig3_stream.csv", *extra)
    assert code == 0 and err.count(why) == 1
    code, _, err = run(capsys, "run", EX / "query3.sase", EX / "fig3_stream.csv")
    assert code == 0 and "whole input" not in err


def test_summary_says_which_output_is_held(capsys):
    code, _, err = run(capsys, "run", EX / "query3.sase", EX / "fig3_stream.csv", "--format", "table")
    assert code == 0 and "table output written at the end: its column widths need every row" in err


@pytest.mark.parametrize("argv, why", [
    (["sql/insider.sql", "sql/trades.csv"], "a MATCH_RECOGNIZE query runs over its table"),
    (["sql/volume.win", "sql/trades.csv"], "window programs run over the whole stream"),
    (["tpstream/aggressive_drivers.tps", "tpstream/car_sensors.csv", "--ts-unit", "s"],
     "TPStream programs run over the whole stream"),
    (["afa/q1.afa.yaml", "afa/q1.shuffled.csv"], "the change stream is printed at the end")])
def test_other_languages_say_they_read_the_whole_input(capsys, argv, why):
    code, _, err = run(capsys, "run", *(EX / a if "." in a else a for a in argv))
    assert code == 0 and err.count(f"whole input read: {why}") == 1, err


@pytest.mark.parametrize("argv", [["--whole", "--chunk-size", "5"], ["--sort", "--chunk-size", "5"]])
def test_contradicting_options_are_a_query_error(capsys, argv):
    code, _, err = run(capsys, "run", EX / "query3.sase", EX / "fig3_stream.csv", *argv)
    assert code == 2 and "--chunk-size" in err


def test_default_run_feeds_chunks_of_the_default_size(monkeypatch, capsys, inputs):
    """Structural memory bound: the default run feeds batches of at most CHUNK_SIZE events, read lazily."""
    sizes: list[int] = []

    def recording(path, chunk_size, **kw):
        for batch in iter_events(path, chunk_size, **kw):
            sizes.append(len(batch))
            yield batch

    monkeypatch.setattr(event_chunks, "iter_events", recording)
    monkeypatch.setattr(sase_runner, "CHUNK_SIZE", 50)
    code, _, err = run(capsys, "run", EX / "Q1.query", inputs["noid"], "--dialect", "sase+")
    assert code == 0 and sizes == [50] * 8, err


def test_reader_holds_one_chunk_and_refuses_a_bad_row_first(tmp_path):
    """No chunk is longer than the chunk size; a file of several chunks is read for its columns' types first
    (docs/semantics.md O5), so a bad last row is refused before the first chunk, as the whole-file read does."""
    path = tmp_path / "bad.jsonl"
    line = '{"id": %d, "ts": %d, "type": "stock", "price": 1}\n'
    path.write_text("".join(line % (k, k) for k in range(80)))
    chunks = list(iter_events(path, 9))
    assert [len(c) for c in chunks] == [9] * 8 + [8] and int(chunks[-1].source_rows[-1]) == 80
    with path.open("a") as f:
        f.write('{"id": 80, "ts": 80,\n')
    chunks = iter_events(path, 9)
    with pytest.raises(EventError, match="row 81"):
        next(chunks)


def test_seen_ids_keeps_runs_and_finds_repeats():
    seen = SeenIds()
    for start in (0, 100, 50, 200):
        seen.add(np.arange(start, start + 50), start, "id")
    assert seen.starts.tolist() == [0, 200] and seen.stops.tolist() == [149, 249] and not len(seen.loose)
    seen.add(np.array([400, 300, 1000]), 250, "id")
    assert seen.loose.tolist() == [300, 400, 1000]
    for ids, bad in (([150, 149], 149), ([500, 1000], 1000), ([260, 0], 0)):
        with pytest.raises(EventError, match=f"duplicate event id {bad}") as e:
            seen.add(np.array(ids), 10, "id")
        assert e.value.row == 12 and e.value.column == "id"
    seen.add(np.array(["a", "b"], dtype=object), 0, "id")
    with pytest.raises(EventError, match="duplicate event id 'b'"):
        seen.add(np.array(["c", "b"], dtype=object), 2, "id")


class _Pipe(io.BufferedReader):
    """Standard input's bytes, handed out at most 4,096 at a time, and what was asked for at once."""

    def __init__(self, data: bytes):
        super().__init__(io.BytesIO(data))
        self.asked: list[int] = []

    def read(self, size=-1):
        self.asked.append(size)
        return super().read(min(size, 4096) if size and size > 0 else 4096)


def test_standard_input_is_copied_in_pieces(monkeypatch, capsys):
    """`-` (standard input, 127 KB): copied to the temporary file in pieces, never read whole, leading
    blank lines looked past; the output is the file's."""
    pipe = _Pipe(b"\n" * 70000 + (EX / "stocks.csv").read_bytes())
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(pipe, encoding="utf-8"))
    monkeypatch.setattr(sys.stdin, "isatty", lambda: False, raising=False)
    argv = [EX / "Q1.query", "--chunk-size", "1000"]
    code, out, err = run(capsys, "run", argv[0], "-", *argv[1:])
    assert code == 0, err
    assert -1 not in pipe.asked and out == run(capsys, "run", argv[0], EX / "stocks.csv", *argv[1:])[1] != ""


def test_progress_of_a_chunked_run_counts_the_events_so_far():
    from cepkit.cli import Progress

    bar = Progress("cepkit optimized", False, open_ended=True)
    drawn: list[tuple[int, int | None]] = []
    bar.update = lambda done, total=None, note=None: drawn.append((done, total))  # type: ignore[method-assign]
    bar.offset = 200_000
    bar(5, 100_000)   # the engine's total is the chunk's: the stream's is not known
    bar.count = lambda: 300_000   # the file's events, once counted (cepkit.event_count)
    bar(7, 100_000)
    assert drawn == [(200_005, None), (200_007, 300_000)]
