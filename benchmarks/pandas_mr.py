"""A peer implementation for agreement checks and timings: the PyPI package pandas-match-recognize (optional,
`pip install 'cepkit[peers]'`), which runs MATCH_RECOGNIZE query text on a pandas DataFrame.

    python -m benchmarks.pandas_mr --rows 20000     # V-shape on a random ticker: both row sets, both timings

Output rows are compared as multisets of plain values (numbers as exact ints or Fractions, nulls as None).

Differences seen with pandas-match-recognize 0.2.5 (it installs a top-level package named `src`):
- it reads the query as one line, so a `--` comment hides the rest of the query (`peer_text` drops them);
- an unqualified FIRST(col) in DEFINE is not the first row of the match so far: `PATTERN (A B+) DEFINE B
  AS price < FIRST(price)` finds fewer matches than the same query with A.price, which the reference equals;
- its errors are ValueError with its own text (AFTER MATCH SKIP TO FIRST A at the match's first row).
"""
from __future__ import annotations

import argparse
import math
import re
import time
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "sql"
V_SHAPE = (EXAMPLES / "v_shape.sql").read_text()
INSTALL_HINT = "pandas-match-recognize is not installed (pip install 'cepkit[peers]')"


def peer_text(query: str) -> str:
    """The query as pandas-match-recognize parses it: no `--` comments (it reads the text as one line)."""
    return re.sub(r"--[^\n]*", "", query).strip().rstrip(";")


def plain(value: Any) -> Any:
    """A cell as a comparable exact value: numpy scalars unwrapped, NaN / NA as None, integral floats as int."""
    if value is None or value is pd.NA:
        return None
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        if math.isnan(value):
            return None
        return int(value) if value.is_integer() else Fraction(value).limit_denominator(10 ** 9)
    return value


def run_peer(query: str, df: pd.DataFrame) -> list[dict[str, Any]]:
    """The output rows of pandas-match-recognize (ImportError with the install hint when it is missing)."""
    try:
        from pandas_match_recognize import match_recognize
    except ImportError as exc:
        raise ImportError(INSTALL_HINT) from exc
    out = match_recognize(peer_text(query), df)
    return [{c: plain(v) for c, v in zip(out.columns, row)} for row in out.itertuples(index=False, name=None)]


def run_reference(query: str, df: pd.DataFrame) -> list[dict[str, Any]]:
    """The output rows of cepkit's reference engine (the match table's payload; without the row numbers the
    reader makes up as ids when the frame has no id column, which ALL ROWS PER MATCH would show)."""
    import cepkit
    from cepkit.core import registry
    program = cepkit.compile(query, language="sql")
    table = program.run(registry.read_input("sql", "reference", df, query=registry.parse("sql", query)))
    made_up = set() if "id" in df.columns else {"id"}
    return [{c: plain(v) for c, v in m.payload if c not in made_up} for m in table]


def multiset(rows: list[dict[str, Any]]) -> Counter:
    return Counter(tuple(sorted(r.items())) for r in rows)


def ticker(rows: int, symbols: int = 4, seed: int = 0) -> pd.DataFrame:
    """A random-walk price per symbol: columns symbol, ts, price (integers)."""
    rng = np.random.default_rng(seed)
    sym = rng.integers(0, symbols, rows)
    steps = rng.integers(-3, 4, rows)
    price = np.zeros(rows, dtype=np.int64)
    for s in range(symbols):
        at = sym == s
        price[at] = 100 + np.cumsum(steps[at])
    return pd.DataFrame({"symbol": [f"S{s}" for s in sym], "ts": np.arange(1, rows + 1), "price": price})


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=20_000)
    args = ap.parse_args(argv)
    df = ticker(args.rows)
    timings = {}
    results = {}
    for name, run in (("reference", run_reference), ("pandas-match-recognize", run_peer)):
        t0 = time.perf_counter()
        results[name] = run(V_SHAPE, df)
        timings[name] = time.perf_counter() - t0
        print(f"{name:24s} {len(results[name]):6d} rows  {timings[name]:8.2f} s")
    same = multiset(results["reference"]) == multiset(results["pandas-match-recognize"])
    print("same rows" if same else "rows differ")


if __name__ == "__main__":
    main()
