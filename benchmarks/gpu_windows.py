"""Filter, windowed aggregation and windowed join: gpu (OpenCL) vs a Numba CPU baseline vs the reference.

    python -m benchmarks.gpu_windows [--events N] [--reference-events N] [--device D] [--repeat R]
                                     [--operators filter,aggregate,join]

Events/s and bytes/s (the int64 input columns an operator reads: filter v; aggregation and join ts and v)
per engine, for the gpu both end to end (host window bounds, uploads, kernels, downloads of the result
positions or per-window aggregates; rows are not built) and kernel only (OpenCL profiling events). The
reference runs on a smaller sample of the same stream; ratios are events/s against it and against Numba.
Every engine's answer is checked against the gpu's on the reference sample (and Numba's on all events).
"""
from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from cepkit.core.readers import from_pandas
from cepkit.front.windows.spec import WindowSpec

FILTER = "v > 500 AND v % 7 != 3"
AGG_SPEC = WindowSpec("time", 1000, 100)
JOIN_ON = "L.v = R.v"
JOIN_SPEC = WindowSpec("count", 64, 1)
OPERATORS = ("filter", "aggregate", "join")
ENGINES = ("gpu", "numba", "reference")
BYTES_PER_EVENT = {"filter": 8, "aggregate": 16, "join": 16}


@dataclass
class Measure:
    operator: str
    engine: str
    events: int
    seconds: float
    kernel_seconds: float | None
    results: int

    @property
    def events_per_second(self) -> float:
        return self.events / self.seconds

    @property
    def bytes_per_second(self) -> float:
        return BYTES_PER_EVENT[self.operator] * self.events / self.seconds

    @property
    def kernel_events_per_second(self) -> float | None:
        return self.events / self.kernel_seconds if self.kernel_seconds else None


def stream(n: int, seed: int = 0):
    """n events: ts advancing by 0-2 ticks (ties included), v uniform in [0, 1000)."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"ts": np.cumsum(rng.integers(0, 3, n)), "v": rng.integers(0, 1000, n)})
    return from_pandas(df, type_col=None, default_type="e")


def _gpu(operator: str, streams, device, events: list):
    if operator == "filter":
        from cepkit.gpu.filter import filter_indices

        return filter_indices(streams[0], FILTER, device, events=events)
    if operator == "aggregate":
        from cepkit.gpu.aggregate import aggregate_arrays

        return aggregate_arrays(streams[0], "v", AGG_SPEC, device, events=events)
    from cepkit.gpu.join import join_pairs

    return join_pairs(streams[0], streams[1], JOIN_ON, JOIN_SPEC, JOIN_SPEC, "strict", device, events=events)


def _numba(operator: str, streams):
    from cepkit.optimized import windows as W

    if operator == "filter":
        return W.filter_threshold(streams[0].columns["v"], 500, 7, 3)
    if operator == "aggregate":
        from cepkit.gpu.windows import window_bounds

        start, stop, _ = window_bounds(streams[0].ts, AGG_SPEC)
        return W.window_sums(streams[0].columns["v"], start, stop)
    from cepkit.gpu.join import probes

    left, right = streams
    side, own, _, lo, hi = probes(left.ts, right.ts, JOIN_SPEC, JOIN_SPEC, "strict")
    return W.join_equal(side, own, lo, hi, left.columns["v"], right.columns["v"])


def _reference(operator: str, streams):
    from cepkit.reference.windows.api import aggregate_batch, filter_batch, join_batches

    if operator == "filter":
        return filter_batch(streams[0], FILTER)
    if operator == "aggregate":
        return aggregate_batch(streams[0], "v", AGG_SPEC, ("sum", "count", "min", "max", "avg"))
    return join_batches(streams[0], streams[1], JOIN_ON, JOIN_SPEC, JOIN_SPEC)


def _count(operator: str, engine: str, result) -> int:
    if engine == "reference":
        return len(result)
    if operator == "filter":
        return len(result)
    if operator == "aggregate":
        return len(result.ts) if engine == "gpu" else len(result[0])
    return len(result[0])


def streams_for(operator: str, n: int, seed: int = 0):
    """The input of an operator with n events in all (a join gets two streams of n/2)."""
    if operator == "join":
        return stream(n // 2, seed), stream(n - n // 2, seed + 1)
    return (stream(n, seed),)


def measure(operator: str, engine: str, streams, device: str | None = None, repeat: int = 3) -> Measure:
    """Best of `repeat` timed runs after one warm-up run (program build, JIT)."""
    from cepkit.gpu.device import runtime
    from cepkit.gpu.launch import kernel_ns

    n = sum(len(s) for s in streams)
    best, best_kernel, result = float("inf"), None, None
    for r in range(repeat + 1):
        events: list = []
        t = time.perf_counter()
        if engine == "gpu":
            result = _gpu(operator, streams, device, events)
            runtime(device).queue.finish()
        elif engine == "numba":
            result = _numba(operator, streams)
        else:
            result = _reference(operator, streams)
        seconds = time.perf_counter() - t
        if r and seconds < best:
            best, best_kernel = seconds, (kernel_ns(events) / 1e9 if engine == "gpu" else None)
    return Measure(operator, engine, n, best, best_kernel, _count(operator, engine, result))


def agree(operator: str, streams, device: str | None = None) -> bool:
    """The gpu's answer equals the reference's (rows) and Numba's (positions or aggregates) on `streams`."""
    from cepkit.gpu.aggregate import aggregate_rows
    from cepkit.gpu.filter import filter_rows
    from cepkit.gpu.join import join_rows_gpu

    funcs = ("sum", "count", "min", "max", "avg")
    if operator == "filter":
        same = filter_rows(streams[0], FILTER, device) == _reference(operator, streams)
        return same and np.array_equal(_gpu(operator, streams, device, []), _numba(operator, streams))
    if operator == "aggregate":
        same = aggregate_rows(streams[0], "v", AGG_SPEC, funcs, device=device) == _reference(operator, streams)
        g, (s, mn, mx) = _gpu(operator, streams, device, []), _numba(operator, streams)
        nonempty = g.count > 0
        return same and np.array_equal(g.sum_lo.view(np.int64)[nonempty], s[nonempty]) and \
            np.array_equal(g.min[nonempty], mn[nonempty]) and np.array_equal(g.max[nonempty], mx[nonempty])
    same = join_rows_gpu(*streams, JOIN_ON, JOIN_SPEC, JOIN_SPEC, device=device) == _reference(operator, streams)
    g, nb = _gpu(operator, streams, device, []), _numba(operator, streams)
    return same and np.array_equal(g[0], nb[0]) and np.array_equal(g[1], nb[1])


def run(events: int, reference_events: int, device: str | None = None, repeat: int = 3,
        operators=OPERATORS) -> list[Measure]:
    out = []
    for op in operators:
        big, small = streams_for(op, events), streams_for(op, reference_events, seed=7)
        if not agree(op, small, device):
            raise AssertionError(f"{op}: the engines disagree")
        out += [measure(op, "gpu", big, device, repeat), measure(op, "numba", big, device, repeat),
                measure(op, "reference", small, device, 1)]
    return out


def table(measures: list[Measure]) -> str:
    """A markdown table: events/s, MB/s, kernel-only events/s and ratios against reference and Numba."""
    rate = {(m.operator, m.engine): m.events_per_second for m in measures}
    lines = ["| operator | engine | events | seconds | events/s | MB/s | kernel-only events/s | x reference "
             "| x numba |",
             "|---|---|---|---|---|---|---|---|---|"]
    for m in measures:
        k = m.kernel_events_per_second
        lines.append(f"| {m.operator} | {m.engine} | {m.events:,} | {m.seconds:.4f} | {m.events_per_second:,.0f} | "
                     f"{m.bytes_per_second / 1e6:,.1f} | {f'{k:,.0f}' if k else '-'} | "
                     f"{m.events_per_second / rate[(m.operator, 'reference')]:,.1f} | "
                     f"{m.events_per_second / rate[(m.operator, 'numba')]:,.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=2_000_000)
    ap.add_argument("--reference-events", type=int, default=20_000)
    ap.add_argument("--device")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--operators", default=",".join(OPERATORS))
    a = ap.parse_args(argv)
    from cepkit.gpu.device import runtime

    print(f"device: {runtime(a.device).name}")
    print(table(run(a.events, a.reference_events, a.device, a.repeat, a.operators.split(","))))


if __name__ == "__main__":
    main()
