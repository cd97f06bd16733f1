"""asv: the reference and optimized TPStream engines on car-sensor streams (benchmarks/tpstream_optimized.py
has the workload): the 3-situation aggressive-driver pattern and a 5-situation chain. Engine-only timing of
compile + feed + close (the batch is built in setup); the reference at 10^4 events, the optimized engine at
10^4 (the ratio) and 10^6 events. `python -m benchmarks.tpstream_optimized` prints the same as a table."""
from __future__ import annotations

from benchmarks import tpstream_optimized as T


class TPStreamRun:
    params = (["reference", "optimized"], list(T.QUERIES), [10_000, 1_000_000])
    param_names = ["engine", "pattern", "events"]
    timeout = 600

    def setup(self, engine, pattern, events):
        if engine == "reference" and events > 10_000:
            raise NotImplementedError("the reference runs the small stream only")
        self.batch = T.batch(events)
        if engine == "optimized":
            T.measure(engine, pattern, self.batch)  # Numba compilation (cached on disk after), first touch

    def time_run(self, engine, pattern, events):
        T.measure(engine, pattern, self.batch)

    def track_events_per_second(self, engine, pattern, events):
        seconds, _matches = T.best(engine, pattern, self.batch, 3)
        return events / seconds

    track_events_per_second.unit = "events/s"
