"""asv: MATCH_RECOGNIZE on the reference, the optimized engine and pandas-match-recognize (where the `peers`
extra is installed), on the random ticker of benchmarks/sql_optimized.py: the V-shape query and one with
alternation and a bounded quantifier. Engine-only `program.run(batch)` (the batch is read in setup); the
reference and the peer at 2*10^4 rows, the optimized engine at 2*10^4 (the ratio), 10^5 and 10^6 rows.
`python -m benchmarks.sql_optimized` prints the same as a ratio table."""
from __future__ import annotations

import warnings

from benchmarks import sql_optimized as B


class SqlRun:
    params = (["reference", "optimized", "pandas-match-recognize"], list(B.QUERIES), [20_000, 100_000, 1_000_000])
    param_names = ["engine", "query", "rows"]
    timeout = 600

    def setup(self, engine, query, rows):
        warnings.simplefilter("ignore")
        if engine != "optimized" and rows > 20_000:
            raise NotImplementedError("the reference and the peer run the small table only")
        self.frame = B.ticker(rows)
        if engine == "pandas-match-recognize":
            if B.peer_seconds(B.QUERIES[query], self.frame.head(100), 1) is None:
                raise NotImplementedError("pandas-match-recognize is not installed (the peers extra)")
        elif engine == "optimized":
            B.engine_seconds(B.QUERIES[query], self.frame.head(1000), engine, 1)   # compiled code, cached on disk

    def track_rows_per_second(self, engine, query, rows):
        if engine == "pandas-match-recognize":
            seconds, _n = B.peer_seconds(B.QUERIES[query], self.frame, 1)
        else:
            seconds, _n = B.engine_seconds(B.QUERIES[query], self.frame, engine, 1 if engine == "reference" else 3)
        return rows / seconds

    track_rows_per_second.unit = "rows/s"
