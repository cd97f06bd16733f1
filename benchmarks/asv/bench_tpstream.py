"""asv: TPStream (spec/004) on car-sensor streams (benchmarks/tpstream_optimized.py: the 3-situation
aggressive-driver pattern), the reference at 10^4 events and the optimized engine at 2*10^5, warm.
`TPStreamEngines` is the history subset."""
from __future__ import annotations

from ._kit import Subject, size, source

EVENTS = {"reference": 10_000, "optimized": 200_000}


class TPStreamEngines(Subject):
    language = "tpstream"
    params = (["reference", "optimized"],)
    param_names = ["engine"]

    def case(self, engine):
        T = source("benchmarks/tpstream_optimized.py")
        return T.QUERIES["3-situation"], engine, T.stream(size(EVENTS[engine])), {}
