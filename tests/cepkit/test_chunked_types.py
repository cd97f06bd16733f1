"""One type per output column (issue 30, item 4): a CSV or JSON Lines file read in chunks types each column
as the whole-file read does (docs/semantics.md O5), so JSON lines give a RETURN column the same type with
and without chunking, and numeric text counts as a number or not as over the whole file."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cepkit.cli import main


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def _query(tmp_path: Path, text: str) -> Path:
    q = tmp_path / "q.sase"
    q.write_text(text)
    return q


def _both(capsys, *argv) -> tuple[tuple[int, str, str], tuple[int, str, str]]:
    """(the run in chunks of 4 events, the whole-input run)."""
    chunked = run(capsys, "run", *argv, "--chunk-size", "4")
    whole = run(capsys, "run", *argv, "--whole")
    return chunked, whole


def test_csv_column_numeric_early_and_text_later_is_text_throughout(tmp_path, capsys):
    """The reproduction: v is numbers in the first chunk and text after; --whole writes strings."""
    events = tmp_path / "ev.csv"
    events.write_text("id,ts,type,v\n" + "".join(f"{i},{i},A,{i if i < 8 else f'x{i}'}\n" for i in range(12)))
    q = _query(tmp_path, "PATTERN SEQ(A a)\nRETURN a.v AS v\n")
    (code, out, err), (wcode, wout, _) = _both(capsys, q, events)
    assert code == wcode == 0, err
    assert out == wout
    assert [json.loads(line)["v"] for line in out.splitlines()][:2] == ["0", "1"]


def test_json_lines_integers_with_a_null_in_a_later_chunk(tmp_path, capsys):
    events = tmp_path / "ev.jsonl"
    events.write_text("".join(json.dumps({"id": i, "ts": i, "type": "A", "v": None if i == 9 else i,
                                          "w": str(i) if i < 6 else f"s{i}"}) + "\n" for i in range(12)))
    q = _query(tmp_path, "PATTERN SEQ(A a)\nRETURN a.v AS v, a.w AS w\n")
    (code, out, err), (_, wout, _) = _both(capsys, q, events)
    assert code == 0, err
    assert out == wout


def test_json_lines_kinds_mixed_across_chunks_is_refused_as_whole(tmp_path, capsys):
    """Numbers in one chunk, text in another: the whole-file read refuses the column; so do chunks."""
    events = tmp_path / "ev.jsonl"
    events.write_text("".join(json.dumps({"id": i, "ts": i, "type": "A", "v": i if i < 9 else "x"}) + "\n"
                              for i in range(12)))
    q = _query(tmp_path, "PATTERN SEQ(A a)\nRETURN a.v AS v\n")
    (code, out, err), (wcode, _, werr) = _both(capsys, q, events)
    assert code == wcode == 3
    assert out == "" and err == werr and "row 10" in err


def test_numeric_text_of_the_types_read_is_a_number_as_over_the_whole_file(tmp_path, capsys):
    """v is text over the whole file: on an A row of the last chunk, and on a B row. A query comparing A's
    v is refused at that row before any match is written, as whole; one reading v of B rows only (not
    compared) returns it as a number where every B row holds one, as whole."""
    rows = [f"{i},{i},{'B' if i in (3, 5) else 'A'},{'x' if i == 10 else i}" for i in range(12)]
    events = tmp_path / "ev.csv"
    events.write_text("id,ts,type,v\n" + "\n".join(rows) + "\n")
    q = _query(tmp_path, "PATTERN SEQ(A a)\nWHERE a.v > 2\nRETURN a.v AS v\n")
    (code, out, err), (wcode, wout, werr) = _both(capsys, q, events)
    assert code == wcode == 3 and out == wout == ""
    assert err.splitlines()[0] == werr.splitlines()[0] and "row 11" in err and "'x'" in err
    q = _query(tmp_path, "PATTERN SEQ(B b)\nRETURN b.v AS v\n")
    (code, out, err), (_, wout, _) = _both(capsys, q, events)
    assert code == 0, err
    assert out == wout and [json.loads(line)["v"] for line in out.splitlines()] == [3, 5]
