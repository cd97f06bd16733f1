"""The progress display (cepkit/progress.py, issue 34): on a terminal (a pseudo-terminal here) `cepkit run` draws
tqdm's bar on stderr, with the total, percentage, rate and time left, while stdout holds exactly the data; on
a pipe no bar is drawn; -q drops the bar and the summary line."""
from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from cepkit.cli import main
from cepkit.event_count import events_in
from tests.terminal import cepkit, frames

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
RUN = ["run", str(EX / "Q1.query"), str(EX / "stocks.csv"), "--engine", "reference", "--chunk-size", "1000"]
# tqdm's line: "cepkit reference:  60%|████▏  | 3.00k/5.00k [00:01<00:00, 2.51k events/s, 12 matches, ...]"
BAR = re.compile(r"cepkit reference: +(\d+)%\|[^|]*\| ([\d.]+k?)/5\.00k \[\d\d:\d\d<\d\d:\d\d, +[\d.]+k? events/s, "
                 r"\d+ matches, \d+ live runs \(peak \d+\)\]")


@pytest.fixture(scope="module")
def piped() -> tuple[int, bytes, str]:
    return cepkit(RUN, terminal=False)


def test_on_a_terminal_the_bar_shows_total_percent_rate_and_time_left(piped):
    code, out, err = cepkit(RUN, terminal=True)
    assert code == 0, err
    assert out == piped[1] and out.count(b"\n") == 2   # stdout: the data only (2 matches), as on a pipe
    drawn = frames(err, "cepkit reference:")
    last = BAR.search(drawn[-1]) if drawn else None
    assert last and last[1] == "100" and last[2] == "5.00k", err   # the last frame: every event of the file
    assert int(re.search(r"(\d+)%", drawn[0])[1]) < 100, err      # drawn from the start (delay 0)
    assert err.rstrip().endswith("(engine reference, partition_contiguity, SASE 1.0 dialect)")


def test_a_piped_stderr_gets_no_bar(piped):
    code, _, err = piped
    assert code == 0
    assert "\r" not in err and "%|" not in err and len(err.splitlines()) == 1, err   # the summary line alone


def test_quiet_drops_the_bar_and_the_summary_line(piped):
    code, out, err = cepkit(RUN + ["-q"], terminal=True)
    assert code == 0 and out == piped[1] and err == "", err


def test_quiet_keeps_warnings_and_errors(capsys):
    assert main(["run", str(EX / "Q1.query"), str(EX / "no_such.csv"), "-q"]) == 3
    assert "no such file" in capsys.readouterr().err


@pytest.mark.parametrize("text,kind,events", [
    ("a,b\n1,2\n3,4\n", "csv", 2),
    ("a,b\n1,2\n3,4", "csv", 2),          # no line end after the last row
    ("a,b\n", "csv", 0),
    ('{"a": 1}\n{"a": 2}\n{"a": 3}\n', "jsonl", 3),
    ('[{"a": 1}, {"a": 2}]\n', "jsonl", None),   # one JSON array: not counted by lines
])
def test_the_events_a_file_holds_are_counted_by_its_lines(text, kind, events, tmp_path):
    path = tmp_path / f"e.{kind}"
    path.write_text(text)
    assert events_in(str(path), kind) == events


def test_a_compressed_file_is_not_counted_and_parquet_by_its_footer(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    gz = tmp_path / "e.csv.gz"
    gz.write_bytes(gzip.compress(b"a\n1\n2\n"))
    assert events_in(str(gz), "csv") is None
    pq.write_table(pa.table({"a": list(range(7))}), tmp_path / "e.parquet")
    assert events_in(str(tmp_path / "e.parquet"), "parquet") == 7


def _commands(tmp: Path) -> list[list[str]]:
    """A run of each subcommand that prints a summary line on stderr (Spark's aside: they start Spark)."""
    trades, store = str(EX / "sql" / "trades.csv"), str(tmp / "store")
    return [
        RUN[:3],
        ["window", "filter", trades, "--where", "p > 1"],
        ["window", "aggregate", trades, "--attr", "p", "--size", "5"],
        ["window", "join", trades, trades, "--on", "L.p = R.p", "--size", "5"],
        ["store", trades, store],
        ["replay", str(EX / "sql" / "insider.sql"), store],
        ["plot", str(EX / "Q1.query"), str(EX / "stocks.csv"), "--out", str(tmp / "q1.html")],
    ]


def test_quiet_drops_the_summary_line_of_every_subcommand(tmp_path, capsys):
    for argv in _commands(tmp_path):
        assert main(argv) == 0, argv
        said = capsys.readouterr()
        assert said.err.strip(), argv   # a summary line without -q
        assert main(argv + ["-q"]) == 0, argv
        quiet = capsys.readouterr()
        assert quiet.err == "" and quiet.out == said.out, argv


@pytest.mark.parametrize("command", [["spark", "run", "Q", "E", "OUT"], ["spark", "index", "E"],
                                     ["spark", "replay", "Q", "E", "OUT"], ["spark", "stream", "Q", "S", "OUT",
                                                                           "--checkpoint", "C"], ["warm"]])
def test_quiet_is_an_option_of_the_other_commands_with_a_summary(command):
    from cepkit.cli import build_parser

    assert build_parser().parse_args(command + ["-q"]).quiet
