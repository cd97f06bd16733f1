"""Runs indexed by partition key (issue 20): the optimized engine on `[price]` queries with many distinct
prices, the key index on and off (`index=False`: every event visits every live run, the engine before the
index), alternated in one process, engine only (the batch is built before the clock starts; the program is
compiled and warmed on a prefix first).

Workload: three event types stock1 / stock2 / stock3 drawn uniformly, `price` uniform over 1..prices
(default 1,000 distinct values), ts = position, so `WITHIN 1000` spans 1,000 events. Queries: the
three-event sequence `SEQ(stock1 a, stock2 b, stock3 c) WHERE <strategy> { [price] } WITHIN 1000` under
the four strategies (seq-s1 .. seq-s4), and a partitioned Kleene closure with an aggregate (kleene).
Run: python -m benchmarks.partition_keys --events 100000 1000000 [--repeat 3] [--queries seq-s4 kleene]
"""
from __future__ import annotations

import argparse
import time
from functools import lru_cache

import numpy as np
import pandas as pd

STRATEGIES = {"s1": "strict_contiguity", "s2": "partition_contiguity", "s3": "skip_till_next_match",
              "s4": "skip_till_any_match"}
SEQ = "PATTERN SEQ(stock1 a, stock2 b, stock3 c) WHERE {strategy} {{ [price] }} WITHIN 1000"
KLEENE = ("PATTERN SEQ(stock1 a, stock2+ b[], stock3 c) WHERE skip_till_next_match { [price] and "
          "b[i].volume > avg(b[..i-1].volume) and c.volume < a.volume } WITHIN 1000 RETURN sum(b[].volume) AS v")
QUERIES = [f"seq-{s}" for s in STRATEGIES] + ["kleene"]
PRICES = 1000


def query_text(name: str) -> str:
    if name == "kleene":
        return KLEENE
    return SEQ.format(strategy=STRATEGIES[name.split("-")[1]])


def generate(n: int, prices: int = PRICES, seed: int = 0) -> pd.DataFrame:
    """n events: id, ts = position, type stock1..stock3, price in 1..prices, volume in 1..1000."""
    rng = np.random.default_rng(seed)
    types = np.array(["stock1", "stock2", "stock3"])[rng.integers(0, 3, size=n)]
    return pd.DataFrame({"id": np.arange(n), "ts": np.arange(n), "type": types,
                         "price": rng.integers(1, prices + 1, size=n), "volume": rng.integers(1, 1001, size=n)})


@lru_cache(maxsize=4)
def stream(n: int, prices: int = PRICES):
    from cepkit.core.readers import from_pandas

    return from_pandas(generate(n, prices))


def run_once(name: str, n: int, index: bool, prices: int = PRICES) -> tuple[float, int]:
    """(seconds of program.run, matches) for one compiled program, warm (compiled and run on a prefix)."""
    from cepkit import compile

    text = query_text(name)
    batch = stream(n, prices)
    compile(text, engine="optimized", index=index).run(batch.slice(0, min(n, 3_000)))
    program = compile(text, engine="optimized", index=index)
    t0 = time.perf_counter()
    matches = program.run(batch)
    return time.perf_counter() - t0, len(matches)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, nargs="+", default=[100_000])
    ap.add_argument("--queries", nargs="+", default=QUERIES, choices=QUERIES)
    ap.add_argument("--prices", type=int, default=PRICES)
    ap.add_argument("--repeat", type=int, default=1, help="alternations of off / on; the best of each is kept")
    args = ap.parse_args(argv)
    print("| query | events | matches | index off s | index on s | off / on |")
    print("|---|---|---|---|---|---|")
    for n in args.events:
        for name in args.queries:
            best = {False: float("inf"), True: float("inf")}
            counts = {}
            for _ in range(args.repeat):
                for index in (False, True):
                    seconds, counts[index] = run_once(name, n, index, args.prices)
                    best[index] = min(best[index], seconds)
            if counts[False] != counts[True]:
                raise SystemExit(f"{name}: {counts[False]} matches without the index, {counts[True]} with it")
            print(f"| {name} | {n:,} | {counts[True]:,} | {best[False]:.3f} | {best[True]:.3f} | "
                  f"{best[False] / best[True]:.1f} |", flush=True)


if __name__ == "__main__":
    main()
