"""asv: reference vs optimized on the spec/000 experiment queries (p1, p2, p3 x s2, s3; Query 3) at
W = 500 and 2000 (benchmarks/engine_compare.py has the workload). Tracked separately: events/s,
matches/s, matches, and the run's peak memory. An engine that is not registered is skipped.
`make bench` runs this and prints the ratio table (benchmarks/ratio_table.py)."""
from __future__ import annotations

from benchmarks import engine_compare as C


class EngineStock:
    params = (C.ENGINES, C.QUERIES, C.WINDOWS)
    param_names = ["engine", "query", "window"]
    timeout = 1800

    def setup_cache(self):
        """Every measurement once (asv runs each benchmark in its own process; this is shared)."""
        return C.measure_all()

    setup_cache.timeout = 3600

    def setup(self, results, engine, query, window):
        if (engine, query, window) not in results:
            raise NotImplementedError(f"engine {engine} is not registered")

    def track_events_per_second(self, results, engine, query, window):
        return results[(engine, query, window)].events_per_second

    track_events_per_second.unit = "events/s"

    def track_matches_per_second(self, results, engine, query, window):
        return results[(engine, query, window)].matches_per_second

    track_matches_per_second.unit = "matches/s"

    def track_matches(self, results, engine, query, window):
        return results[(engine, query, window)].matches

    track_matches.unit = "matches"

    def track_peak_memory_mb(self, results, engine, query, window):
        peak = results[(engine, query, window)].peak_mb
        return float("nan") if peak is None else peak

    track_peak_memory_mb.unit = "MiB"


class OptimizedRun:
    """asv's own timing of the optimized engine on the largest stream (W = 2000), warm."""

    params = (["p2s2", "p2s3", "q3"],)
    param_names = ["query"]
    timeout = 600

    def setup(self, query):
        if not C.available("optimized"):
            raise NotImplementedError("engine optimized is not registered")
        from cepkit import compile

        self.text = C.query_text(query, 2000)
        self.batch = C.stream(C.stream_size("optimized", 2000, query), query == "q3")
        compile(self.text, engine="optimized").run(self.batch.slice(0, 2_000))

    def time_run(self, query):
        from cepkit import compile

        compile(self.text, engine="optimized").run(self.batch)


class Merging:
    """What merging equivalent runs (spec/000 §6) buys: the optimized engine with merge on and off on the
    merge workload (benchmarks/engine_compare.py MERGE_QUERIES), events/s and runs created."""

    params = (C.MERGE_QUERIES, C.WINDOWS, [False, True])
    param_names = ["query", "window", "merge"]
    timeout = 1800

    def setup_cache(self):
        if not C.available("optimized"):
            return {}
        return {(q, w, m): C.measure("optimized", q, w, C.MERGE_EVENTS, merge=m)
                for q in C.MERGE_QUERIES for w in C.WINDOWS for m in (False, True)}

    setup_cache.timeout = 3600

    def setup(self, results, query, window, merge):
        if not results:
            raise NotImplementedError("engine optimized is not registered")

    def track_events_per_second(self, results, query, window, merge):
        return results[(query, window, merge)].events_per_second

    track_events_per_second.unit = "events/s"

    def track_runs_created(self, results, query, window, merge):
        return results[(query, window, merge)].runs_created

    track_runs_created.unit = "runs"


class MatchTableBuild:
    """Query 3 at W = 500 with the match table built per match (columnar=False, a Match object each) and
    from arrays (columnar=True, the default): asv's timing of program.run, warm
    (benchmarks/match_table_throughput.py prints both in one run)."""

    params = ([False, True],)
    param_names = ["columnar"]
    timeout = 600

    def setup(self, columnar):
        if not C.available("optimized"):
            raise NotImplementedError("engine optimized is not registered")
        from cepkit import compile

        self.text = C.query_text("q3", 500)
        self.batch = C.stream(C.stream_size("optimized", 500, "q3"), True)
        compile(self.text, engine="optimized", columnar=columnar).run(self.batch.slice(0, 2_000))

    def time_run(self, columnar):
        from cepkit import compile

        compile(self.text, engine="optimized", columnar=columnar).run(self.batch)
