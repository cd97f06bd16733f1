"""Print the optimized / reference ratio table for the spec/000 experiment queries.

    python -m benchmarks.ratio_table            # from the newest asv results (.asv/results), else measure
    python -m benchmarks.ratio_table --run      # measure now (CEPKIT_BENCH_QUICK=1: small streams)

Columns: events/s of each engine and their ratio, matches/s of the optimized engine, the match count
(over the optimized engine's stream), and peak memory (MiB above the process's resident set before the run).
"""
from __future__ import annotations

import argparse
import glob
import json
import math
import os

from benchmarks import engine_compare as C

SUITE = "bench_optimized.EngineStock"


def from_asv(results_dir: str = ".asv/results") -> dict | None:
    """{(engine, query, window): {metric: value}} from the newest asv result file holding the suite."""
    files = sorted(glob.glob(os.path.join(results_dir, "*", "*.json")), key=os.path.getmtime, reverse=True)
    for path in files:
        if os.path.basename(path) == "machine.json":
            continue
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        results = data.get("results", {})
        names = data.get("result_columns", ["result", "params"])
        table: dict = {}
        for metric in ("events_per_second", "matches_per_second", "matches", "peak_memory_mb"):
            entry = results.get(f"{SUITE}.track_{metric}")
            if entry is None:
                continue
            row = dict(zip(names, entry)) if isinstance(entry, list) else entry
            values, params = row.get("result"), row.get("params")
            if not values or not params:
                continue
            combos = [(e, q, int(w)) for e in params[0] for q in params[1] for w in params[2]]
            for key, value in zip(combos, values):
                key = (key[0].strip("'\""), key[1].strip("'\""), key[2])
                table.setdefault(key, {})[metric] = value
        if table:
            return table
    return None


def measured() -> dict:
    return {key: {"events_per_second": m.events_per_second, "matches_per_second": m.matches_per_second,
                  "matches": m.matches, "peak_memory_mb": m.peak_mb} for key, m in C.measure_all().items()}


def _num(value, fmt="{:,.0f}") -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return fmt.format(value)


def render(table: dict) -> str:
    head = (f"{'query':<6}{'W':>6}{'ref events/s':>15}{'opt events/s':>15}{'ratio':>9}"
            f"{'opt matches/s':>15}{'matches':>11}{'ref MiB':>9}{'opt MiB':>9}")
    lines = [head, "-" * len(head)]
    for name in C.QUERIES:
        for window in C.WINDOWS:
            ref = table.get(("reference", name, window), {})
            opt = table.get(("optimized", name, window), {})
            r, o = ref.get("events_per_second"), opt.get("events_per_second")
            ratio = o / r if r and o and not (math.isnan(r) or math.isnan(o)) else None
            lines.append(f"{name:<6}{window:>6}{_num(r):>15}{_num(o):>15}{_num(ratio, '{:.1f}x'):>9}"
                         f"{_num(opt.get('matches_per_second')):>15}{_num(opt.get('matches')):>11}"
                         f"{_num(ref.get('peak_memory_mb'), '{:.1f}'):>9}{_num(opt.get('peak_memory_mb'), '{:.1f}'):>9}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", action="store_true", help="measure now instead of reading asv results")
    ap.add_argument("--results", default=".asv/results", help="asv results directory")
    args = ap.parse_args(argv)
    table = None if args.run else from_asv(args.results)
    source = "asv results" if table else "measured now"
    if table is None:
        table = measured()
    print(f"reference vs optimized, spec/000 experiment queries ({source}; optimized needs >= 100x at W = 500)")
    print(render(table))


if __name__ == "__main__":
    main()
