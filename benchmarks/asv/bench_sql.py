"""asv: SQL MATCH_RECOGNIZE (spec/004) on the random ticker of benchmarks/sql_optimized.py (40 symbols): the
V-shape query and one with alternation and a bounded quantifier, the reference at 2*10^4 rows and the
optimized engine at 4*10^5, warm. `MatchRecognizeEngines` (V-shape) is the history subset."""
from __future__ import annotations

from ._kit import Subject, size, source

ROWS = {"reference": 20_000, "optimized": 400_000}


def ticker(n: int):
    return source("benchmarks/sql_optimized.py").ticker(n)


class MatchRecognizeQueries(Subject):
    language = "sql"
    params = (["reference", "optimized"], ["v-shape", "alternation-bounded"])
    param_names = ["engine", "query"]

    def case(self, engine, query):
        return source("benchmarks/sql_optimized.py").QUERIES[query], engine, ticker(size(ROWS[engine])), {}

    track_events_per_s = Subject.track_events_per_s   # rows: one event per row


class MatchRecognizeEngines(MatchRecognizeQueries):
    params = (["reference", "optimized"],)
    param_names = ["engine"]

    def case(self, engine):
        return super().case(engine, "v-shape")
