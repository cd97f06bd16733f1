"""CSV output is RFC 4180: a cell with a comma, a quote or a line break is quoted, a carriage return
included (Python's csv module, with '\\n' line ends, leaves a lone CR bare, and every reader splits the
row there), and it reads back as the values written, to a file and to standard output."""
from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow as pa
from hypothesis import given, strategies as st

from cepkit import match_output as M
from cepkit.forms import frame_csv

ROOT = Path(__file__).resolve().parents[2]
VALUES = ["x\ry", "p,q", 'say "hi"', "two\nlines", "cr\r\nlf", "plain", ""]


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def test_cells_with_a_carriage_return_are_quoted():
    assert M.csv_quote(pa.array(VALUES)).to_pylist() == [
        '"x\ry"', '"p,q"', '"say ""hi"""', '"two\nlines"', '"cr\r\nlf"', "plain", ""]
    assert M.csv_line(["a\rb", "c"]) == '"a\rb",c\n' and M.csv_line([""]) == '""\n'


def test_the_run_writes_values_with_a_carriage_return_that_read_back(tmp_path):
    """`cepkit run --format csv`, to a file and to standard output (spooled through a temporary file,
    which read a CR back as a newline)."""
    events = tmp_path / "ev.jsonl"
    events.write_text('{"type": "A", "ts": 1, "v": "x\\ry"}\n{"type": "B", "ts": 2, "v": "p,q"}\n')
    query = tmp_path / "q.sase"
    query.write_text("PATTERN SEQ(A a, B b)\nRETURN a.v AS av, b.v AS bv\n")
    out = tmp_path / "out.csv"
    cmd = [sys.executable, "-m", "cepkit", "run", str(query), str(events), "--format", "csv"]
    done = subprocess.run(cmd + ["--output", str(out)], cwd=ROOT, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    piped = subprocess.run(cmd, cwd=ROOT, capture_output=True, timeout=120)
    assert piped.returncode == 0, piped.stderr
    for text in (out.read_bytes().decode(), piped.stdout.decode()):
        assert _rows(text) == [["a", "b", "ts", "av", "bv"], ["0", "1", "2", "x\ry", "p,q"]], text


def test_frame_csv_is_pandas_csv_with_a_lone_cr_quoted():
    plain = pd.DataFrame({"a": ["p,q", "x"], "n": [1, 2]})
    assert frame_csv(plain) == plain.to_csv(index=False)
    cr = pd.DataFrame({"a\r": ["x\ry", "\ue000"], "n": [1, 2]})   # (the first marker candidate is taken)
    assert frame_csv(cr) == '"a\r",n\n"x\ry",1\n\ue000,2\n'


@given(st.lists(st.tuples(st.sampled_from(VALUES) | st.text(max_size=5), st.integers()), min_size=1, max_size=6))
def test_frame_csv_reads_back(rows):
    frame = pd.DataFrame(rows, columns=["t", "n"])
    assert _rows(frame_csv(frame))[1:] == [[t, str(n)] for t, n in rows]
