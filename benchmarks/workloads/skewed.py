"""A stream whose event types have very different rates, for eager-vs-lazy comparisons (spec/001 §8).

Types A and B each make up `common` parts of the stream and C one part (default 100 : 100 : 1), with an
attribute x uniform in 0..9; ts is the position. `python -m benchmarks.workloads.skewed N OUT.csv`.
"""
from __future__ import annotations

import sys

import numpy as np
import pandas as pd


def generate(n: int, common: int = 100, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    weights = np.array([common, common, 1], dtype=float)
    types = rng.choice(np.array(["A", "B", "C"]), size=n, p=weights / weights.sum())
    return pd.DataFrame({"id": np.arange(n), "type": types, "ts": np.arange(n, dtype=np.int64),
                         "x": rng.integers(0, 10, size=n)})


if __name__ == "__main__":
    generate(int(sys.argv[1])).to_csv(sys.argv[2], index=False)
