"""asv benchmarks: the work the lazy Chain NFA saves over the eager NFA (spec/001 §8, Figs. 12-13).

The stream has types A : B : C at 100 : 100 : 1. The pattern SEQ(A a, B b, C c) with a condition between
a and b is run by the eager NFA and by the lazy chain in the order C, B, A (rarest first). The tracked
numbers are the counters of each engine and their ratios (eager / lazy), measured in the same run.
"""
from __future__ import annotations

from benchmarks.workloads.skewed import generate
from cepkit import compile
from cepkit.core.readers import from_pandas

QUERY = "PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x WITHIN {window}"
LAZY_ORDER = "C,B,A"


def counters(engine: str, batch, window: int, **options):
    program = compile(QUERY.format(window=window), engine=engine, **options)
    matches = program.run(batch)
    return len(matches), program.counters


class LazyVsEager:
    params = [20, 50]
    param_names = ["window"]
    events = 5_000

    def setup(self, window):
        self.batch = from_pandas(generate(self.events))

    def time_eager(self, window):
        counters("reference-eager", self.batch, window)

    def time_lazy(self, window):
        counters("reference-lazy", self.batch, window, order=LAZY_ORDER)

    def track_eager_partial_matches(self, window):
        return counters("reference-eager", self.batch, window)[1].partial_matches

    def track_lazy_partial_matches(self, window):
        return counters("reference-lazy", self.batch, window, order=LAZY_ORDER)[1].partial_matches

    def track_partial_match_ratio(self, window):
        return self.track_eager_partial_matches(window) / max(1, self.track_lazy_partial_matches(window))

    def track_predicate_evaluation_ratio(self, window):
        eager = counters("reference-eager", self.batch, window)[1].predicate_evaluations
        lazy = counters("reference-lazy", self.batch, window, order=LAZY_ORDER)[1].predicate_evaluations
        return eager / max(1, lazy)

    def track_matches(self, window):
        return counters("reference-lazy", self.batch, window, order=LAZY_ORDER)[0]


class OptimizedLazyVsEager:
    """The optimized (Numba) engines on the stream of benchmarks/lazy_optimized.py: types A : B : C at
    r : r : 1 for r in 1, 10, 100, 1000, SEQ(A a, B b, C c) WHERE a.x < b.x WITHIN 20. Engine-only timing of
    compile + run (the batch is built in setup, the kernels loaded by a warm-up run);
    `python -m benchmarks.lazy_optimized` prints the same as a table."""

    params = (["optimized-eager", "optimized-lazy", "optimized-tree"], [1, 10, 100, 1000], [100_000])
    param_names = ["engine", "ratio", "events"]
    timeout = 600

    def setup(self, engine, ratio, events):
        from benchmarks import lazy_optimized as L

        self.L = L
        self.text = L.QUERY.format(window=20)
        self.batch = L.batch(events, ratio)
        L.measure(engine, self.text, self.batch.slice(0, 2000))  # Numba kernels: compiled once, cached on disk

    def time_run(self, engine, ratio, events):
        self.L.measure(engine, self.text, self.batch)

    def track_events_per_second(self, engine, ratio, events):
        return self.L.measure(engine, self.text, self.batch, 3)["events_per_second"]

    track_events_per_second.unit = "events/s"

    def track_partial_matches(self, engine, ratio, events):
        return self.L.measure(engine, self.text, self.batch)["partial_matches"]

    track_partial_matches.unit = "partial matches"
