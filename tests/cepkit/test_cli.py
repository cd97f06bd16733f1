"""The cepkit command line: acceptance runs, output formats, exit codes and error messages."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from cepkit.cli import main

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
Q3 = (EX / "query3.sase").read_text()


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def jsonl(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize("strategy, count", [("skip_till_next_match", 3), ("skip_till_any_match", 68),
                                             ("partition_contiguity", 2), ("strict_contiguity", 2)])
def test_query3_on_fig3_stream(tmp_path, capsys, strategy, count):
    query = tmp_path / "q.sase"
    query.write_text(Q3.replace("skip_till_next_match", strategy))
    code, out, err = run_cli(capsys, "run", query, EX / "fig3_stream.csv")
    assert code == 0, err
    matches = jsonl(out)
    assert len(matches) == count
    assert f"{count} matches from 8 events" in err
    if strategy == "skip_till_next_match":  # CC1, and not CC14's unconstrained reading
        assert sorted(m["bindings"]["a"] for m in matches) == [
            ["e1", "e2", "e3", "e4", "e5"], ["e1", "e2", "e3", "e4", "e5", "e6", "e7"], ["e3", "e4"]]
        assert {"first_price", "avg_price", "drop_volume", "ts"} <= set(matches[0])


def test_sase1_query_file_runs_unchanged_over_csv(tmp_path, capsys):
    from benchmarks.workloads.stock import generate

    events = tmp_path / "stocks.csv"
    generate(3000, seed=7).to_csv(events, index=False)
    assert list(pd.read_csv(events, nrows=1).columns) == ["id", "ts", "type", "symbol", "price", "volume"]
    code, out, err = run_cli(capsys, "run", EX / "sase1_stock.query", events)
    assert code == 0, err
    frame = pd.read_csv(events).set_index("id")
    for m in jsonl(out):
        a, b = m["bindings"]["a"], m["bindings"]["b"]
        assert frame.loc[a[0], "price"] % 500 == 0 and frame.loc[b[0], "volume"] < 150
        assert list(frame.loc[a, "price"]) == sorted(set(frame.loc[a, "price"]))
        assert frame.loc[b[0], "ts"] - frame.loc[a[0], "ts"] < 500


def test_shipped_stock_example_is_the_generator_output():
    from benchmarks.workloads.stock import generate

    shipped = pd.read_csv(EX / "stocks.csv")
    pd.testing.assert_frame_equal(shipped, generate(len(shipped)), check_dtype=False)


@pytest.mark.parametrize("fmt", ["csv", "parquet", "table", "jsonl"])
def test_output_formats(tmp_path, capsys, fmt):
    out_path = tmp_path / f"out.{fmt}"
    code, _, err = run_cli(capsys, "run", EX / "query3.sase", EX / "fig3_stream.csv", "--format", fmt,
                           "--output", out_path)
    assert code == 0, err
    if fmt == "parquet":
        frame = pd.read_parquet(out_path)
        assert len(frame) == 3 and list(frame.columns)[:3] == ["a", "b", "ts"]
        assert sorted(list(x) for x in frame["b"]) == [["e6"], ["e6"], ["e8"]]
    elif fmt == "csv":
        frame = pd.read_csv(out_path)
        assert sorted(frame["a"]) == ["e1 e2 e3 e4 e5", "e1 e2 e3 e4 e5 e6 e7", "e3 e4"]
    elif fmt == "jsonl":
        assert len(jsonl(out_path.read_text())) == 3
    else:
        assert "[e3, e4]" in out_path.read_text()  # ids in a table cell (cepkit.forms.ids_text)


def test_non_overlap_selection(capsys):
    code, out, _ = run_cli(capsys, "run", EX / "query3.sase", EX / "fig3_stream.csv", "--selection", "non-overlap")
    assert code == 0
    assert [m["bindings"] for m in jsonl(out)] == [{"a": ["e3", "e4"], "b": ["e6"]}]


def test_explain_prints_ast_and_nfa(capsys):
    code, out, _ = run_cli(capsys, "explain", EX / "query3.sase")
    assert code == 0
    assert "Agg(func='avg', var='a', attr='price', scope='..i-1')" in out
    assert "proceed -> b" in out and "Step 6" in out
    assert "ignore  (loop)   : ¬(e.type = Stock ∧ a[i].symbol = a[1].symbol" in out


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_query_error_exit_2_names_line_and_column(tmp_path, capsys):
    q = _write(tmp_path, "bad.sase", "PATTERN SEQ(Stock+ a[], Stock b)\nWHERE skip_till_next_match { a[i].price > b.x }")
    code, out, err = run_cli(capsys, "run", q, EX / "fig3_stream.csv")
    assert code == 2 and out == ""
    assert "line 2, column 30" in err and "Traceback" not in err


def test_event_type_typo_is_a_query_error(tmp_path, capsys):
    q = _write(tmp_path, "q.sase", "PATTERN SEQ(Stok a, Stock b) WHERE skip_till_any_match { }")
    code, _, err = run_cli(capsys, "run", q, EX / "fig3_stream.csv")
    assert code == 2 and "did you mean 'Stock'" in err and "line 1, column 13" in err


def test_missing_query_file(capsys, tmp_path):
    code, _, err = run_cli(capsys, "run", tmp_path / "nope.sase", EX / "fig3_stream.csv")
    assert code == 2 and "cannot read query file" in err


def test_missing_attribute_column_exit_3(tmp_path, capsys):
    q = _write(tmp_path, "q.sase", "PATTERN SEQ(Stock a, Stock b) WHERE skip_till_any_match { b.bid > a.price }")
    code, _, err = run_cli(capsys, "run", q, EX / "fig3_stream.csv")
    assert code == 3 and "missing attribute column 'bid'" in err and "line 1, column 59" in err


def test_non_numeric_value_names_row_and_column(tmp_path, capsys):
    events = tmp_path / "e.csv"
    text = (EX / "fig3_stream.csv").read_text().replace("e4,2008-06-10T09:04:00,Stock,Goog,121,999",
                                                       "e4,2008-06-10T09:04:00,Stock,Goog,12l,999")
    events.write_text(text)
    code, _, err = run_cli(capsys, "run", EX / "query3.sase", events)
    assert code == 3 and "row 4" in err and "column 'price'" in err and "12l" in err


def test_unsorted_timestamps_error_or_sort(tmp_path, capsys):
    lines = (EX / "fig3_stream.csv").read_text().splitlines()
    lines[3], lines[4] = lines[4], lines[3]  # e3 after e4
    events = _write(tmp_path, "e.csv", "\n".join(lines) + "\n")
    code, _, err = run_cli(capsys, "run", EX / "query3.sase", events)
    assert code == 3 and "row 4" in err and "'ts'" in err and "--sort" in err
    code, out, _ = run_cli(capsys, "run", EX / "query3.sase", events, "--sort")
    assert code == 0 and len(jsonl(out)) == 3


def test_duration_window_needs_a_time_unit(tmp_path, capsys):
    events = _write(tmp_path, "e.csv", "id,ts,type,symbol,price,volume\ne1,1,Stock,G,1,1\n")
    code, _, err = run_cli(capsys, "run", EX / "query3.sase", events)
    assert code == 2 and "--ts-unit" in err and "line 9, column 9" in err
    code, _, err = run_cli(capsys, "run", EX / "query3.sase", events, "--ts-unit", "min")
    assert code == 0, err


def test_unitless_window_refused_on_datetimes(tmp_path, capsys):
    q = _write(tmp_path, "q.sase", "PATTERN SEQ(Stock a, Stock b) WHERE skip_till_any_match { } WITHIN 5")
    code, _, err = run_cli(capsys, "run", q, EX / "fig3_stream.csv")
    assert code == 2 and "has no time unit" in err


@pytest.mark.parametrize("command", [["run", EX / "query3.sase", EX / "fig3_stream.csv"],
                                     ["run", EX / "sql" / "v_shape.sql", EX / "fig3_stream.csv"]])
def test_parquet_needs_output(capsys, command):
    """A usage error (exit 2 naming the option), as any malformed option (it was exit 1; fuzz reproducer 21)."""
    with pytest.raises(SystemExit) as info:
        main([str(a) for a in command] + ["--format", "parquet"])
    assert info.value.code == 2 and "--format parquet needs --output" in capsys.readouterr().err


def test_shoplifting_example_with_negation(capsys):
    code, out, _ = run_cli(capsys, "run", EX / "shoplifting.sase", EX / "rfid.jsonl", "--ts-unit", "h")
    assert code == 0
    assert sorted(m["bindings"]["a"] + m["bindings"]["c"] for m in jsonl(out)) == [["x2", "x6"], ["x4", "x7"]]


def test_brute_engine_agrees_on_small_input_and_refuses_large(capsys):
    code, out, _ = run_cli(capsys, "run", EX / "query3.sase", EX / "fig3_stream.csv", "--engine", "brute")
    assert code == 0 and len(jsonl(out)) == 3
    code, _, err = run_cli(capsys, "run", EX / "sase1_stock.query", EX / "stocks.csv", "--engine", "brute",
                           "--dialect", "sase+")  # brute does not run the SASE 1.0 dialect (semantics S1)
    assert code == 4 and "at most 200 events" in err  # a resource limit (semantics X1)


class _Tty:
    def __init__(self):
        self.text = ""

    def isatty(self):
        return True

    def write(self, s):
        self.text += s

    def flush(self):
        pass


def test_progress_bar_only_on_a_terminal_after_two_seconds(monkeypatch):
    from cepkit import cli

    monkeypatch.delenv("CEPKIT_PROGRESS_DELAY", raising=False)
    tty = _Tty()
    monkeypatch.setattr(cli.sys, "stderr", tty)
    bar = cli.Progress("cepkit", enabled=True)
    bar(10, 100)
    assert tty.text == ""  # quick work shows nothing
    bar.start -= 5
    bar(50, 100)
    bar.finish()
    assert " 50%|" in tty.text and "50.0/100" in tty.text and tty.text.endswith("\n")
    off = cli.Progress("cepkit", enabled=False)
    off.start -= 5
    off(50, 100)
    off.finish()
    assert tty.text.count("\n") == 1


def test_a_subcommand_that_does_not_load_leaves_the_others_working(monkeypatch, capsys):
    """An installed entry point whose module is missing (another version's metadata): a warning naming it,
    and every other command works (here: a usage error stays a usage error, exit 2, not a traceback)."""
    import cepkit.cli as cli

    monkeypatch.setattr(cli, "plugin_commands", lambda: ["cepkit.no_such_module:register"])
    with pytest.raises(SystemExit) as exit_:
        main(["frobnicate"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "warning: the subcommand cepkit.no_such_module:register cannot be loaded" in err
    assert "invalid choice: 'frobnicate'" in err


@pytest.mark.parametrize("which", ["events", "query", "link", "window"])
def test_an_output_that_is_an_input_is_refused_before_anything_is_read(tmp_path, capsys, which):
    """--output (or plot's --out) naming the events or query file, directly or through a link: exit 2, the
    file as it was (issue 30: never overwrite an input)."""
    events = tmp_path / "ev.csv"
    events.write_bytes((EX / "fig3_stream.csv").read_bytes())
    query = tmp_path / "q.sase"
    query.write_bytes((EX / "query3.sase").read_bytes())
    before = {p: p.read_bytes() for p in (events, query)}
    if which == "window":
        argv = ["window", "filter", str(events), "--where", "price > 1", "--output", str(events)]
    else:
        target = {"events": events, "query": query}.get(which)
        if which == "link":
            target = tmp_path / "link.csv"
            target.symlink_to(events)
        argv = ["run", str(query), str(events), "--output", str(target)]
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert "writing there would replace what the results come from" in capsys.readouterr().err
    assert {p: p.read_bytes() for p in (events, query)} == before


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_a_closed_standard_output_ends_quietly(tmp_path, fmt):
    """`cepkit run ... | head -1`: the reader goes away; cepkit ends with exit 0 and says nothing (issue 30),
    where it printed 'cannot write None: Broken pipe' with exit 1."""
    import subprocess
    import sys

    events = tmp_path / "ticker.csv"
    import random

    walk = random.Random(1)
    prices = [100]
    for _ in range(199999):   # a random walk: V shapes everywhere, megabytes of output rows
        prices.append(prices[-1] + walk.choice((-1, 1)))
    events.write_text("symbol,ts,price\n" + "".join(f"S,{i},{p}\n" for i, p in enumerate(prices)))
    done = subprocess.Popen([sys.executable, "-m", "cepkit", "run", str(EX / "sql" / "v_shape_all_rows.sql"),
                             str(events), "--format", fmt], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert done.stdout.readline()
    done.stdout.close()   # as `head -1` does, long before the rows (megabytes) are written
    err = done.stderr.read().decode()
    assert done.wait(timeout=300) == 0, err
    assert "error" not in err and "Traceback" not in err and "Exception ignored" not in err, err


@pytest.mark.parametrize("sig, code", [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_signal_stops_a_run_with_one_line_and_no_leftovers(tmp_path, sig, code):
    """Ctrl-C and SIGTERM mid-run: exit 130 / 143, one line on stderr (no traceback), the output file as it
    was and no temporary file beside it (issue 30, item 5)."""
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "out.csv"
    out.write_text("the earlier results\n")
    run = subprocess.Popen([sys.executable, "-m", "cepkit", "run", str(EX / "limits" / "explosive.sase"),
                            str(EX / "limits" / "explosive.csv"), "--format", "csv", "--output", str(out),
                            "--engine", "reference"],   # (the optimized engine meets --max-state within the wait)
                           cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env={**os.environ, "TMPDIR": str(tmp_path)})
    deadline = time.monotonic() + 120
    while not list(tmp_path.glob(".out.csv*")) and not list(tmp_path.glob("*cepkit*")):
        assert run.poll() is None and time.monotonic() < deadline, run.stderr.read().decode()
        time.sleep(0.05)   # until the run writes (its temporary output exists)
    time.sleep(0.5)        # well inside the matching loop
    assert run.poll() is None, run.stderr.read().decode()
    run.send_signal(getattr(signal, sig))
    err = run.stderr.read().decode()
    assert run.wait(timeout=120) == code, err
    lines = [line for line in err.splitlines() if not line.startswith("warning:")]
    assert lines == [f"cepkit: stopped by {'SIGTERM' if sig == 'SIGTERM' else 'SIGINT (Ctrl-C)'}; {out} is as it was"]
    assert out.read_text() == "the earlier results\n"
    left = sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".lark_cache"))  # lark's own cache
    assert left == ["out.csv"]
