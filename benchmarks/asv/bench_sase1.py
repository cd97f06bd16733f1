"""asv: the SASE 1.0 dialect on the reference (Sase1Program) and the optimized engine (optimized/sase1), on
SASE 1.0's streams rebuilt (benchmarks/sase1_optimized.py): examples/Q1.query, the skip-till-next-match
Kleene queries and issue 20's three-type skip-till-any-match sequence with [price]. Engine-only
`program.run(batch)` (the stream is generated in setup); the reference at 10^5 events, the optimized engine
at 10^5 and 10^6. `python -m benchmarks.sase1_optimized` prints the ratios."""
from __future__ import annotations

from benchmarks import sase1_optimized as B


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
