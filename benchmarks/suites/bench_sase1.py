"""asv: the SASE 1.0 dialect on the reference (Sase1Program) and the optimized engine (optimized/sase1), on
SASE 1.0's streams rebuilt (benchmarks/sase1_optimized.py): examples/Q1.query, the skip-till-next-match
Kleene queries and issue 20's three-type skip-till-any-match sequence with [price]. Engine-only
`program.run(batch)` (the stream is generated in setup); the reference at 10^5 events, the optimized engine
at 10^5 and 10^6. `python -m benchmarks.sase1_optimized` prints the ratios. Sase1SideBySide adds the queries of
benchmarks/sase1_side_by_side.py (the SASE 1.0 jar against cepkit) that Sase1Run lacks, cepkit only."""
from __future__ import annotations

from benchmarks import sase1_optimized as B
from benchmarks import sase1_side_by_side as S


class Sase1Run:
    params = (["reference", "optimized"], list(B.QUERIES), [100_000, 1_000_000])
    param_names = ["engine", "query", "events"]
    timeout = 900

    def setup(self, engine, query, events):
        if engine == "reference" and events > 100_000:
            raise NotImplementedError("the reference runs the 10^5-event stream only")
        B.stream(events, query)

    def track_events_per_second(self, engine, query, events):
        seconds, _table = B.engine_seconds(query, events, engine, 1 if engine == "reference" else 3)
        return events / seconds

    track_events_per_second.unit = "events/s"

    def track_matches(self, engine, query, events):
        return len(B.engine_seconds(query, events, engine)[1])

    track_matches.unit = "matches"


class Sase1SideBySide:
    """cepkit's side of benchmarks/sase1_side_by_side.py (the jar is not run here) for its queries that Sase1Run
    lacks: `SEQ(stock1 a, stock2 b, stock3 c)` with [price], WITHIN 1000, under partition-contiguity (seq3pc)
    and skip-till-next-match (seq3next); the optimized engine, engine-only, best of 3."""

    params = ([q for q in S.QUERIES if q not in B.QUERIES], [100_000, 1_000_000])
    param_names = ["query", "events"]
    timeout = 900

    def setup(self, query, events):
        self.batch = S.stream_batch(query, events)
        S.cepkit_engine_seconds(S.QUERIES[query][0], S.stream_batch(query, 1000))  # Numba's code, warm

    def track_events_per_second(self, query, events):
        return events / min(S.cepkit_engine_seconds(S.QUERIES[query][0], self.batch)[0] for _ in range(3))

    track_events_per_second.unit = "events/s"

    def track_matches(self, query, events):
        return S.cepkit_engine_seconds(S.QUERIES[query][0], self.batch)[1]

    track_matches.unit = "matches"
