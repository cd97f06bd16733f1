"""asv: the optimized engine on `[price]` queries with 1,000 distinct prices (benchmarks/partition_keys.py):
SEQ(stock1 a, stock2 b, stock3 c) under the four strategies and a partitioned Kleene closure with an
aggregate, at 100,000 events, with the runs indexed by key (the default) and without (`index=False`).
Engine-only timing of program.run (the batch is built in setup, the kernel loaded by a warm-up run);
`python -m benchmarks.partition_keys` prints the same as a table with the ratio."""
from __future__ import annotations

from benchmarks import partition_keys as P


class PartitionKeys:
    params = (P.QUERIES, [True, False])
    param_names = ["query", "index"]
    events = 100_000
    timeout = 600

    def setup(self, query, index):
        from cepkit import compile

        self.text = P.query_text(query)
        self.batch = P.stream(self.events)
        compile(self.text, engine="optimized", index=index).run(self.batch.slice(0, 3_000))

    def time_run(self, query, index):
        from cepkit import compile

        compile(self.text, engine="optimized", index=index).run(self.batch)

    def track_matches(self, query, index):
        from cepkit import compile

        return len(compile(self.text, engine="optimized", index=index).run(self.batch))

    track_matches.unit = "matches"
