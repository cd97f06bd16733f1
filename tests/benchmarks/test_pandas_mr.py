"""pandas-match-recognize (benchmarks/pandas_mr.py, the optional `peers` extra) agrees with the reference on
small tables; skipped where the package is not installed."""
from __future__ import annotations

import sys

import pandas as pd
import pytest

from benchmarks import pandas_mr as P

HEAD = "SELECT * FROM ticker MATCH_RECOGNIZE (PARTITION BY symbol ORDER BY ts "
QUERIES = {
    "alternation-bounded": HEAD + "MEASURES FIRST(A.ts) AS s, LAST(ts) AS e, COUNT(*) AS n, COUNT(B.*) AS nb, "
                                  "MATCH_NUMBER() AS mn, CLASSIFIER() AS cls PATTERN (A (B | C){1,3} D) "
                                  "DEFINE B AS price < PREV(price), C AS price = PREV(price), D AS price > PREV(price))",
    "skip-to-next-row": HEAD + "MEASURES FIRST(ts) AS s, LAST(ts) AS e AFTER MATCH SKIP TO NEXT ROW "
                               "PATTERN (A B+ C+) DEFINE B AS price < PREV(price), C AS price > PREV(price))",
    "reluctant": HEAD + "MEASURES FIRST(ts) AS s, LAST(ts) AS e, COUNT(B.*) AS nb PATTERN (A B+? C) "
                        "DEFINE B AS price <= PREV(price), C AS price > PREV(price))",
    "permute": HEAD + "MEASURES FIRST(ts) AS s, CLASSIFIER() AS cls PATTERN (PERMUTE(B, C)) "
                      "DEFINE B AS price < PREV(price), C AS price > PREV(price))",
    "all-rows-unmatched": HEAD + "MEASURES CLASSIFIER() AS cls, RUNNING COUNT(*) AS n ALL ROWS PER MATCH "
                                 "WITH UNMATCHED ROWS PATTERN (B+) DEFINE B AS price < PREV(price))",
}


def test_missing_package_is_an_import_error_with_the_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas_match_recognize", None)
    with pytest.raises(ImportError, match="cepkit\\[peers\\]"):
        P.run_peer(P.V_SHAPE, P.ticker(10))


def test_v_shape_agrees_on_the_example_ticker():
    pytest.importorskip("pandas_match_recognize", reason=P.INSTALL_HINT)
    df = pd.read_csv(P.EXAMPLES / "ticker.csv")
    want = P.run_reference(P.V_SHAPE, df)
    assert want and P.multiset(P.run_peer(P.V_SHAPE, df)) == P.multiset(want)


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_queries_agree_on_a_random_ticker(name):
    pytest.importorskip("pandas_match_recognize", reason=P.INSTALL_HINT)
    df = P.ticker(120, symbols=2, seed=7)
    want = P.run_reference(QUERIES[name], df)
    assert want and P.multiset(P.run_peer(QUERIES[name], df)) == P.multiset(want)
