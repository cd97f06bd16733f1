"""asv benchmarks: sequential pattern matching on the gpu engine (OpenCL, both launch modes) vs the optimized
CPU engine (SASE+ form of the workload) vs the reference (benchmarks/gpu_pattern.py), measured in one run;
tracked as end-to-end, matching and kernel-only events/s and the end-to-end ratios against the reference,
the optimized engine and the gpu engine's per-event launches, per WITHIN window (1e3 and 1e4 events)."""
from __future__ import annotations

import math

from benchmarks import gpu_pattern as G


class GpuPattern:
    params = [list(G.WINDOWS), list(G.ENGINES)]
    param_names = ["window", "engine"]
    events = 20_000
    reference_events = 1_500
    timeout = 900

    def setup_cache(self):
        return {(m.window, m.engine): m for m in G.run(self.events, self.reference_events, repeat=2)}

    def track_events_per_second(self, results, window, engine):
        return results[(window, engine)].events_per_second

    def track_matching_events_per_second(self, results, window, engine):
        m = results[(window, engine)]
        return m.events / m.match_seconds if m.match_seconds else math.nan

    def track_kernel_events_per_second(self, results, window, engine):
        m = results[(window, engine)]
        return m.events / m.kernel_seconds if m.kernel_seconds else math.nan

    def track_ratio_vs_reference(self, results, window, engine):
        return results[(window, engine)].events_per_second / results[(window, "reference")].events_per_second

    def track_ratio_vs_optimized(self, results, window, engine):
        return results[(window, engine)].events_per_second / results[(window, "optimized")].events_per_second

    def track_ratio_vs_gpu_event(self, results, window, engine):
        return results[(window, engine)].events_per_second / results[(window, "gpu-event")].events_per_second
