"""Events/s of the reference and the optimized engine on the spec/000 experiment queries (not a test).

    python -m optimized.measure [--events N] [--reference-events N] [--window W ...] [--codegen] [--unshared]

Each query (benchmarks/engine_compare.py) runs over its stock stream, already in an EventBatch;
the time covers feed() + close(), including building the Match objects.
"""
from __future__ import annotations

import argparse
import time

from benchmarks import engine_compare as C
from cepkit import compile


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
    queries = [(f"{name} W={w}", C.query_text(name, w), name == "q3") for w in args.window for name in C.QUERIES]
    cols = (["query", "reference ev/s", "tables ev/s", "matches"] + (["codegen ev/s"] if args.codegen else [])
            + (["unshared tables ev/s"] if args.unshared else []))
    print(" | ".join(cols))
    for name, text, query3 in queries:
        batch = C.stream(args.events, query3)
        small = batch.slice(0, args.reference_events)
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
