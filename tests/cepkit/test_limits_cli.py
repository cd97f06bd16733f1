"""`cepkit run --limit / --max-state` (issue 14): the explosive skip_till_any_match Kleene query of
examples/limits exits 4 naming its variable under the default bound, and 0 with 10 matches under --limit 10."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cepkit.cli import Progress, main
from cepkit.core.contract import Budget

ROOT = Path(__file__).resolve().parents[2]
LIMITS = ROOT / "examples" / "limits"
QUERY, EVENTS = str(LIMITS / "explosive.sase"), str(LIMITS / "explosive.csv")


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("engine", ["reference", "optimized"])
def test_limit_ten_exits_0_with_ten_matches(capsys, engine):
    code, out, err = run_cli(capsys, "run", QUERY, EVENTS, "--engine", engine, "--limit", 10)
    assert code == 0
    assert len([json.loads(line) for line in out.splitlines()]) == 10
    assert "stopped after 10 matches (--limit)" in err
    assert "warning: the Kleene closure of a has no WITHIN" in err


def test_default_max_state_exits_4_naming_the_variable():
    """Under the default bound, in a process of its own (the bound is 1,000,000 runs: about 10 s and
    0.5 GB in the reference engine; its peak memory stays under 1.5 GB)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", "import resource, sys\nfrom cepkit.cli import main\n"
                           f"code = main(['run', {QUERY!r}, {EVENTS!r}])\n"
                           "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
                           "sys.exit(code)"], capture_output=True, text=True, cwd=ROOT, env=env, timeout=900)  # a hang guard only
    assert done.returncode == 4, done.stderr
    assert "more than 1,000,000 live partial matches, most of them at pattern variable a " in done.stderr
    assert "WITHIN" in done.stderr and "Traceback" not in done.stderr
    assert int(done.stderr.strip().splitlines()[-1]) < 1_500_000  # KiB
    assert done.stdout == ""


def test_max_state_option_exits_4(capsys):
    code, out, err = run_cli(capsys, "run", QUERY, EVENTS, "--max-state", 500)
    assert code == 4
    assert "more than 500 live partial matches, most of them at pattern variable a " in err


@pytest.mark.parametrize("value", ["0", "-1", "ten", "1.5"])
@pytest.mark.parametrize("option", ["--limit", "--max-state"])
def test_bad_values_are_usage_errors(capsys, option, value):
    with pytest.raises(SystemExit) as info:
        main(["run", QUERY, EVENTS, option, value])
    assert info.value.code == 2
    assert "expected a positive integer" in capsys.readouterr().err


def test_engine_without_state_count_refuses_max_state(capsys):
    code, _, err = run_cli(capsys, "run", QUERY, EVENTS, "--engine", "brute", "--max-state", 10)
    assert code == 2 and "engine 'brute' takes no max_state" in err


@pytest.mark.parametrize("query, events, language", [
    ("examples/sql/v_shape.sql", "examples/sql/ticker.csv", "sql"),
    ("examples/afa/q1.afa.yaml", "examples/afa/q1.events.csv", "afa"),
    ("examples/sql/big_trades.win", "examples/sql/trades.csv", "window"),
])
def test_every_language_takes_limit(capsys, query, events, language):
    code, out, err = run_cli(capsys, "run", ROOT / query, ROOT / events, "--limit", 1)
    assert code == 0, err
    assert len(out.splitlines()) == 1 and "stopped after 1 match (--limit)" in err
    code, out, err = run_cli(capsys, "run", ROOT / query, ROOT / events, "--max-state", 10)
    if language == "sql":  # the SQL reference counts its VM threads: a normal query stays far below 10
        assert code == 0 and len(out.splitlines()) > 1
    else:
        assert code == 2 and "takes no max_state" in err


def test_tpstream_takes_limit(capsys):
    query, events = ROOT / "examples/tpstream/aggressive_drivers.tps", ROOT / "examples/tpstream/car_sensors.csv"
    code, out, err = run_cli(capsys, "run", query, events, "--ts-unit", "s")
    assert code == 0 and len(out.splitlines()) > 1
    code, out, err = run_cli(capsys, "run", query, events, "--ts-unit", "s", "--limit", 1)
    assert code == 0 and len(out.splitlines()) == 1 and "stopped after 1 match (--limit)" in err


def test_no_warning_with_within(capsys):
    code, _, err = run_cli(capsys, "run", ROOT / "examples/sase1_stock.query", ROOT / "examples/stocks.csv")
    assert code == 0 and "warning" not in err


def test_progress_line_shows_matches_and_live_state():
    budget = Budget()
    budget.matches, budget.batch_matches, budget.live, budget.peak = 5, 7, 1234, 5000
    assert Progress("cepkit reference", False).watch(budget).matches() == \
        "12 matches, 1,234 live runs (peak 5,000)"
