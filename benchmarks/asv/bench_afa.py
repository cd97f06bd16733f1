"""asv: the AFA engines (spec/003) on the paper's running example Q1 (examples/afa/q1.afa.yaml) scaled up by
benchmarks/afa_disorder.py, in order and with disorder (10 % of the events late by up to 50 ticks, 1 % junk
events inserted and retracted), warm. The reference at 10^4 ticks, the optimized engine at 2*10^5.
`AfaEngines` (in order and disordered, both engines) is the history subset."""
from __future__ import annotations

from functools import lru_cache

from ._kit import Subject, example, size, source

QUERY = example("afa", "q1.afa.yaml")
TICKS = {"reference": 10_000, "optimized": 200_000}
DISORDER = {"ordered": (0.0, 0.0), "disordered": (0.10, 0.01)}


@lru_cache(maxsize=4)
def ticks(n: int, disorder: str):
    stream = source("benchmarks/afa_disorder.py").stream

    late, retract = DISORDER[disorder]
    return stream("q1", n, late=late, retract=retract)


class AfaEngines(Subject):
    language = "afa"
    params = (["reference", "optimized"], list(DISORDER))
    param_names = ["engine", "disorder"]

    def case(self, engine, disorder):
        return QUERY, engine, ticks(size(TICKS[engine]), disorder), {}
