"""Reference vs optimized TPStream engine, engine-only events/s, on car-sensor streams modelled on the
thesis' experiments (spec/004 §5.11): speed and acceleration held for random stretches per car, a
3-situation pattern (Listing 5.1, the aggressive drivers, without duration bounds) and a 5-situation
chain (Fig 5.10's "Chain" class over speed and acceleration thresholds).

    python -m benchmarks.tpstream_optimized --events 100000 1000000 --reference-events 10000 100000 [--early]

Both engines run the same stream, compiled once; the optimized engine is warmed (Numba compilation) on a
small stream first. Engine-only: the EventBatch is built before the clock starts; the time covers feed and
close (derivation, matching, the match table). --early runs both in early-output mode.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

QUERIES = {
    "3-situation": """FROM CarSensors PARTITION BY car_id
DEFINE A AS accel > 8, B AS speed > 70, C AS accel < -9
PATTERN A meets;overlaps;starts;during B
    AND B contains;finished_by;overlaps;meets C
    AND A before C
WITHIN 300
RETURN first(B.car_id) AS id, avg(B.speed) AS avg_speed""",
    "5-situation": """FROM CarSensors PARTITION BY car_id
DEFINE A AS accel > 8, B AS speed > 70, C AS speed > 85, D AS accel < -9, E AS speed < 40
PATTERN A meets;overlaps;starts;during B
    AND B contains;started_by;finished_by C
    AND C before;meets D
    AND D before;meets;overlaps E
WITHIN 300
RETURN avg(B.speed) AS avg_speed, max(C.speed) AS top_speed, count(E.speed) AS slow_events""",
}


def _held(rnd: np.random.Generator, n: int, low: int, high: int, mean_run: float) -> np.ndarray:
    """n values drawn in [low, high), each held for a geometric number of events (mean `mean_run`)."""
    runs = rnd.geometric(1.0 / mean_run, size=n // max(1, int(mean_run)) + 16)
    while runs.sum() < n:
        runs = np.concatenate([runs, rnd.geometric(1.0 / mean_run, size=len(runs))])
    values = rnd.integers(low, high, size=len(runs))
    return np.repeat(values, runs)[:n]


def stream(n: int, cars: int = 10, seed: int = 7) -> pd.DataFrame:
    """n events of `cars` cars, one event per time tick, round robin; per car, speed (mph) and acceleration
    (m/s²) held for 1-10 events at a time."""
    rnd = np.random.default_rng(seed)
    per_car = -(-n // cars)
    speed = np.stack([_held(rnd, per_car, 30, 100, 5.0) for _ in range(cars)], axis=1).reshape(-1)[:n]
    accel = np.stack([_held(rnd, per_car, -12, 12, 3.0) for _ in range(cars)], axis=1).reshape(-1)[:n]
    return pd.DataFrame({"ts": np.arange(n, dtype=np.int64), "car_id": np.arange(n, dtype=np.int64) % cars,
                         "speed": speed.astype(np.int64), "accel": accel.astype(np.int64)})


def batch(n: int):
    from cepkit.core.inputs import to_untyped_batch

    return to_untyped_batch(stream(n))


def measure(engine: str, query: str, events, mode: str = "exact") -> tuple[float, int]:
    """(seconds, matches) of one run of the engine over the batch (compiled before the clock starts)."""
    import cepkit

    program = cepkit.compile(QUERIES[query], language="tpstream", engine=engine, mode=mode)
    start = time.perf_counter()
    table = program.run(events)
    return time.perf_counter() - start, len(table)


def best(engine: str, query: str, events, repeat: int, mode: str = "exact") -> tuple[float, int]:
    runs = [measure(engine, query, events, mode) for _ in range(repeat)]
    return min(r[0] for r in runs), runs[0][1]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, nargs="+", default=[100_000, 1_000_000], help="optimized stream sizes")
    ap.add_argument("--reference-events", type=int, nargs="+", default=[10_000, 100_000],
                    help="reference stream sizes (the reference is pure Python)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best counts")
    ap.add_argument("--queries", nargs="+", default=list(QUERIES), choices=list(QUERIES))
    ap.add_argument("--early", action="store_true", help="early output (mode early) instead of exact")
    ap.add_argument("--json", help="also write the rows as JSON here (benchmarks/plot_optimized.py plots them)")
    args = ap.parse_args(argv)
    mode = "early" if args.early else "exact"
    for q in args.queries:  # Numba compilation (cached on disk after the first process)
        measure("optimized", q, batch(2_000), mode)
    rows = []
    for q in args.queries:
        ref: dict[int, tuple[float, int]] = {}
        for n in sorted(set(args.reference_events)):
            ref[n] = best("reference", q, batch(n), 1 if n > 20_000 else args.repeat, mode)
        for n in sorted(set(args.events) | set(args.reference_events)):
            sec, matches = best("optimized", q, batch(n), args.repeat, mode)
            r = ref.get(n)
            if r is not None and r[1] != matches:
                raise SystemExit(f"{q} over {n} events: the engines disagree ({r[1]} vs {matches} matches)")
            rows.append((q, n, matches, None if r is None else n / r[0], n / sec))
    print(f"{'pattern':<12} {'events':>10} {'matches':>9} {'reference ev/s':>15} {'optimized ev/s':>15} {'ratio':>8}")
    for q, n, matches, ref_rate, opt_rate in rows:
        ratio = f"{opt_rate / ref_rate:8.0f}" if ref_rate else f"{'-':>8}"
        ref_text = f"{ref_rate:15,.0f}" if ref_rate else f"{'-':>15}"
        print(f"{q:<12} {n:>10,} {matches:>9,} {ref_text} {opt_rate:15,.0f} {ratio}")
    if args.json:
        write_json(args.json, [{"language": "tpstream", "query": f"{q} ({mode})", "engine": engine, "rows": n,
                                "matches": matches, "rate": rate}
                               for q, n, matches, ref_rate, opt_rate in rows
                               for engine, rate in (("reference", ref_rate), ("optimized", opt_rate)) if rate])


def write_json(path: str, rows: list[dict]) -> None:
    import json
    import os

    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
