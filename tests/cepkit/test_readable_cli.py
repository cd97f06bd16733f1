"""Readable results (issue 18 item 2): aligned tables with truncated id lists, --version, `-` (standard input)."""
from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cepkit.test_cli import jsonl, run_cli

from cepkit.cli import compression, main, sniff_format, version

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"




def test_table_aligns_and_truncates_long_id_lists(capsys):
    code, out, err = run_cli(capsys, "run", EX / "query3.sase", EX / "fig3_stream.csv", "--format", "table",
                             "--max-ids", "3")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["a", "b", "ts", "first_price", "avg_price", "drop_volume"]
    assert set(lines[1]) == {"-", " "}
    assert len({len(line) for line in lines}) == 1  # every line as wide: the columns line up
    assert lines[0].index("ts") == lines[2].index("2008-06-10T09:06:00")  # text columns left-aligned
    assert lines[0].index("drop_volume") + len("drop_volume") == len(lines[2])  # numbers right-aligned
    assert lines[2].startswith("[e1, e2, e3, … 2 more]") and "[e3, e4]" in out
    code, out, _ = run_cli(capsys, "run", EX / "query3.sase", EX / "fig3_stream.csv", "--format", "table",
                           "--max-ids", "0")
    assert code == 0 and "[e1, e2, e3, e4, e5, e6, e7]" in out and "more" not in out


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    text = capsys.readouterr().out.strip()
    assert text == f"cepkit {version()}"
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert f'version = "{version()}"' in pyproject


class _Stdin(io.TextIOWrapper):
    def isatty(self) -> bool:
        return False


def _stdin(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", _Stdin(io.BytesIO(data), encoding="utf-8"))


def test_dash_reads_csv_and_json_lines_from_stdin_losing_nothing(monkeypatch, capsys, tmp_path):
    code, expected, _ = run_cli(capsys, "run", EX / "query3.sase", EX / "fig3_stream.csv")
    _stdin(monkeypatch, (EX / "fig3_stream.csv").read_bytes())
    code, out, err = run_cli(capsys, "run", EX / "query3.sase", "-")
    assert code == 0 and out == expected and "3 matches from 8 events" in err
    rows = [{"type": "A", "ts": i, "id": i, "v": i} for i in range(500)]  # every row read
    text = "".join(json.dumps(r) + "\n" for r in rows).encode()
    q = tmp_path / "q.sase"
    q.write_text("PATTERN SEQ(A a)\n")
    _stdin(monkeypatch, text)
    code, out, err = run_cli(capsys, "run", q, "-", "--format", "csv")
    assert code == 0 and len(out.splitlines()) == 501 and "500 matches from 500 events" in err


def test_dash_errors_name_stdin_row_and_column(monkeypatch, capsys):
    _stdin(monkeypatch, b"type,ts\nA,1\nB,\n")
    code, _, err = run_cli(capsys, "run", EX / "query3.sase", "-")
    assert code == 3 and err.startswith("event error: <stdin>:") and "row 2" in err and "'ts'" in err
    assert "cepkit-events-" not in err  # the temporary file is not named
    _stdin(monkeypatch, b"")
    code, _, err = run_cli(capsys, "run", EX / "query3.sase", "-")
    assert code == 3 and "no events on standard input" in err
    _stdin(monkeypatch, b"{\"type\": \"A\", \"ts\": 1}\n")
    code, _, err = run_cli(capsys, "run", EX / "query3.sase", "-", "--input-format", "csv")
    assert code == 3 and "<stdin>" in err  # the named format wins over sniffing


def test_sniffing():
    assert sniff_format(b"PAR1....") == "parquet"
    assert sniff_format(b"\n  {\"ts\": 1}") == "jsonl" and sniff_format(b"[{}]") == "jsonl"
    assert sniff_format(b"type,ts\n") == "csv"
    import bz2
    import gzip

    assert sniff_format(gzip.compress(b'{"ts": 1}\n')) == "jsonl" and compression(gzip.compress(b"x")) == ".gz"
    assert sniff_format(bz2.compress(b"type,ts\n")) == "csv" and compression(bz2.compress(b"x")) == ".bz2"


def test_compressed_stdin(monkeypatch, capsys):
    import gzip

    _stdin(monkeypatch, gzip.compress((EX / "fig3_stream.csv").read_bytes()))
    code, out, err = run_cli(capsys, "run", EX / "query3.sase", "-")
    assert code == 0 and len(jsonl(out)) == 3, err


def test_input_format_names_a_files_format(capsys, tmp_path):
    ev = tmp_path / "events.txt"
    ev.write_bytes((EX / "fig3_stream.csv").read_bytes())
    code, out, err = run_cli(capsys, "run", EX / "query3.sase", ev, "--input-format", "csv")
    assert code == 0 and len(jsonl(out)) == 3, err


def test_stdin_through_a_real_pipe():
    """One real process: `cat events.csv | cepkit run QUERY -`."""
    data = (EX / "fig3_stream.csv").read_bytes()
    done = subprocess.run([sys.executable, "-m", "cepkit.cli", "run", str(EX / "query3.sase"), "-"],
                          input=data, capture_output=True, check=False, cwd=ROOT, timeout=120,
                          env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert len(jsonl(done.stdout.decode())) == 3


def test_window_commands_read_dash_too(monkeypatch, capsys):
    _stdin(monkeypatch, (EX / "sql" / "trades.csv").read_bytes())
    code, out, err = run_cli(capsys, "window", "filter", "-", "--where", "v > 100")
    assert code == 0 and "2 of 30 events kept" in err and len(jsonl(out)) == 2
    _stdin(monkeypatch, (EX / "sql" / "trades.csv").read_bytes())
    code, _, err = run_cli(capsys, "window", "join", "-", "-", "--on", "L.v = R.v", "--kind", "count", "--size", "2")
    assert code == 2 and "only one of the two event files can be -" in err
