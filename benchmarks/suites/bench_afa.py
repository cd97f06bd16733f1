"""asv: the reference and optimized AFA engines on the paper's running examples (examples/afa Q1-Q3, scaled
up by benchmarks/afa_disorder.py) in order and at 1 %, 10 % and 30 % disorder (1 % junk events inserted
and retracted). Engine-only timing of compile + feed (chunks of 100,000 rows) + close; the input frame is
built in setup. The reference at 10^4 ticks, the optimized engine at 10^4 (the ratio) and 10^6 ticks.
`python -m benchmarks.afa_optimized` prints the same as a table, with output retractions/s."""
from __future__ import annotations

from benchmarks import afa_disorder as D
from benchmarks import afa_optimized as A


class AfaRun:
    params = (["reference", "optimized"], ["q1", "q2", "q3"], [0.0, 0.01, 0.10, 0.30], [10_000, 1_000_000])
    param_names = ["engine", "query", "disorder", "ticks"]
    timeout = 600

    def setup(self, engine, query, disorder, ticks):
        if engine == "reference" and ticks > 10_000:
            raise NotImplementedError("the reference runs the small stream only")
        self.frame = D.stream(query, ticks, late=disorder, retract=0.01 if disorder else 0.0)
        if engine == "optimized":
            A.timed(engine, query, self.frame.iloc[:2000], 100_000)   # Numba compilation (cached on disk after)

    def time_run(self, engine, query, disorder, ticks):
        A.timed(engine, query, self.frame, 100_000)

    def track_events_per_second(self, engine, query, disorder, ticks):
        return A.timed(engine, query, self.frame, 100_000)["elements_per_s"]

    track_events_per_second.unit = "events/s"

    def track_retractions_per_second(self, engine, query, disorder, ticks):
        return A.timed(engine, query, self.frame, 100_000)["retractions_per_s"]

    track_retractions_per_second.unit = "retractions/s"
