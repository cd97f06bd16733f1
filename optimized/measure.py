"""Events/s of the reference and the optimized engine on the spec/000 experiment queries (not a test).

    python -m optimized.measure [--events N] [--reference-events N] [--window W ...] [--codegen] [--unshared]

Each query runs over the same stock stream (benchmarks/workloads/stock.py) already in an EventBatch;
the time covers feed() + close(), including building the Match objects.
"""
from __future__ import annotations

import argparse
import time

from benchmarks.workloads.stock import generate
from cepkit import compile
from reference.events import from_pandas

TEMPLATE = ("PATTERN SEQ(stock+ a[], stock b) WHERE {strategy} AND [symbol] AND a[1].price % 500 = 0 "
            "AND {pa} AND b.volume < 150 WITHIN {w}")
PREDICATES = {"p1": "TRUE", "p2": "a[i].price > a[i-1].price", "p3": "a[i].price > min(a[..i-1].price)"}
STRATEGIES = {"s2": "partition-contiguity", "s3": "skip-till-next-match"}
QUERY3 = ("PATTERN SEQ(stock+ a[], stock b) WHERE skip_till_next_match(a[], b) { [symbol] and "
          "a[1].volume > 900 and a[i].price > avg(a[..i-1].price) and b.volume < 80%*a[a.LEN].volume } WITHIN 500")


def _rate(text: str, batch, engine: str, **options) -> tuple[float, int]:
    program = compile(text, engine=engine, **options)
    program.run(batch.slice(0, min(len(batch), 50)))  # load or compile the kernel
    program = compile(text, engine=engine, **options)
    t = time.perf_counter()
    matches = program.run(batch)
    return len(batch) / (time.perf_counter() - t), len(matches)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--reference-events", type=int, default=20_000)
    ap.add_argument("--window", type=int, nargs="+", default=[500, 2000])
    ap.add_argument("--codegen", action="store_true", help="also time the generated-module kernel")
    ap.add_argument("--unshared", action="store_true", help="also time the tables with share_buffer=False")
    args = ap.parse_args(argv)
    frame = generate(args.events, seed=1)
    batch = from_pandas(frame)
    small = batch.slice(0, args.reference_events)
    queries = [(f"{p} {s} W={w}", TEMPLATE.format(strategy=STRATEGIES[s], pa=PREDICATES[p], w=w))
               for w in args.window for p in PREDICATES for s in STRATEGIES]
    queries.append(("Query3 W=500", QUERY3))
    cols = (["query", "reference ev/s", "tables ev/s", "matches"] + (["codegen ev/s"] if args.codegen else [])
            + (["unshared tables ev/s"] if args.unshared else []))
    print(" | ".join(cols))
    for name, text in queries:
        ref, _ = _rate(text, small, "reference")
        opt, found = _rate(text, batch, "optimized")
        row = [name, f"{ref:,.0f}", f"{opt:,.0f} ({opt / ref:,.0f}x)", f"{found:,}"]
        if args.codegen:
            gen, _ = _rate(text, batch, "optimized", codegen=True)
            row.append(f"{gen:,.0f} ({gen / ref:,.0f}x)")
        if args.unshared:
            priv, _ = _rate(text, batch, "optimized", share_buffer=False)
            row.append(f"{priv:,.0f}")
        print(" | ".join(row), flush=True)


if __name__ == "__main__":
    main()
