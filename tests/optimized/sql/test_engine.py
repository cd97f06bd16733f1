"""The optimized MATCH_RECOGNIZE engine: the CLI gives the reference's answer, refusals name the construct,
and errors (overflow, AFTER MATCH SKIP, text where numbers are needed) are the reference's kind."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import cepkit
from cepkit.core import registry
from cepkit.core.errors import EventError, QueryError, Unsupported
from tests.cepkit.test_cli import run_cli

EX = Path(__file__).resolve().parents[3] / "examples" / "sql"


def _lines(out: str) -> list:
    return sorted(json.dumps(json.loads(line), sort_keys=True) for line in out.splitlines() if line.strip())


@pytest.mark.parametrize("query", ["v_shape.sql", "v_shape_all_rows.sql"])
def test_cli_gives_the_reference_answer(capsys, query):
    runs = {}
    for engine in ("reference", "optimized"):
        code, out, err = run_cli(capsys, "run", EX / query, EX / "ticker.csv", "--engine", engine)
        assert code == 0, err
        runs[engine] = _lines(out)
    assert runs["optimized"] == runs["reference"]
    assert runs["reference"]


def _run(text: str, frame: pd.DataFrame, engine: str = "optimized"):
    program = cepkit.compile(text, language="sql", engine=engine)
    return program.run(registry.read_input("sql", engine, frame, query=program.q))


@pytest.mark.parametrize("define", ["B AS B.x > A.x AND x > FIRST(x) AND LAST(A.x, 0) < 9",
                                    "B AS SUM(B.x) < 9 AND COUNT(A.*) = 1 AND PREV(LAST(B.x), 1) <= x"])
def test_conditions_on_the_match_give_the_reference_s_rows(define):
    """DEFINE reading the match so far (other variables, FIRST / LAST, aggregates) runs per thread."""
    frame = pd.DataFrame({"ts": range(1, 13), "x": [1, 3, 2, 5, 4, 4, 7, 1, 2, 3, 9, 0]})
    text = (f"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES COUNT(*) AS n, SUM(B.x) AS s "
            f"PATTERN (A B+) DEFINE {define})")
    want, got = _run(text, frame, "reference"), _run(text, frame)
    assert got.canonical() == want.canonical() and len(want)


@pytest.mark.parametrize("strategy", ["", "SKIP_TILL_NEXT_MATCH", "SKIP_TILL_ANY_MATCH"])
def test_all_matches_under_each_strategy_give_the_reference_s_rows(strategy):
    frame = pd.DataFrame({"ts": range(1, 11), "x": [1, 3, 2, 5, 4, 4, 7, 1, 2, 3]})
    text = (f"SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES FIRST(A.x) AS a, LAST(B.x) AS b, COUNT(*) AS n "
            f"ALL MATCHES {strategy} PATTERN (A B+ C) DEFINE B AS x > PREV(x), C AS x < B.x)")
    want, got = _run(text, frame, "reference"), _run(text, frame)
    assert list(got) == list(want) and len(want)   # the same rows, in the same order


def test_overflow_is_an_event_error_naming_the_row():
    frame = pd.DataFrame({"ts": [1, 2, 3], "x": [1, 2**62, 3]})
    text = "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES COUNT(*) AS n PATTERN (A+) DEFINE A AS x * 4 > 0)"
    assert len(_run(text, frame, "reference")) == 1   # the reference is exact
    with pytest.raises(EventError) as info:
        _run(text, frame)
    assert info.value.row == 2 and "64-bit" in str(info.value)


def test_skip_errors_are_the_reference_s():
    frame = pd.DataFrame({"ts": [1, 2, 3], "x": [1, 2, 3]})
    text = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES COUNT(*) AS n AFTER MATCH SKIP TO FIRST A "
            "PATTERN (A B) DEFINE B AS x > 0)")
    errors = []
    for engine in ("reference", "optimized"):
        with pytest.raises(QueryError) as info:
            _run(text, frame, engine)
        errors.append(str(info.value))
    assert errors[0] == errors[1]


def test_text_where_numbers_are_needed_is_the_reference_s_error():
    frame = pd.DataFrame({"ts": [1, 2, 3], "x": [1, "high", 3]})
    text = "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES COUNT(*) AS n PATTERN (A+) DEFINE A AS x > 0)"
    errors = []
    for engine in ("reference", "optimized"):
        with pytest.raises(EventError) as info:
            _run(text, frame, engine)
        errors.append((str(info.value), info.value.row, info.value.column))
    assert errors[0] == errors[1]


def test_failed_starts_cost_rows_times_program_size():
    """No start row matches `(A | B)* C` over a/b rows: the states of failed runs are dead for later starts
    (as in the reference VM), so the work is linear in the rows, not quadratic (work counted, not time)."""
    text = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES COUNT(*) AS n PATTERN ((A | B)* C) "
            "DEFINE A AS k = 'a', B AS k = 'b', C AS k = 'c')")
    steps = {}
    for n in (500, 5000):
        program = cepkit.compile(text, language="sql", engine="optimized")
        frame = pd.DataFrame({"ts": range(n), "k": (["a", "b"] * n)[:n]})
        assert len(program.run(registry.read_input("sql", "optimized", frame, query=program.q))) == 0
        steps[n] = program.steps
    assert steps[5000] <= 11 * steps[500], steps   # linear (x10 rows), where quadratic would be x100
