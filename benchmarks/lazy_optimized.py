"""Lazy vs eager evaluation, both optimized (Numba): events/s and partial matches created at type frequency
ratios 1, 10, 100 and 1000 (spec/001 §8), with the reference engines on a smaller stream for the ratio.

    python -m benchmarks.lazy_optimized [--events 1000000] [--reference-events 10000] [--ratios 1 10 100 1000]
                                        [--window 20] [--repeat 3] [--json] [--codegen] [--rss 1000000 10000000]

The stream (benchmarks/workloads/skewed.py) has types A : B : C at r : r : 1 and x uniform in 0..9; the
query is SEQ(A a, B b, C c) WHERE a.x < b.x WITHIN w (ts = position). optimized-lazy estimates its order
from the first 1000 events (C first once r > 1); optimized-tree adapts per instance. Engine-only timing:
the EventBatch is built before the clock starts; the time covers compile, feed and close (matching and the
match table), best of --repeat, after a warm-up run that loads the Numba kernels. Every engine's matches
are checked equal to the eager engine's (count, and keys on the reference-sized stream).

--rss N...: peak resident memory of optimized-lazy and optimized-eager fed N events in chunks of 100,000
(ratio 100), each in a fresh process that generates the stream chunk by chunk.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

QUERY = "PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x WITHIN {window}"
FAST = ("optimized-eager", "optimized-lazy", "optimized-tree")
SLOW = ("reference-eager", "reference-lazy")


def batch(n: int, ratio: int, seed: int = 0):
    from benchmarks.workloads.skewed import generate
    from cepkit.core.readers import from_pandas

    return from_pandas(generate(n, common=ratio, seed=seed))


def measure(engine: str, text: str, events, repeat: int = 1, codegen: bool = False) -> dict:
    """Best wall time of compile + run over `events`, with the counters and matches of that run (codegen:
    the optimized engines' generated WHERE clauses)."""
    from cepkit import compile

    best = None
    for _ in range(repeat):
        started = time.perf_counter()
        program = compile(text, engine=engine, **({"codegen": True} if codegen and engine in FAST else {}))
        table = program.run(events)
        seconds = time.perf_counter() - started
        if best is None or seconds < best["seconds"]:
            best = {"seconds": seconds, "matches": len(table), "table": table,
                    "partial_matches": program.counters.partial_matches,
                    "predicate_evaluations": program.counters.predicate_evaluations,
                    "order": getattr(program, "orders", None)}
    best["events"] = len(events)
    best["events_per_second"] = len(events) / best["seconds"]
    return best


def run(events: int, reference_events: int, ratios, window: int, repeat: int, codegen: bool = False) -> list[dict]:
    text = QUERY.format(window=window)
    rows = []
    for ratio in ratios:
        big = batch(events, ratio)
        small = big.slice(0, min(len(big), reference_events))
        for engine in FAST:
            measure(engine, text, big.slice(0, 2000), codegen=codegen)  # warm: load (or compile) the kernels
        results = {e: measure(e, text, big, repeat, codegen) for e in FAST}
        refs = {e: measure(e, text, small) for e in SLOW}
        same = {e: measure(e, text, small) for e in FAST}
        want = sorted(m.key() for m in refs["reference-eager"]["table"])
        for e in FAST:
            assert results[e]["matches"] == results["optimized-eager"]["matches"], (e, ratio)
            assert sorted(m.key() for m in same[e]["table"]) == want, (e, ratio)
        eager, lazy, tree = (results[e] for e in FAST)
        rows.append({
            "ratio": ratio, "events": events, "window": window, "codegen": codegen, "matches": eager["matches"],
            "order": ",".join(lazy["order"][0]),
            **{f"{e}_events_per_second": round(results[e]["events_per_second"]) for e in FAST},
            **{f"{e}_partial_matches": results[e]["partial_matches"] for e in FAST},
            "partial_match_ratio": round(eager["partial_matches"] / max(1, lazy["partial_matches"]), 2),
            "speedup_lazy_over_eager": round(lazy["events_per_second"] / eager["events_per_second"], 2),
            "speedup_tree_over_eager": round(tree["events_per_second"] / eager["events_per_second"], 2),
            "reference_events": len(small),
            **{f"{e}_events_per_second": round(refs[e]["events_per_second"]) for e in SLOW},
            "optimized_lazy_over_reference_lazy": round(
                same["optimized-lazy"]["events_per_second"] / refs["reference-lazy"]["events_per_second"], 1),
        })
    return rows


def child(engine: str, events: int, chunk: int, ratio: int, window: int) -> dict:
    import resource

    from benchmarks.workloads.skewed import generate
    from cepkit import compile
    from cepkit.core.readers import from_pandas

    program = compile(QUERY.format(window=window), engine=engine)
    matches, started = 0, time.perf_counter()
    for k, lo in enumerate(range(0, events, chunk)):
        frame = generate(min(chunk, events - lo), common=ratio, seed=k)
        frame["ts"] += lo
        frame["id"] += lo
        matches += len(program.feed(from_pandas(frame)))
    matches += len(program.close())
    return {"engine": engine, "events": events, "chunk": chunk, "ratio": ratio, "matches": matches,
            "seconds": round(time.perf_counter() - started, 2),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--reference-events", type=int, default=10_000)
    ap.add_argument("--ratios", type=int, nargs="+", default=[1, 10, 100, 1000])
    ap.add_argument("--window", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true", help="print one JSON object per row")
    ap.add_argument("--codegen", action="store_true", help="the optimized engines with generated WHERE clauses")
    ap.add_argument("--rss", type=int, nargs="*", help="peak memory fed this many events in chunks instead")
    ap.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        e, n, c, r, w = args.child
        print(json.dumps(child(e, int(n), int(c), int(r), int(w))))
        return
    if args.rss is not None:
        for n in args.rss or [1_000_000, 10_000_000]:
            for engine in ("optimized-lazy", "optimized-eager"):
                out = subprocess.run([sys.executable, "-m", "benchmarks.lazy_optimized", "--child", engine, str(n),
                                      "100000", "100", str(args.window)], capture_output=True, text=True, check=True)
                print(out.stdout.strip(), flush=True)
        return
    rows = run(args.events, args.reference_events, args.ratios, args.window, args.repeat, args.codegen)
    if args.json:
        for row in rows:
            print(json.dumps(row))
        return
    print(f"{QUERY.format(window=args.window)}; {args.events:,} events (reference: {args.reference_events:,})"
          + ("; generated WHERE clauses" if args.codegen else ""))
    print("ratio  order   eager ev/s   lazy ev/s   tree ev/s  lazy/eager  eager PM    lazy PM  PM ratio  matches")
    for r in rows:
        print(f"{r['ratio']:>5}  {r['order']:<6} {r['optimized-eager_events_per_second']:>11,} "
              f"{r['optimized-lazy_events_per_second']:>11,} {r['optimized-tree_events_per_second']:>11,} "
              f"{r['speedup_lazy_over_eager']:>10} {r['optimized-eager_partial_matches']:>9,} "
              f"{r['optimized-lazy_partial_matches']:>9,} {r['partial_match_ratio']:>9} {r['matches']:>8,}")


if __name__ == "__main__":
    main()
