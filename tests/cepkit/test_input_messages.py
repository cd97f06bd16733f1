"""Messages that misled (issue 30, item 6): a CSV header row that does not end, a FIFO as the events file,
a JSON line too long to hold; each one line on stderr with exit 3, or a run that reads the FIFO."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import cepkit.core.readers as readers
from cepkit.cli import main

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_csv_first_line_past_one_block_is_not_called_empty(tmp_path, capsys):
    events = tmp_path / "long.csv"
    events.write_text("id,ts,type," + "x" * (readers.CSV_BLOCK + 10) + "\n1,1,A,2\n")
    code, out, err = run(capsys, "run", EX / "query3.sase", events)
    assert code == 3 and out == ""
    assert err == (f"event error: {events}: the first line of '{events}' is longer than 1 MiB: a CSV file starts "
                   "with a header row naming its columns (is it CSV? name the format with --input-format)\n")
    events.write_text("id,ts,type")
    code, out, err = run(capsys, "run", EX / "query3.sase", events)
    assert code == 3 and "holds one line with no line end after it" in err


def test_a_json_line_past_the_bound_is_one_line_exit_3(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(readers, "JSON_LINE_MAX", 1000)
    events = tmp_path / "big.jsonl"
    events.write_text('{"id": 1, "ts": 1, "type": "A"}\n{"a": "' + "x" * 5000 + '"}\n')
    q = tmp_path / "q.sase"
    q.write_text("PATTERN SEQ(A a)\n")
    code, out, err = run(capsys, "run", q, events)
    assert code == 3 and out == ""
    assert err == (f"event error: {events}: row 2: a line longer than 1,000 characters: JSON lines hold one event "
                   "(one JSON object) per line; is the file JSON lines?\n")


def test_a_fifo_is_read_as_standard_input_is(tmp_path):
    """A named pipe (or `<(...)`) is copied once, as standard input is, and run: not 'lseek failed'."""
    fifo = tmp_path / "events.csv"
    os.mkfifo(fifo)
    data = (EX / "fig3_stream.csv").read_bytes()

    def write():
        with open(fifo, "wb") as f:
            f.write(data)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    done = subprocess.run([sys.executable, "-m", "cepkit", "run", str(EX / "query3.sase"), str(fifo)], cwd=ROOT,
                          capture_output=True, timeout=120, env={**os.environ, "TMPDIR": str(tmp_path)})
    writer.join(timeout=120)
    expected = subprocess.run([sys.executable, "-m", "cepkit", "run", str(EX / "query3.sase"),
                               str(EX / "fig3_stream.csv")], cwd=ROOT, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout == expected.stdout and done.stdout.count(b"\n") == 3
    assert sorted(p.name for p in tmp_path.iterdir() if "cepkit" in p.name) == []
