"""MATCH_RECOGNIZE: the optimized engine against the reference (and pandas-match-recognize where it is
installed) on the same random ticker, engine-only rows/s and their ratios, in one run.

    python -m benchmarks.sql_optimized [--rows 100000 1000000] [--reference-rows 20000] [--repeat 3]
                                       [--process-rows 0]

The ticker: `--partitions` symbols (40), an integer price random walk per symbol, ts increasing. Engine-only
time is `program.run(batch)` on a batch read before timing (the optimized engine's Numba code compiled by
a warm-up run first); the reference and the peer run on `--reference-rows` rows (they are ~10^4 rows/s),
the optimized engine on every `--rows` size. Ratios compare rows/s. `--process-rows N` also times the whole
`cepkit run QUERY FILE.parquet --engine optimized` process over N rows of Parquet (import, read, match,
write). Figures depend on the machine: compare ratios from one run.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import pandas as pd

QUERIES = {
    "v-shape": """SELECT * FROM ticker MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY ts
  MEASURES STRT.price AS start_price, LAST(DOWN.price) AS bottom, LAST(UP.price) AS top, COUNT(*) AS n
  ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW
  PATTERN (STRT DOWN+ UP+)
  DEFINE DOWN AS price < PREV(price), UP AS price > PREV(price))""",
    "alternation-bounded": """SELECT * FROM ticker MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY ts
  MEASURES FIRST(ts) AS first_ts, LAST(ts) AS last_ts, COUNT(*) AS n
  ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A (B | C){2,4} D)
  DEFINE A AS price > PREV(price), B AS price < PREV(price) - 1, C AS price = PREV(price),
         D AS price > PREV(price) + 1)""",
}


def ticker(rows: int, partitions: int = 40, seed: int = 0) -> pd.DataFrame:
    """`rows` rows over `partitions` symbols: ts 1..rows, prices an integer random walk per symbol."""
    rng = np.random.default_rng(seed)
    symbol = rng.integers(0, partitions, rows)
    steps = rng.integers(-3, 4, rows)
    order = np.argsort(symbol, kind="stable")
    walk = np.empty(rows, np.int64)
    sorted_steps = steps[order]
    sorted_sym = symbol[order]
    cum = np.cumsum(sorted_steps)
    starts = np.flatnonzero(np.r_[True, sorted_sym[1:] != sorted_sym[:-1]])
    base = np.repeat(cum[starts] - sorted_steps[starts], np.diff(np.r_[starts, rows]))
    walk[order] = 1000 + cum - base
    return pd.DataFrame({"ts": np.arange(1, rows + 1, dtype=np.int64),
                         "symbol": np.array([f"S{k:03d}" for k in range(partitions)])[symbol], "price": walk})


def engine_seconds(query: str, frame: pd.DataFrame, engine: str, repeat: int) -> tuple[float, int]:
    """Best seconds of `program.run(batch)` over `repeat` runs, and the number of output rows."""
    import cepkit
    from cepkit.core import registry
    program = cepkit.compile(query, language="sql", engine=engine)
    batch = registry.read_input("sql", engine, frame, query=program.q)
    best, n = float("inf"), 0
    for _ in range(repeat):
        program = cepkit.compile(query, language="sql", engine=engine)
        batch = registry.read_input("sql", engine, frame, query=program.q)
        t0 = time.perf_counter()
        n = len(program.run(batch))
        best = min(best, time.perf_counter() - t0)
    return best, n


def peer_seconds(query: str, frame: pd.DataFrame, repeat: int) -> tuple[float, int] | None:
    """pandas-match-recognize on the same query and rows (None where it is not installed)."""
    from benchmarks.pandas_mr import run_peer

    best, n = float("inf"), 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        try:
            n = len(run_peer(query, frame.copy()))
        except ImportError:   # the peers extra is not installed
            return None
        best = min(best, time.perf_counter() - t0)
    return best, n


def process_seconds(query: str, rows: int) -> float:
    """Seconds of the whole `cepkit run` process over `rows` rows of Parquet, writing Parquet."""
    with tempfile.TemporaryDirectory() as tmp:
        data, qfile, out = (os.path.join(tmp, n) for n in ("ticker.parquet", "q.sql", "out.parquet"))
        ticker(rows).to_parquet(data)
        with open(qfile, "w") as f:
            f.write(query)
        cmd = [sys.executable, "-m", "cepkit.cli", "run", qfile, data, "--engine", "optimized", "--output", out,
               "--format", "parquet"]
        subprocess.run(cmd, check=True, capture_output=True)   # warm: the compiled code is cached on disk
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        return time.perf_counter() - t0


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--reference-rows", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--process-rows", type=int, default=0)
    ap.add_argument("--queries", nargs="+", default=list(QUERIES), choices=list(QUERIES))
    ap.add_argument("--json", help="also write the rows as JSON here (benchmarks/plot_optimized.py plots them)")
    args = ap.parse_args(argv)
    out: list[dict] = []
    print(f"{'query':<22} {'engine':<24} {'rows':>10} {'matches':>9} {'seconds':>9} {'rows/s':>13} {'x reference':>12}"
          f" {'x peer':>8}")
    for name in args.queries:
        q = QUERIES[name]
        small = ticker(args.reference_rows)
        ref_s, ref_n = engine_seconds(q, small, "reference", 1)
        ref_rate = args.reference_rows / ref_s
        peer = peer_seconds(q, small, 1)
        peer_rate = args.reference_rows / peer[0] if peer else None
        engine_seconds(q, small.head(1000), "optimized", 1)   # warm: the query's generated code, compiled once
        opt_s, opt_n = engine_seconds(q, small, "optimized", args.repeat)
        assert opt_n == ref_n, (name, opt_n, ref_n)

        def line(engine, rows, n, s, rate):
            out.append({"language": "sql", "query": name, "engine": engine, "rows": rows, "matches": n, "rate": rate})
            vs_peer = f"{rate / peer_rate:8.1f}" if peer_rate else f"{'-':>8}"
            print(f"{name:<22} {engine:<24} {rows:>10,} {n:>9,} {s:>9.3f} {rate:>13,.0f} {rate / ref_rate:>12.1f}"
                  f" {vs_peer}", flush=True)

        line("reference", args.reference_rows, ref_n, ref_s, ref_rate)
        if peer:
            line("pandas-match-recognize", args.reference_rows, peer[1], peer[0], peer_rate)
        line("optimized", args.reference_rows, opt_n, opt_s, args.reference_rows / opt_s)
        for rows in args.rows:
            s, n = engine_seconds(q, ticker(rows), "optimized", args.repeat)
            line("optimized", rows, n, s, rows / s)
        if args.process_rows:
            s = process_seconds(q, args.process_rows)
            line("cepkit run (process)", args.process_rows, 0, s, args.process_rows / s)
    if args.json:
        from benchmarks.tpstream_optimized import write_json

        write_json(args.json, out)


if __name__ == "__main__":
    main()
