"""Sequential pattern matching (spec/004 §4.7 style): gpu (OpenCL) vs the reference.

    python -m benchmarks.gpu_pattern [--events N] [--reference-events N] [--windows W ...] [--device D]

Workload: PATTERN (A B) ALL MATCHES SKIP_TILL_ANY_MATCH WITHIN w over events one tick apart, A any row,
B AS |v - A.v| <= DELTA (v uniform in [0, 1e6)): every row opens a partial match that lives for w rows, so
each step evaluates about w partial matches. Figures per engine: end-to-end events/s (query text to output
table, MEASURES evaluated on the host per match), matching events/s (the device matcher alone: uploads,
one kernel launch per event, downloads, match reconstruction) and kernel-only events/s (OpenCL profiling).
The reference runs on a smaller sample of the same stream; both engines' tables are compared on it.
"""
from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np

DELTA = 2
WINDOWS = (1_000, 10_000)
COLUMNS = ["ts", "id", "v"]
ENGINES = ("gpu", "reference")


def query(window: int) -> str:
    return ("SELECT * FROM s MATCH_RECOGNIZE (ORDER BY ts MEASURES A.id AS a, B.id AS b "
            f"ALL MATCHES SKIP_TILL_ANY_MATCH PATTERN (A B) WITHIN {window} "
            f"DEFINE B AS v - A.v <= {DELTA} AND A.v - v <= {DELTA})")


def rows(n: int, seed: int = 0) -> list[dict]:
    v = np.random.default_rng(seed).integers(0, 1_000_000, n)
    return [{"ts": i, "id": i, "v": int(x)} for i, x in enumerate(v)]


@dataclass
class Measure:
    engine: str
    window: int
    events: int
    seconds: float                  # end to end
    match_seconds: float | None     # gpu: the device matcher alone
    kernel_seconds: float | None    # gpu: step kernels (profiling)
    matches: int

    @property
    def events_per_second(self) -> float:
        return self.events / self.seconds


def measure(engine: str, window: int, data: list[dict], device: str | None = None, repeat: int = 2) -> Measure:
    """Best of `repeat` timed runs after one warm-up run (program build)."""
    from gpu.pattern_run import DeviceAllMatches, compile_query
    from reference.sql.run import run_rows

    best = None
    for r in range(repeat + 1):
        hook = None
        if engine == "gpu":
            hook = DeviceAllMatches(compile_query(query(window), COLUMNS)[1], device)
            hook = _Timed(hook)
        t = time.perf_counter()
        table = run_rows(query(window), COLUMNS, data, all_matches=hook)
        seconds = time.perf_counter() - t
        if r and (best is None or seconds < best.seconds):
            best = Measure(engine, window, len(data), seconds, hook.seconds if hook else None,
                           hook.inner.kernel_s if hook else None, len(table.rows))
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


def agree(window: int, data: list[dict], device: str | None = None) -> bool:
    """The gpu's output table equals the reference's."""
    from gpu.pattern_run import run_rows as gpu_run_rows
    from reference.sql.run import run_rows

    return gpu_run_rows(query(window), COLUMNS, data, device=device) == run_rows(query(window), COLUMNS, data)


def run(events: int, reference_events: int, windows=None, device: str | None = None,
        repeat: int = 2) -> list[Measure]:
    small, big = rows(reference_events), rows(events)
    out = []
    for w in windows or WINDOWS:
        if not agree(w, small, device):
            raise AssertionError(f"gpu and reference disagree (window {w})")
        out.append(measure("gpu", w, big, device, repeat))
        out.append(measure("reference", w, small, device, repeat))
    return out


def table(measures: list[Measure]) -> str:
    ref = {m.window: m.events_per_second for m in measures if m.engine == "reference"}
    lines = ["| window | engine | events | end-to-end events/s | matching events/s | kernel-only events/s "
             "| matches | end-to-end vs reference |", "|---|---|---|---|---|---|---|---|"]
    for m in measures:
        match = f"{m.events / m.match_seconds:,.0f}" if m.match_seconds else "-"
        kern = f"{m.events / m.kernel_seconds:,.0f}" if m.kernel_seconds else "-"
        lines.append(f"| {m.window:,} | {m.engine} | {m.events:,} | {m.events_per_second:,.0f} | {match} | {kern} "
                     f"| {m.matches:,} | {m.events_per_second / ref[m.window]:.1f}x |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--events", type=int, default=20_000)
    p.add_argument("--reference-events", type=int, default=1_500)
    p.add_argument("--windows", type=int, nargs="+", default=list(WINDOWS))
    p.add_argument("--device")
    p.add_argument("--repeat", type=int, default=2)
    a = p.parse_args(argv)
    from gpu.device import runtime

    print(f"device: {runtime(a.device).name}")
    print(table(run(a.events, a.reference_events, a.windows, a.device, a.repeat)))


if __name__ == "__main__":
    main()
