"""--limit on SQL ALL MATCHES (issue 30): the engines stop once the rows wanted are found, as the SASE form does,
and the rows are the first ones of the full run."""
from __future__ import annotations

import importlib.util
import warnings

import pandas as pd
import pytest

import cepkit
from cepkit.core.contract import Budget
from cepkit.core.errors import CepkitWarning, ResourceLimit

# gpu: the OpenCL device finds the matches (on PoCL's CPU device where there is no GPU)
ENGINES = ["reference", "optimized"] + (["gpu"] if importlib.util.find_spec("pyopencl") else [])
BODY = ("MATCH_RECOGNIZE (PARTITION BY p ORDER BY ts MEASURES COUNT(A.v) AS n, LAST(B.v) AS b "
        "ALL MATCHES {strategy} PATTERN (A+ B) DEFINE A AS v > 0, B AS v < 0)")


def query(outer: str = "SELECT *", strategy: str = "SKIP_TILL_ANY_MATCH") -> str:
    return f"{outer} FROM t {BODY.format(strategy=strategy)}"


def frame(parts: dict[str, list[int]]) -> pd.DataFrame:
    rows = [(p, v) for p, vs in parts.items() for v in vs]
    return pd.DataFrame({"ts": range(len(rows)), "p": [p for p, _ in rows], "v": [v for _, v in rows]})


SMALL = frame({"x": [1, 1, -1, 1, 1, -2], "y": [1, 1, 1, -3, 1, -4]})   # 3 + 15 matches in x, 7 + 31 in y
# 3 A rows then a B (7 matches), then 14 A rows: 2^17 runs live, past max_state=1000
EXPLOSIVE = frame({"x": [1, 1, 1, -1] + [1] * 14 + [-1]})


def run(text: str, df: pd.DataFrame, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CepkitWarning)
        return cepkit.run(text, df, language="sql", **options)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("strategy", ["SKIP_TILL_ANY_MATCH", "CONTIGUOUS", "SKIP_TILL_NEXT_MATCH"])
@pytest.mark.parametrize("outer", ["SELECT *", "SELECT n, b AS last_b"])
def test_limit_gives_the_first_rows_of_the_full_run(engine, strategy, outer):
    full = run(query(outer, strategy), SMALL, engine=engine)
    assert len(full) > 12 if strategy == "SKIP_TILL_ANY_MATCH" else len(full) >= 2
    for limit in (1, 3, 5, 12, 60):
        cut = run(query(outer, strategy), SMALL, engine=engine, limit=limit)
        assert cut.rows() == full.rows()[:limit]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("outer", ["SELECT *", "SELECT n, b AS last_b"])
def test_limit_stops_before_the_explosion(engine, outer):
    """(gpu refuses an explicit max_state, as it does not count its state exactly; it stops at the default
    bound, set here on the program as the default would be)"""
    def bounded(**options):
        if engine != "gpu":
            return run(query(outer), EXPLOSIVE, engine=engine, max_state=1000, **options)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CepkitWarning)
            program = cepkit.compile(query(outer), language="sql", engine="gpu", **options)
        program.budget = Budget(options.get("limit"), 1000)   # (an SQL front step passes it on)
        return program.run(EXPLOSIVE)

    with pytest.raises(ResourceLimit, match="more than 1,000 live partial matches"):
        bounded()
    assert len(bounded(limit=5)) == 5


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("outer, tail", [("SELECT *", " WHERE n > 1"), ("SELECT n", " ORDER BY n DESC")])
def test_an_outer_query_that_drops_or_reorders_rows_needs_every_match(engine, outer, tail):
    """The limit counts the outer query's rows: behind an outer WHERE or ORDER BY the inner program cannot
    know which of its matches are the first rows, so it finds them all (and meets the bound)."""
    full = run(query(outer) + tail, SMALL, engine=engine)
    assert run(query(outer) + tail, SMALL, engine=engine, limit=4).rows() == full.rows()[:4]
    if engine != "gpu":
        with pytest.raises(ResourceLimit, match="more than 1,000 live partial matches"):
            run(query(outer) + tail, EXPLOSIVE, engine=engine, max_state=1000, limit=5)
