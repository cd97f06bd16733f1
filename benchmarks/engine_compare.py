"""Reference vs optimized on the spec/000 §7 experiment queries: one measurement function shared by the
asv suite (benchmarks/suites/bench_optimized.py), the pytest-benchmark file and benchmarks/ratio_table.py.

Queries: the experiment template `pattern(stock+ a[], stock b) where ES {[symbol] ∧ a[1].price %500==0 ∧
Pa[i] ∧ b.volume <150} within W` for Pa = p1, p2, p3 (min, as the paper reports) and ES = s2, s3, plus
Query 3 with `WITHIN W`. W counts events: the stream has one event per tick, so `WITHIN W` (ticks) is W
events. The stream has 200 × W events per symbol (2 symbols), as in the paper; Query 3's stream has
volumes up to 1010, so that `a[1].volume > 1000` holds for about 1% of the events; its output grows
quadratically with W (about 5 matches per event at W = 2000), so both engines run it on `QUERY3_EVENTS`
events. The reference runs on at most `REFERENCE_EVENTS` events (it is the oracle, not the fast path):
throughput is per event, so the two engines' rates compare, while their match counts may be over
different lengths.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from functools import lru_cache

TEMPLATE = ("PATTERN SEQ(stock+ a[], stock b) WHERE {strategy} {{ [symbol] and a[1].price % 500 = 0 and {pa} "
            "and b.volume < 150 }} WITHIN {window}")
PREDICATES = {"p1": "TRUE", "p2": "a[i].price > a[i-1].price", "p3": "a[i].price > min(a[..i-1].price)"}
STRATEGIES = {"s2": "partition_contiguity", "s3": "skip_till_next_match"}
QUERY3 = ("PATTERN SEQ(stock+ a[], stock b) WHERE skip_till_next_match(a[], b) { [symbol] and a[1].volume > 1000 "
          "and a[i].price > avg(a[..i-1].price) and b.volume < 80%*a[a.LEN].volume } WITHIN {window}")
QUERIES = [f"{p}{s}" for p in PREDICATES for s in STRATEGIES] + ["q3"]
# Merging of equivalent runs (spec/000 §6, Expt 5-6) pays where many runs are alive and few complete: here
# runs start at one event in five and b almost never qualifies, so matching, not match construction,
# dominates. m1, m2, m3 use Pa = p1, p2, p3 under skip-till-next-match; MERGE_EVENTS events per run.
MERGE_TEMPLATE = ("PATTERN SEQ(stock+ a[], stock b) WHERE skip_till_next_match {{ [symbol] and a[1].price % 5 = 0 "
                  "and {pa} and b.volume < 2 }} WITHIN {window}")
MERGE_QUERIES = ["m1", "m2", "m3"]
MERGE_EVENTS = 50_000
WINDOWS = [500, 2000]
ENGINES = ["reference", "optimized"]
SYMBOLS = 2
REFERENCE_EVENTS = 100_000
QUERY3_EVENTS = 40_000


def query_text(name: str, window: int) -> str:
    if name == "q3":
        return QUERY3.replace("{window}", str(window))
    if name in MERGE_QUERIES:
        return MERGE_TEMPLATE.format(pa=PREDICATES["p" + name[1:]], window=window)
    return TEMPLATE.format(strategy=STRATEGIES[name[2:]], pa=PREDICATES[name[:2]], window=window)


def stream_size(engine: str, window: int, name: str = "") -> int:
    """200 x W events per symbol; capped for the reference and Query 3, and at 20,000 with
    CEPKIT_BENCH_QUICK=1."""
    n = 200 * window * SYMBOLS if name != "q3" else QUERY3_EVENTS
    if os.environ.get("CEPKIT_BENCH_QUICK") == "1":
        n = min(n, 20_000)
    return min(n, REFERENCE_EVENTS) if engine == "reference" else n


@lru_cache(maxsize=8)
def stream(n: int, query3: bool):
    from benchmarks.workloads.stock import generate
    from cepkit.core.readers import from_pandas

    return from_pandas(generate(n, symbols=SYMBOLS, seed=1, volume_max=1010 if query3 else 1000))


def available(engine: str) -> bool:
    from cepkit.core import registry
    return engine in registry.engines_for("sase")


@dataclass(frozen=True)
class Measurement:
    engine: str
    query: str
    window: int
    events: int
    matches: int
    seconds: float
    peak_mb: float | None   # the process's peak resident memory during the run, above what it held before
    runs_created: int = 0   # counters.partial_matches: runs begun or extended

    @property
    def events_per_second(self) -> float:
        return self.events / self.seconds

    @property
    def matches_per_second(self) -> float:
        return self.matches / self.seconds


def rss_kb(field: str) -> int | None:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")  # Linux: reset the peak resident set size (VmHWM) to the current one
        return True
    except OSError:
        return False


def measure(engine: str, name: str, window: int, events: int | None = None, warm: bool = True,
            **options) -> Measurement:
    """Compile (with the engine's options) and run one query on one engine over the workload stream (a
    warm-up run first, so that code generation and Numba compilation are not counted)."""
    from cepkit import compile

    text = query_text(name, window)
    batch = stream(events or stream_size(engine, window, name), name == "q3")
    if warm:
        compile(text, engine=engine, **options).run(batch.slice(0, min(len(batch), 2_000)))
    program = compile(text, engine=engine, **options)
    can_track = _reset_peak()
    before = rss_kb("VmRSS")
    t0 = time.perf_counter()
    matches = program.run(batch)
    seconds = time.perf_counter() - t0
    peak = rss_kb("VmHWM") if can_track else None
    peak_mb = max(0, peak - before) / 1024 if peak is not None and before is not None else None
    return Measurement(engine, name, window, len(batch), len(matches), seconds, peak_mb,
                       program.counters.partial_matches)


def measure_all() -> dict:
    """{(engine, query, window): Measurement} for every registered engine, query and window."""
    return {(engine, name, window): measure(engine, name, window)
            for engine in ENGINES if available(engine) for name in QUERIES for window in WINDOWS}
