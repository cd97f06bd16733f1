"""SASE 1.0 dialect: the optimized engine (optimized/sase1) against the reference's Sase1Program on SASE 1.0's
own stock stream (examples/sase1/Q1.stream: maxPrice 1000, 2 symbols, seed 10, increase probability 70,
rebuilt by reference/sase1; only the event count changes), engine-only seconds and their ratio, in one run.

    python -m benchmarks.sase1_optimized [--events 100000 1000000] [--reference-events 100000 1000000]
                                         [--repeat 3] [--queries q1 p2s3 p3s3]

Queries: q1 is examples/Q1.query (partition-contiguity, a[i].price > a[i-1].price, WITHIN 500); p2s3 and
p3s3 are the same closure under skip-till-next-match with a[i].price > a[i-1].price (p2) or
a[i].price > min(a[..i-1].price) (p3), as benchmarks/engine_compare.py's s3 queries. Engine-only time is
`program.run(batch)` on a batch read before timing (the optimized engine's Numba code compiled by a
warm-up run first); the best of --repeat runs for the optimized engine, one run for the reference. Both
engines' match tables are checked equal where both ran. Figures depend on the machine.
"""
from __future__ import annotations

import argparse
import dataclasses
import time
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ("PATTERN SEQ(stock+ a[], stock b) WHERE {strategy} AND [symbol] AND a[1].price % 500 = 0 AND {pa} "
            "AND b.volume < 150 WITHIN 500")
QUERIES = {
    "q1": (ROOT / "examples" / "Q1.query").read_text(encoding="utf-8"),
    "p2s3": TEMPLATE.format(strategy="skip-till-next-match", pa="a[i].price > a[i-1].price"),
    "p3s3": TEMPLATE.format(strategy="skip-till-next-match", pa="a[i].price > min(a[..i-1].price)"),
}


@lru_cache(maxsize=4)
def stream(events: int):
    """SASE 1.0's Q1 stream with `events` events, as an event batch."""
    from reference.readers import from_pandas
    from reference.sase1.stock_stream import read_config, to_frame

    config = dataclasses.replace(read_config(ROOT / "examples" / "sase1" / "Q1.stream"), streamSize=events)
    return from_pandas(to_frame(config))


def engine_seconds(name: str, events: int, engine: str, repeat: int = 1):
    """(best engine-only seconds, the match table) of `program.run(batch)`."""
    from cepkit import compile
    from reference.language import parse

    q = parse(QUERIES[name], dialect="sase1")
    batch = stream(events)
    if engine == "optimized":
        compile(q, engine=engine).run(stream(1000))  # Numba's compiled code (cached on disk)
    best, table = None, None
    for _ in range(repeat):
        program = compile(q, engine=engine, max_state=None)
        t0 = time.perf_counter()
        table = program.run(batch)
        seconds = time.perf_counter() - t0
        best = seconds if best is None else min(best, seconds)
    return best, table


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--events", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--reference-events", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--queries", nargs="+", default=list(QUERIES), choices=list(QUERIES))
    args = ap.parse_args(argv)
    print(f"{'query':6} {'events':>9} {'matches':>8} {'reference s':>12} {'optimized s':>12} {'ratio':>7}")
    for name in args.queries:
        for events in args.events:
            opt, table = engine_seconds(name, events, "optimized", args.repeat)
            ref = None
            if events in args.reference_events:
                ref, want = engine_seconds(name, events, "reference")
                assert table == want, f"{name} at {events} events: the engines' match tables differ"
            ratio = f"{ref / opt:7.1f}" if ref is not None else "      -"
            ref_text = f"{ref:12.2f}" if ref is not None else f"{'-':>12}"
            print(f"{name:6} {events:9d} {len(table):8d} {ref_text} {opt:12.3f} {ratio}", flush=True)


if __name__ == "__main__":
    main()
