"""Peak memory of the optimized MATCH_RECOGNIZE and TPStream engines fed a long stream in chunks (not a test):
each run is a fresh process that generates the stream chunk by chunk (so only the engine holds history),
feeds every chunk, closes, and reports its peak resident memory (ru_maxrss) and the matches.

    python -m benchmarks.chunked_rss [--events 1000000 10000000] [--chunk 100000] [--language sql tpstream]

TPStream: the 3-situation car-sensor query of benchmarks/tpstream_optimized.py (WITHIN 300), chunk k drawn
with seed 7 + k. MATCH_RECOGNIZE: the V-shape query of benchmarks/sql_optimized.py, chunk k with seed k.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time


def child(language: str, events: int, chunk: int) -> dict:
    import resource
    import warnings

    import cepkit
    from cepkit.core import registry
    warnings.simplefilter("ignore")
    if language == "tpstream":
        from benchmarks.tpstream_optimized import QUERIES, stream
        program = cepkit.compile(QUERIES["3-situation"], language="tpstream", engine="optimized")
    else:
        from benchmarks.sql_optimized import QUERIES, ticker
        program = cepkit.compile(QUERIES["v-shape"], language="sql", engine="optimized")
    matches, started = 0, time.perf_counter()
    for k, lo in enumerate(range(0, events, chunk)):
        n = min(chunk, events - lo)
        frame = stream(n, seed=7 + k) if language == "tpstream" else ticker(n, seed=k)
        frame["ts"] += lo
        frame.insert(0, "id", range(lo, lo + n))
        batch = registry.read_input(language, "optimized", frame, query=getattr(program, "query", None))
        matches += len(program.feed(batch))
    matches += len(program.close())
    return {"language": language, "events": events, "chunk": chunk, "matches": matches,
            "seconds": round(time.perf_counter() - started, 2),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, nargs="+", default=[1_000_000, 10_000_000])
    ap.add_argument("--chunk", type=int, default=100_000)
    ap.add_argument("--language", nargs="+", default=["tpstream", "sql"], choices=["tpstream", "sql"])
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child[0], int(args.child[1]), int(args.child[2]))))
        return
    for language in args.language:
        for events in args.events:
            out = subprocess.run([sys.executable, "-m", "benchmarks.chunked_rss", "--child", language, str(events),
                                  str(args.chunk)], capture_output=True, text=True, check=True)
            print(out.stdout.strip().splitlines()[-1], flush=True)


if __name__ == "__main__":
    main()
