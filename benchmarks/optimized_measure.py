"""Events/s of the reference and the optimized engine on the spec/000 experiment queries (not a test).

    python -m benchmarks.optimized_measure [--events N] [--reference-events N] [--window W ...] [--codegen] [--unshared]
                                [--merge] [--returns] [--queries NAME ...]

Each query (benchmarks/engine_compare.py) runs over its stock stream, already in an EventBatch;
the time covers feed() + close(), including building the Match objects. --returns adds `RETURNS` to each
query and times its payloads computed in one Numba pass per batch against the per-match reference evaluator.
"""
from __future__ import annotations

import argparse
import time

from benchmarks import engine_compare as C
from cepkit import compile

RETURNS = ("RETURN a[1].price AS first, a[a.LEN].price AS last, avg(a[].price) AS mean, sum(a[].volume) AS volume, "
           "b.volume / a.LEN AS ratio, a.LEN AS n, b.symbol AS symbol")


def _rate(text: str, batch, engine: str, **options) -> tuple[float, int]:
    rate, found, _ = rate_and_runs(text, batch, engine, **options)
    return rate, found


def rate_and_runs(text: str, batch, engine: str, **options) -> tuple[float, int, int]:
    """Events/s over the batch (warm kernels), matches, and runs created (counters.partial_matches)."""
    program = compile(text, engine=engine, **options)
    program.run(batch.slice(0, min(len(batch), 20_000)))  # load or compile the kernels
    program = compile(text, engine=engine, **options)
    t = time.perf_counter()
    matches = program.run(batch)
    return len(batch) / (time.perf_counter() - t), len(matches), program.counters.partial_matches


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--reference-events", type=int, default=20_000)
    ap.add_argument("--window", type=int, nargs="+", default=[500, 2000])
    ap.add_argument("--codegen", action="store_true", help="also time the generated-module kernel")
    ap.add_argument("--unshared", action="store_true", help="also time the tables with share_buffer=False")
    ap.add_argument("--merge", action="store_true", help="also time merge on and off, and count the runs created")
    ap.add_argument("--returns", action="store_true",
                    help="add a RETURN clause; time batch payloads (default) against per-match evaluation")
    ap.add_argument("--queries", nargs="+", default=C.QUERIES, choices=C.QUERIES + C.MERGE_QUERIES,
                    help="spec/000 experiment queries, Query 3, and the merge workload m1-m3")
    args = ap.parse_args(argv)
    queries = [(f"{name} W={w}", C.query_text(name, w) + (" " + RETURNS if args.returns else ""), name == "q3")
               for w in args.window for name in args.queries]
    cols = (["query", "reference ev/s", "tables ev/s", "matches"] + (["codegen ev/s"] if args.codegen else [])
            + (["unshared tables ev/s"] if args.unshared else [])
            + (["unmerged tables ev/s", "merge on / off", "runs created on / off"] if args.merge else [])
            + (["per-match RETURN ev/s", "batch / per-match"] if args.returns else []))
    print(" | ".join(cols))
    for name, text, query3 in queries:
        batch = C.stream(args.events, query3)
        small = batch.slice(0, args.reference_events)
        ref, _ = _rate(text, small, "reference")
        opt, found, runs = rate_and_runs(text, batch, "optimized")
        row = [name, f"{ref:,.0f}", f"{opt:,.0f} ({opt / ref:,.0f}x)", f"{found:,}"]
        if args.codegen:
            gen, _ = _rate(text, batch, "optimized", codegen=True)
            row.append(f"{gen:,.0f} ({gen / ref:,.0f}x)")
        if args.unshared:
            priv, _ = _rate(text, batch, "optimized", share_buffer=False)
            row.append(f"{priv:,.0f}")
        if args.merge:  # the default merges equivalent runs: time it with merging off too
            on, _, on_runs = rate_and_runs(text, batch, "optimized", merge=True)
            off, _, off_runs = rate_and_runs(text, batch, "optimized", merge=False)
            row += [f"{off:,.0f}", f"{on / off:.2f}x", f"{on_runs:,} / {off_runs:,} ({on_runs / max(off_runs, 1):.0%})"]
        if args.returns:
            slow, _ = _rate(text, batch, "optimized", batch_returns=False)
            row += [f"{slow:,.0f}", f"{opt / slow:.2f}x"]
        print(" | ".join(row), flush=True)


if __name__ == "__main__":
    main()
