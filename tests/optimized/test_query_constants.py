"""A kernel is compiled per engine and argument types, never per query (issue 29): an optimized
MATCH_RECOGNIZE query or AFA that differs from one run before only in its constants, column, variable,
register or measure names, or its window loads the cached code (Numba's compile events counted in a fresh
process, as tests/optimized/test_kernel_cache.py counts them) and gives the reference engine's rows.

The first run of each pair may compile (a cold cache); only the changed query's run is counted."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd

import cepkit
from cepkit.core import registry

ROOT = Path(__file__).resolve().parents[2]
SQL = ROOT / "examples" / "sql"
AFA = ROOT / "examples" / "afa"

PROBE = r"""
import json, sys
from numba.core import event
recorder = event.RecordingListener()
event.register("numba:compile", recorder)
from cepkit.cli import main
done = []
for args in json.loads(sys.argv[1]):
    start = len(recorder.buffer)
    code = main(["run", *args, "--no-progress"])
    done.append({"code": code, "compiled": sum(1 for _, e in recorder.buffer[start:] if e.is_start)})
print(json.dumps(done))
"""

# a V shape with numbers, a fraction, a truth value and text in DEFINE and MEASURES
V_SHAPE = """SELECT * FROM ticker MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY ts
  MEASURES A.price AS start_price, LAST(B.price) * 2 AS bottom2, LAST(C.price) - 1.5 AS top_less,
           MATCH_NUMBER() AS match_no, TRUE AS flag, 'v' AS shape
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A B+ C+)
  DEFINE B AS price < PREV(price) - 0,
         C AS price > PREV(price) + 0 AND price < 100 AND symbol <> 'NONE'
)"""
# the same shape: other constants, another column name (the table's too), variable and measure names
V_SHAPE_CHANGED = (V_SHAPE.replace("price", "cost").replace("A.", "X.").replace("(A ", "(X ")
                   .replace("* 2", "* 3").replace("1.5", "2.5").replace("- 0,", "- 1,").replace("< 100", "< 22")
                   .replace("TRUE", "FALSE").replace("'v'", "'vee'").replace("'NONE'", "'ACME'")
                   .replace("start_cost", "first_cost"))


def _probe(runs: list[list[str]], cwd: Path) -> list[dict]:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_LOCATOR_CLASSES"}
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(runs)], cwd=cwd, capture_output=True, text=True,
                          timeout=900, env={**env, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _rows(path: Path) -> list[str]:
    return sorted(line for line in path.read_text().splitlines() if line.strip())


def _check(tmp_path: Path, first: list[list[str]], changed: list[list[str]], engine_flag: str = "--engine") -> None:
    """Run `first` (each a query and its events) on the optimized engine, then `changed` in a new process:
    nothing compiles, and each changed run writes the reference engine's rows."""
    out = lambda name, k: str(tmp_path / f"{name}{k}.jsonl")   # noqa: E731
    warm = _probe([[*args, engine_flag, "optimized", "--output", out("first", k)] for k, args in enumerate(first)],
                  tmp_path)
    assert all(r["code"] == 0 for r in warm), warm
    runs = [[*args, engine_flag, "optimized", "--output", out("opt", k)] for k, args in enumerate(changed)]
    runs += [[*args, engine_flag, "reference", "--output", out("ref", k)] for k, args in enumerate(changed)]
    done = _probe(runs, tmp_path)
    assert all(r["code"] == 0 for r in done), done
    assert [r["compiled"] for r in done[:len(changed)]] == [0] * len(changed), done
    for k in range(len(changed)):
        got, want = _rows(tmp_path / f"opt{k}.jsonl"), _rows(tmp_path / f"ref{k}.jsonl")
        assert got == want and want, (k, got, want)
        assert got != _rows(tmp_path / f"first{k}.jsonl")   # the change changed the answer


def test_a_sql_query_with_other_constants_and_names_runs_without_compiling(tmp_path):
    (tmp_path / "v.sql").write_text(V_SHAPE)
    (tmp_path / "v2.sql").write_text(V_SHAPE_CHANGED)
    table = (SQL / "ticker.csv").read_text()
    (tmp_path / "ticker2.csv").write_text(table.replace("price", "cost", 1))
    insider = (SQL / "insider.sql").read_text()
    changed = insider.replace("p < 10", "p < 31").replace("v > 1000", "v > 99").replace("p > 50", "p > 29")
    changed = changed.replace("WITHIN 10", "WITHIN 4").replace("AS waited", "AS between")
    assert changed.count("31") == 1 and "WITHIN 4" in changed and "p > 29" in changed
    (tmp_path / "insider2.sql").write_text(changed)
    _check(tmp_path, [[str(tmp_path / "v.sql"), str(SQL / "ticker.csv")],
                      [str(SQL / "insider.sql"), str(SQL / "trades.csv")]],
           [[str(tmp_path / "v2.sql"), str(tmp_path / "ticker2.csv")],
            [str(tmp_path / "insider2.sql"), str(SQL / "trades.csv")]])


def test_an_afa_with_other_constants_and_names_runs_without_compiling(tmp_path):
    text = (AFA / "q1.afa.yaml").read_text()
    changed = (text.replace("k: 2, delta: 25", "k: 1, delta: 50").replace("window: 7", "window: 9")
               .replace('"e.change < 0"', '"e.change < 20"').replace("r1", "u1"))
    assert "k: 1, delta: 50" in changed and "e.change < 20" in changed and "r.u1" in changed
    (tmp_path / "q1.afa.yaml").write_text(changed)
    _check(tmp_path, [[str(AFA / "q1.afa.yaml"), str(AFA / "q1.events.csv"), "--net"]],
           [[str(tmp_path / "q1.afa.yaml"), str(AFA / "q1.events.csv"), "--net"]])


def test_the_generated_source_depends_on_the_shape_only():
    """Without compiling: the SQL module and the AFA's `fire` are the same text for queries that differ in
    constants and names (so the module cache and Numba's cache find them), and differ with the shape."""
    from cepkit.front.afa.afafile import loads_afa
    from cepkit.front.sql.parse import parse
    from cepkit.optimized.afa.automaton import automaton
    from cepkit.optimized.afa.exprgen import Texts, fire_source
    from cepkit.optimized.sql.engine import Plan

    def sql(text: str) -> str:
        return Plan(parse(text)).source(frozenset({"ts"}))

    assert sql(V_SHAPE) == sql(V_SHAPE_CHANGED)
    assert sql(V_SHAPE) != sql(V_SHAPE.replace("- 0,", "- 0.5,"))   # a fraction: another shape
    insider = (SQL / "insider.sql").read_text()
    assert sql(insider) == sql(insider.replace("10", "7").replace("50", "3"))

    def fire(text: str) -> str:
        afa = loads_afa(text)
        return fire_source(afa, Texts(), {}, automaton(afa).branches, [])

    q1 = (AFA / "q1.afa.yaml").read_text()
    assert fire(q1) == fire(q1.replace("delta: 25", "delta: 3").replace("< 0", "< 4").replace("r1", "u1"))
    assert fire(q1) != fire(q1.replace("e.change < 0", "e.change + 1 < 0"))


def test_fractions_text_truth_values_and_null_constants_keep_their_meaning():
    """Constants read from SC (fractions, text, TRUE / FALSE) and NULL give the reference's rows."""
    frame = pd.DataFrame({"ts": range(1, 9), "s": ["a", "b", "a", "c", "b", "a", "c", "a"],
                          "x": [5, 3, 4, 12, 1, 12, 2, 7]})
    text = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES FIRST(A.x) AS a, LAST(B.x) / 4 AS q, "
            "FALSE AS no, TRUE AS yes, NULL AS nothing, COUNT(*) AS n PATTERN (A B+) "
            "DEFINE A AS (x >= 4.5 OR s = 'c') AND TRUE, B AS (x < PREV(x) OR NOT FALSE AND s = 'c') "
            "AND x IS NOT NULL AND NULL IS NULL)")
    tables = {}
    for engine in ("reference", "optimized"):
        program = cepkit.compile(text, language="sql", engine=engine)
        tables[engine] = program.run(registry.read_input("sql", engine, frame, query=program.q))
    assert list(tables["optimized"]) == list(tables["reference"]) and len(tables["reference"])
