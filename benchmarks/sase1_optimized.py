"""SASE 1.0 dialect: the optimized engine (optimized/sase1) against the reference's Sase1Program on SASE 1.0's
own stock streams (reference/sase1 rebuilds them; only the event count changes), engine-only seconds and
their ratio, in one run.

    python -m benchmarks.sase1_optimized [--events 100000 1000000] [--reference-events 100000 1000000]
                                         [--repeat 3] [--queries q1 p2s3 p3s3 seq3any]

Queries: q1 is examples/Q1.query (partition-contiguity, a[i].price > a[i-1].price, WITHIN 500); p2s3 and
p3s3 are the same closure under skip-till-next-match with a[i].price > a[i-1].price (p2) or
a[i].price > min(a[..i-1].price) (p3), as benchmarks/engine_compare.py's s3 queries; all three over
examples/sase1/Q1.stream's parameters (maxPrice 1000, 2 symbols, seed 10, increase probability 70).
seq3any is issue 20's `SEQ(stock1 a, stock2 b, stock3 c)` under skip-till-any-match with [price], WITHIN
1000, over the generator's uniform-price stream (3 symbols, types stock1..stock3, the other parameters
SASE 1.0's defaults: maxPrice 100, seed 11, increase probability 101). Engine-only time is
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
    "seq3any": "PATTERN SEQ(stock1 a, stock2 b, stock3 c) WHERE skip-till-any-match AND [price] WITHIN 1000",
}
UNIFORM = {"seq3any": {"numOfSymbol": 3}}  # queries over the uniform-price stream (SASE 1.0's defaults)


def stream(events: int, query: str = "q1"):
    """The query's SASE 1.0 stream with `events` events, as an event batch."""
    return _stream(events, query if query in UNIFORM else "q1")


@lru_cache(maxsize=4)
def _stream(events: int, kind: str):
    from cepkit.core.readers import from_pandas
    from cepkit.reference.sase1.stock_stream import StockStreamConfig, read_config, to_frame

    if kind in UNIFORM:
        config = StockStreamConfig.from_mapping({**UNIFORM[kind], "streamSize": events})
    else:
        config = dataclasses.replace(read_config(ROOT / "examples" / "sase1" / "Q1.stream"), streamSize=events)
    return from_pandas(to_frame(config))


def engine_seconds(name: str, events: int, engine: str, repeat: int = 1):
    """(best engine-only seconds, the match table) of `program.run(batch)`."""
    from cepkit import compile
    from cepkit.front.language import parse

    q = parse(QUERIES[name], dialect="sase1")
    batch = stream(events, name)
    if engine == "optimized":
        compile(q, engine=engine).run(stream(1000, name))  # Numba's compiled code (cached on disk)
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
