"""asv: windowed filter and aggregation (spec/004 §2.4, the `window` language) on the reference engine, warm:
examples/sql/volume.win (sum and average over count windows of 5) and big_trades.win (a filter) over 5*10^4
generated trades. `WindowEngines` (the aggregate) is the history subset."""
from __future__ import annotations

from functools import lru_cache

from ._kit import Subject, example, size

QUERIES = {"aggregate": example("sql", "volume.win"), "filter": example("sql", "big_trades.win")}


@lru_cache(maxsize=2)
def trades(n: int):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(3)
    return pd.DataFrame({"ts": np.arange(1, n + 1, dtype=np.int64), "p": rng.integers(1, 100, n),
                         "v": rng.integers(1, 2000, n)})


class WindowQueries(Subject):
    language = "window"
    params = (list(QUERIES),)
    param_names = ["query"]

    def case(self, query):
        return QUERIES[query], "reference", trades(size(50_000)), {}


class WindowEngines(WindowQueries):
    params = (["reference"],)
    param_names = ["engine"]

    def case(self, engine):
        return QUERIES["aggregate"], engine, trades(size(50_000)), {}
