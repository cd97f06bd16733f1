"""Query 3 through the optimized engine: the match table built per match (a Match object each, the old
path: compile option columnar=False) against the table built from arrays (columnar, the default), in one run.

    python -m benchmarks.match_table_throughput [--events N] [--window W ...] [--repeat R] [--check] [--returns]

Query 3 (benchmarks/engine_compare.py, the spec/000 experiment query 'q3') over its stock stream (volumes up
to 1010), already in an EventBatch; the time covers program.run(batch) = feed() + close() and ends with the
MatchTable (the columnar table is Arrow when returned; the per-match one holds Match rows). Kernels are warm
(one run on the first 5,000 events first); the best of --repeat runs counts. --check compares the two
tables' decoded rows (not timed). --returns appends benchmarks.optimized_measure.RETURNS (seven RETURN items: the
payload columns come from the batch pass in both paths).
"""
from __future__ import annotations

import argparse
import time

from benchmarks import engine_compare as C
from cepkit import compile
from benchmarks.optimized_measure import RETURNS

PATHS = {"per-match": False, "columnar": True}


def measure(text: str, batch, columnar: bool, repeat: int = 1):
    """(seconds, the table) of the best of `repeat` runs of a fresh program over the batch."""
    compile(text, engine="optimized", columnar=columnar).run(batch.slice(0, min(len(batch), 5_000)))
    best, table = float("inf"), None
    for _ in range(repeat):
        program = compile(text, engine="optimized", columnar=columnar)
        t = time.perf_counter()
        table = program.run(batch)
        best = min(best, time.perf_counter() - t)
    return best, table


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=C.QUERY3_EVENTS)
    ap.add_argument("--window", type=int, nargs="+", default=C.WINDOWS)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--check", action="store_true", help="assert both paths give the same rows")
    ap.add_argument("--returns", action="store_true", help="add benchmarks.optimized_measure.RETURNS to Query 3")
    args = ap.parse_args(argv)
    batch = C.stream(args.events, True)
    print(f"Query 3{' with RETURNS' if args.returns else ''}, {len(batch):,} events, best of {args.repeat}")
    print("W | path | events/s | matches | matches/s | columnar / per-match")
    results = []
    for w in args.window:
        text = C.query_text("q3", w) + (" " + RETURNS if args.returns else "")
        got = {}
        for name, columnar in PATHS.items():
            seconds, table = measure(text, batch, columnar, args.repeat)
            got[name] = (seconds, table)
            rate = len(batch) / seconds
            ratio = f"{got['per-match'][0] / seconds:.2f}x" if name == "columnar" else ""
            print(f"{w} | {name} | {rate:,.0f} | {len(table):,} | {len(table) / seconds:,.0f} | {ratio}", flush=True)
            results.append({"window": w, "path": name, "events": len(batch), "seconds": seconds,
                            "events_per_second": rate, "matches": len(table)})
        if args.check:
            assert got["columnar"][1].rows() == got["per-match"][1].rows(), f"W={w}: the paths differ"
            print(f"{w} | rows equal")
    return results


if __name__ == "__main__":
    main()
