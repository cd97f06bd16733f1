"""asv benchmarks: filter, windowed aggregation and windowed join on the gpu engine (OpenCL), the Numba
CPU baseline and the reference (benchmarks/gpu_windows.py), measured in one run; tracked as events/s,
bytes/s, kernel-only events/s (gpu) and events/s ratios against the reference and Numba."""
from __future__ import annotations

import math

from benchmarks import gpu_windows as G


class GpuWindows:
    params = [list(G.OPERATORS), list(G.ENGINES)]
    param_names = ["operator", "engine"]
    events = 1_000_000
    reference_events = 20_000
    timeout = 900

    def setup_cache(self):
        return {(m.operator, m.engine): m for m in G.run(self.events, self.reference_events, repeat=3)}

    def track_events_per_second(self, results, operator, engine):
        return results[(operator, engine)].events_per_second

    def track_bytes_per_second(self, results, operator, engine):
        return results[(operator, engine)].bytes_per_second

    def track_kernel_events_per_second(self, results, operator, engine):
        k = results[(operator, engine)].kernel_events_per_second
        return k if k else math.nan

    def track_ratio_vs_reference(self, results, operator, engine):
        return results[(operator, engine)].events_per_second / results[(operator, "reference")].events_per_second

    def track_ratio_vs_numba(self, results, operator, engine):
        return results[(operator, engine)].events_per_second / results[(operator, "numba")].events_per_second
