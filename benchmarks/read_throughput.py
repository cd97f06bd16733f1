"""Seconds to read an events file (cepkit.core.readers.read_events) of N rows: CSV and JSON Lines.

    python -m benchmarks.read_throughput [--rows N] [--repeat R]

The files are stock ticks (type, ts, id, symbol, price with two decimals, volume). Uses only
`read_events`, so an older checkout is measured the same way:
`git worktree add /tmp/base REV && PYTHONPATH=/tmp/base python -m benchmarks.read_throughput`.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time


def write_files(folder: str, rows: int) -> dict[str, str]:
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(7)
    df = pd.DataFrame({
        "type": rng.choice(["A", "B", "C"], rows),
        "ts": np.arange(rows, dtype=np.int64),
        "id": np.arange(rows, dtype=np.int64),
        "symbol": rng.choice(["IBM", "SUN", "ORCL", "MSFT"], rows),
        "price": np.round(rng.uniform(1, 500, rows), 2),
        "volume": rng.integers(1, 10_000, rows),
    })
    paths = {"csv": os.path.join(folder, "ticks.csv"), "jsonl": os.path.join(folder, "ticks.jsonl")}
    df.to_csv(paths["csv"], index=False)
    df.to_json(paths["jsonl"], orient="records", lines=True)
    return paths


def main(argv: list[str] | None = None) -> int:
    from cepkit.core.readers import read_events

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        paths = write_files(folder, args.rows)
        print("format | rows | seconds (best of repeats)")
        for kind, path in paths.items():
            best = float("inf")
            for _ in range(args.repeat):
                t = time.perf_counter()
                batch = read_events(path)
                best = min(best, time.perf_counter() - t)
            print(f"{kind} | {len(batch):,} | {best:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
