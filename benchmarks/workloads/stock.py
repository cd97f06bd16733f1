"""The synthetic stock ticker of spec/000 §7.1 (SIGMOD'08 experiments), with its gaps filled (§9 A17).

One event type `stock`; `symbol` uniform over 1..symbols; `volume` uniform over 1..1000; each symbol's
price starts at 500 and moves up by `step` with probability p_up, down with (1-p_up)/2, and stays with
(1-p_up)/2, reflected into [1, 1000]. One event per tick: ts = position. Deterministic for a seed.
`volume_max` (default 1000, the paper's range) widens the volume range: Query 3 needs volumes above 1000.
Run: python -m benchmarks.workloads.stock N OUT.csv|OUT.parquet [--p-up 0.7] [--seed 0] [--volume-max 1000]
"""
from __future__ import annotations

import argparse

import numpy as np
import pandas as pd


def generate(n: int, p_up: float = 0.7, symbols: int = 2, step: int = 1, seed: int = 0,
             event_type: str = "stock", volume_max: int = 1000) -> pd.DataFrame:
    """n events with columns id, ts, type, symbol, price, volume."""
    rng = np.random.default_rng(seed)
    sym = rng.integers(1, symbols + 1, size=n)
    volume = rng.integers(1, volume_max + 1, size=n)
    moves = rng.choice(np.array([step, -step, 0]), size=n, p=[p_up, (1 - p_up) / 2, (1 - p_up) / 2])
    price = np.empty(n, dtype=np.int64)
    for s in range(1, symbols + 1):
        idx = np.flatnonzero(sym == s)
        walk = 500 + np.cumsum(moves[idx])
        # reflect into [1, 1000]: fold the walk onto a period of 2 * 999
        folded = np.mod(walk - 1, 2 * 999)
        price[idx] = 1 + np.where(folded > 999, 2 * 999 - folded, folded)
    return pd.DataFrame({"id": np.arange(n), "ts": np.arange(n), "type": event_type,
                         "symbol": sym, "price": price, "volume": volume})


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int)
    ap.add_argument("out")
    ap.add_argument("--p-up", type=float, default=0.7)
    ap.add_argument("--symbols", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--volume-max", type=int, default=1000)
    args = ap.parse_args(argv)
    write(generate(args.n, args.p_up, args.symbols, seed=args.seed, volume_max=args.volume_max), args.out)


def write(frame: pd.DataFrame, out: str) -> None:
    """CSV, or Parquet for a .parquet / .pq name."""
    if out.lower().endswith((".parquet", ".pq")):
        frame.to_parquet(out, index=False)
    else:
        frame.to_csv(out, index=False)


if __name__ == "__main__":
    main()
