"""`cepkit run --engine optimized` writes what `--engine reference` writes, and reports errors the same way."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cepkit.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _run(tmp_path: Path, engine: str, *extra: str) -> tuple[int, list]:
    out = tmp_path / f"{engine}.jsonl"
    code = main(["run", *extra, "--engine", engine, "--format", "jsonl", "--output", str(out), "--no-progress"])
    lines = out.read_text().splitlines() if out.exists() else []
    return code, [json.loads(line) for line in lines]


@pytest.mark.parametrize("selection", ["all", "non-overlap"])
def test_cli_query3_matches_reference(tmp_path, selection):
    args = (str(EXAMPLES / "query3.sase"), str(EXAMPLES / "fig3_stream.csv"), "--selection", selection)
    code, ours = _run(tmp_path, "optimized", *args)
    ref_code, theirs = _run(tmp_path, "reference", *args)
    assert (code, ours) == (ref_code, theirs) and code == 0


def test_cli_event_error_exit_3(tmp_path):
    events = tmp_path / "e.csv"
    events.write_text("id,ts,type,price\n1,0,stock,10\n2,1,stock,abc\n")
    query = tmp_path / "q.sase"
    query.write_text("PATTERN SEQ(stock a, stock b) WHERE skip_till_any_match { b.price > a.price }")
    code, _ = _run(tmp_path, "optimized", str(query), str(events))
    assert code == 3


@pytest.mark.parametrize("suffix", ["csv", "parquet", "jsonl"])
@pytest.mark.parametrize("engine", ["optimized", "reference"])
def test_cli_chunked_feeding_writes_the_whole_file_answer(tmp_path, suffix, engine):
    from benchmarks.workloads.stock import generate, write

    frame = generate(3_000, seed=7)
    events = tmp_path / f"s.{suffix}"
    if suffix == "jsonl":
        frame.to_json(events, orient="records", lines=True)
    else:
        write(frame, str(events))
    query = tmp_path / "q.sase"
    query.write_text("PATTERN SEQ(stock+ a[], stock b) WHERE skip_till_next_match { [symbol] and a[1].price % 3 = 0 "
                     "and a[i].price > a[i-1].price and b.volume < 150 } WITHIN 60\nRETURN a.LEN AS n")
    code, whole = _run(tmp_path, engine, str(query), str(events))
    chunked_code, chunked = _run(tmp_path, engine, str(query), str(events), "--chunk-size", "257")
    assert code == chunked_code == 0 and len(whole) > 20
    assert chunked == whole


def test_cli_chunked_event_error_names_the_file_row(tmp_path, capsys):
    events = tmp_path / "e.csv"
    events.write_text("id,ts,type,price\n" + "".join(f"{i},{i},stock,{i}\n" for i in range(10)) + "10,5,stock,1\n")
    query = tmp_path / "q.sase"
    query.write_text("PATTERN SEQ(stock a, stock b) WHERE skip_till_any_match { b.price > a.price }")
    code, _ = _run(tmp_path, "optimized", str(query), str(events), "--chunk-size", "4")
    assert code == 3
    assert "row 11" in capsys.readouterr().err


def test_cli_no_merge_gives_the_same_matches(tmp_path, capsys):
    """Query 3.2 on the Fig. 3 stream (CC4): the runs from e1 and e3 are merged after e4, and both matches
    still come out; --no-merge creates more runs for the same matches."""
    query = tmp_path / "q32.sase"
    query.write_text((EXAMPLES / "query3.sase").read_text().replace("a[i].price > avg(a[..i-1].price)",
                                                                     "a[i].price >= max(a[..i-1].price)"))
    args = (str(query), str(EXAMPLES / "fig3_stream.csv"), "--counters")
    merged_code, merged = _run(tmp_path, "optimized", *args)
    merged_err = capsys.readouterr().err
    code, unmerged = _run(tmp_path, "optimized", *args, "--no-merge")
    unmerged_err = capsys.readouterr().err
    assert merged_code == code == 0 and merged == unmerged and len(merged) == 2
    created = [int(err.split("counters: ")[1].split()[0]) for err in (merged_err, unmerged_err)]
    assert created[0] < created[1]
    assert main(["run", *args[:2], "--no-merge", "--engine", "reference"]) == 2  # the reference has no such option
    assert main(["run", *args[:2], "--no-merge"]) == 0   # the default engine, the optimized one, has
