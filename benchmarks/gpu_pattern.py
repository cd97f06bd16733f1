"""Sequential pattern matching (spec/004 §4.7 style): gpu (OpenCL) vs the optimized CPU engine vs the reference.

    python -m benchmarks.gpu_pattern [--events N] [--reference-events N] [--windows W ...] [--device D]

Workload: PATTERN (A B) ALL MATCHES SKIP_TILL_ANY_MATCH WITHIN w over events one tick apart, A any row,
B AS |v - A.v| <= DELTA (v uniform in [0, 1e6)): every row opens a partial match that lives for w rows, so
each step evaluates about w partial matches. The gpu engine runs in both launch modes: gpu-batch (one
kernel launch per 4096-event batch, one work-group looping over the events) and gpu-event (one kernel launch
per event). Figures per engine: end-to-end events/s (query text to output table, MEASURES evaluated on the
host per match), matching events/s (the device matcher alone: uploads, launches, downloads, match
reconstruction) and kernel-only events/s (OpenCL profiling).
The optimized engine (issue 7, Numba) runs the same workload written in SASE+ (`SEQ(E a, E b)`,
skip_till_any_match, the same condition and WITHIN) over the same events; it reports (a, b) pairs, not
a table, so its end-to-end time has no MEASURES step. The reference runs on a smaller sample of the same
stream; on that sample the gpu's tables (both modes) equal the reference's and their (a, b) pairs equal the
optimized engine's.
"""
from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np

DELTA = 2
WINDOWS = (1_000, 10_000)
COLUMNS = ["ts", "id", "v"]
ENGINES = ("gpu-batch", "gpu-event", "optimized", "reference")   # gpu-LAUNCH: the gpu engine, launch mode
GPU = tuple(e for e in ENGINES if e.startswith("gpu-"))


def query(window: int) -> str:
    return ("SELECT * FROM s MATCH_RECOGNIZE (ORDER BY ts MEASURES A.id AS a, B.id AS b "
            f"ALL MATCHES SKIP_TILL_ANY_MATCH PATTERN (A B) WITHIN {window} "
            f"DEFINE B AS v - A.v <= {DELTA} AND A.v - v <= {DELTA})")


def sase_query(window: int) -> str:
    return (f"PATTERN SEQ(E a, E b) WHERE skip_till_any_match(a, b) {{ b.v - a.v <= {DELTA} and "
            f"a.v - b.v <= {DELTA} }} WITHIN {window}")


def _batch(data: list[dict]):
    import pandas as pd

    from cepkit.core.readers import from_pandas

    return from_pandas(pd.DataFrame(data, columns=COLUMNS), type_col=None, default_type="E")


def _optimized_pairs(window: int, data: list[dict]) -> list[tuple]:
    from cepkit import compile

    return sorted(tuple(ids[0] for _v, ids in m.bindings) for m in compile(sase_query(window), engine="optimized")
                  .run(_batch(data)))


def rows(n: int, seed: int = 0) -> list[dict]:
    v = np.random.default_rng(seed).integers(0, 1_000_000, n)
    return [{"ts": i, "id": i, "v": int(x)} for i, x in enumerate(v)]


@dataclass
class Measure:
    engine: str
    window: int
    events: int
    seconds: float                  # end to end
    match_seconds: float | None     # gpu-*: the device matcher alone
    kernel_seconds: float | None    # gpu-*: step kernels (profiling)
    matches: int

    @property
    def events_per_second(self) -> float:
        return self.events / self.seconds


def measure(engine: str, window: int, data: list[dict], device: str | None = None, repeat: int = 2) -> Measure:
    """Best of `repeat` timed runs after one warm-up run (program build)."""
    from cepkit.gpu.pattern_run import DeviceAllMatches, compile_query
    from cepkit.reference.sql.run import run_rows

    if engine == "optimized":
        return _measure_optimized(window, data, repeat)
    best = None
    for r in range(repeat + 1):
        hook = None
        if engine in GPU:
            hook = DeviceAllMatches(compile_query(query(window), COLUMNS)[1], device, launch=_launch(engine))
            hook = _Timed(hook)
        t = time.perf_counter()
        table = run_rows(query(window), COLUMNS, data, all_matches=hook)
        seconds = time.perf_counter() - t
        if r and (best is None or seconds < best.seconds):
            best = Measure(engine, window, len(data), seconds, hook.seconds if hook else None,
                           hook.inner.kernel_s if hook else None, len(table.rows))
    assert best is not None
    return best


def _measure_optimized(window: int, data: list[dict], repeat: int) -> Measure:
    from cepkit import compile

    batch = _batch(data)
    compile(sase_query(window), engine="optimized").run(batch.slice(0, min(len(batch), 200)))   # JIT
    best = None
    for _ in range(max(1, repeat)):
        program = compile(sase_query(window), engine="optimized")
        t = time.perf_counter()
        found = program.run(batch)
        seconds = time.perf_counter() - t
        if best is None or seconds < best.seconds:
            best = Measure("optimized", window, len(data), seconds, None, None, len(found))
    assert best is not None
    return best


class _Timed:
    """Wall time of the all_matches hook (the device part of a gpu run)."""

    def __init__(self, inner):
        self.inner, self.seconds = inner, 0.0

    def __call__(self, *args):
        t = time.perf_counter()
        out = self.inner(*args)
        self.seconds += time.perf_counter() - t
        return out


def _launch(engine: str) -> str:
    return engine.split("-", 1)[1]


def agree(window: int, data: list[dict], device: str | None = None) -> bool:
    """The gpu's output tables (both launch modes) equal the reference's, and their (a, b) pairs the
    optimized engine's."""
    from cepkit.gpu.pattern_run import run_rows as gpu_run_rows
    from cepkit.reference.sql.run import run_rows

    want, pairs = run_rows(query(window), COLUMNS, data), _optimized_pairs(window, data)
    tables = [gpu_run_rows(query(window), COLUMNS, data, device=device, launch=_launch(e)) for e in GPU]
    return all(t == want and sorted(t.rows) == pairs for t in tables)


def run(events: int, reference_events: int, windows=None, device: str | None = None,
        repeat: int = 2, optimized_events: int | None = None) -> list[Measure]:
    """gpu on `events`, optimized on `optimized_events` (default: the same), reference on the sample."""
    small, big = rows(reference_events), rows(events)
    opt = big if optimized_events in (None, events) else rows(optimized_events)
    out = []
    for w in windows or WINDOWS:
        if not agree(w, small, device):
            raise AssertionError(f"gpu, optimized and reference disagree (window {w})")
        out += [measure(e, w, big, device, repeat) for e in GPU]
        out.append(measure("optimized", w, opt, device, 1))
        out.append(measure("reference", w, small, device, repeat))
    return out


def table(measures: list[Measure]) -> str:
    ref = {m.window: m.events_per_second for m in measures if m.engine == "reference"}
    opt = {m.window: m.events_per_second for m in measures if m.engine == "optimized"}
    event = {m.window: m.events_per_second for m in measures if m.engine == "gpu-event"}
    lines = ["| window | engine | events | end-to-end events/s | matching events/s | kernel-only events/s "
             "| matches | x reference | x optimized | x gpu-event |", "|---|---|---|---|---|---|---|---|---|---|"]
    for m in measures:
        match = f"{m.events / m.match_seconds:,.0f}" if m.match_seconds else "-"
        kern = f"{m.events / m.kernel_seconds:,.0f}" if m.kernel_seconds else "-"
        lines.append(f"| {m.window:,} | {m.engine} | {m.events:,} | {m.events_per_second:,.0f} | {match} | {kern} "
                     f"| {m.matches:,} | {m.events_per_second / ref[m.window]:.1f} "
                     f"| {m.events_per_second / opt[m.window]:.1f} | {m.events_per_second / event[m.window]:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--events", type=int, default=20_000)
    p.add_argument("--reference-events", type=int, default=1_500)
    p.add_argument("--optimized-events", type=int, help="events for the optimized engine (default: --events)")
    p.add_argument("--windows", type=int, nargs="+", default=list(WINDOWS))
    p.add_argument("--device")
    p.add_argument("--repeat", type=int, default=2)
    a = p.parse_args(argv)
    from cepkit.gpu.device import runtime

    print(f"device: {runtime(a.device).name}")
    print(table(run(a.events, a.reference_events, a.windows, a.device, a.repeat, a.optimized_events)))


if __name__ == "__main__":
    main()
