"""Usage errors that help (cepkit/usage.py, issue 34): a mistyped option prints the usage of the subcommand it was
given to and a "did you mean" for a near miss; a mistyped subcommand or choice names the closest one; the
top-level usage lists every subcommand. Exit code 2 throughout."""
from __future__ import annotations

from pathlib import Path

import pytest

from cepkit.cli import build_parser, main

EX = Path(__file__).resolve().parents[2] / "examples"
Q, E = str(EX / "Q1.query"), str(EX / "stocks.csv")


def usage_error(capsys, argv: list[str]) -> str:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    return capsys.readouterr().err


def test_a_near_miss_option_prints_the_subcommands_usage_and_the_option_meant(capsys):
    err = usage_error(capsys, ["run", Q, E, "--formt", "csv"])
    assert err.startswith("usage: cepkit run ") and "--max-state N" in err   # run's usage, not the top level's
    assert err.rstrip().endswith("cepkit run: error: unrecognized arguments: --formt csv (did you mean --format?)")


def test_a_nested_subcommands_option_is_its_usage(capsys):
    err = usage_error(capsys, ["spark", "run", Q, E, "out", "--mastr", "local"])
    assert err.startswith("usage: cepkit spark run ") and "(did you mean --master?)" in err


def test_an_option_close_to_none_gets_no_suggestion(capsys):
    err = usage_error(capsys, ["run", Q, E, "--zzzzzz"])
    assert err.startswith("usage: cepkit run ") and "unrecognized arguments: --zzzzzz\n" in err
    assert "did you mean" not in err


@pytest.mark.parametrize("argv,wrong,usage,meant", [
    (["rn", Q, E], "rn", "usage: cepkit [-h]", "run"),
    (["spark", "rn", Q, E, "out"], "rn", "usage: cepkit spark ", "run"),
    (["window", "filtr", E], "filtr", "usage: cepkit window ", "filter"),
    (["run", Q, E, "--format", "jsnl"], "jsnl", "usage: cepkit run ", "jsonl"),
])
def test_a_mistyped_subcommand_or_choice_names_the_closest(argv, wrong, usage, meant, capsys):
    err = usage_error(capsys, argv)
    assert err.startswith(usage) and f"invalid choice: '{wrong}' (did you mean '{meant}'? choose from " in err


def test_the_top_level_usage_lists_every_subcommand(capsys):
    err = usage_error(capsys, [])
    commands = build_parser()._subparsers._group_actions[0].choices
    assert len(commands) >= 10
    usage = err.split("cepkit: error")[0]
    assert all(name in usage for name in commands), usage


def test_the_fast_start_parser_of_run_still_reports_run_errors_with_runs_usage(capsys):
    err = usage_error(capsys, ["run"])   # (built without the other subcommands: cepkit/cli.py build_parser)
    assert err.startswith("usage: cepkit run ") and "the following arguments are required: query" in err
