"""Bounded state under chunked feeding (not a test): live engine state and peak memory for streams of
several lengths, each read from a Parquet file in chunks and fed to the optimized engine in a fresh process.

    python -m benchmarks.chunked_state [--events 1000000 10000000] [--chunk-size 100000] [--query p2s3]
                                       [--window 500] [--dir DIR]

For each length: the spec/000 §7 stock stream (benchmarks/workloads/stock.py, seed 1) is written to
DIR/stock_N.parquet (kept for reruns), then a child process reads it with cepkit.core.event_chunks, feeds
every chunk to the program, writes the matches as JSON lines to /dev/null, and reports the largest
`state_size()` seen after any chunk and its peak resident memory (VmHWM).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

from benchmarks import engine_compare as C


def child(path: str, chunk_size: int, text: str) -> dict:
    """Feed the file chunk by chunk; the peak of each state_size() field, matches, events/s, ru_maxrss."""
    from cepkit import compile
    from cepkit.output import MatchWriter
    from cepkit.core.event_chunks import iter_events

    program = compile(text, engine="optimized")
    writer = MatchWriter("jsonl", os.devnull, program)
    peak: dict[str, int] = {}
    events = 0
    started = time.perf_counter()
    for batch in iter_events(path, chunk_size):
        writer.write(program.feed(batch))
        events += len(batch)
        for key, value in program.state_size().items():
            peak[key] = max(peak.get(key, 0), value)
    writer.write(program.close())
    writer.close()
    seconds = time.perf_counter() - started
    return {"events": events, "matches": writer.count, "events_per_s": events / seconds, "peak_state": peak,
            "max_rss_mib": (C.rss_kb("VmHWM") or 0) / 1024}  # not ru_maxrss: it keeps the parent's peak


def stock_file(n: int, directory: str) -> str:
    from benchmarks.workloads.stock import generate, write

    path = os.path.join(directory, f"stock_{n}.parquet")
    if not os.path.exists(path):
        write(generate(n, symbols=C.SYMBOLS, seed=1), path)
    return path


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, nargs="+", default=[1_000_000, 10_000_000])
    ap.add_argument("--chunk-size", type=int, default=100_000)
    ap.add_argument("--query", default="p2s3", choices=C.QUERIES)
    ap.add_argument("--window", type=int, default=500)
    ap.add_argument("--dir", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "cepkit-chunked"))
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    text = C.query_text(args.query, args.window)
    if args.child:
        print(json.dumps(child(args.child, args.chunk_size, text)))
        return
    os.makedirs(args.dir, exist_ok=True)
    print(f"{args.query} W={args.window}, chunks of {args.chunk_size:,} events")
    print("events | matches | events/s | peak runs | peak buffer nodes | peak stored events | max RSS MiB")
    for n in args.events:
        path = stock_file(n, args.dir)
        out = subprocess.run([sys.executable, "-m", "benchmarks.chunked_state", "--child", path,
                              "--chunk-size", str(args.chunk_size), "--query", args.query,
                              "--window", str(args.window)], check=True, capture_output=True, text=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        s = r["peak_state"]
        print(f"{r['events']:,} | {r['matches']:,} | {r['events_per_s']:,.0f} | {s['runs']:,} | "
              f"{s['buffer_nodes']:,} | {s['stored_events']:,} | {r['max_rss_mib']:,.0f}", flush=True)


if __name__ == "__main__":
    main()
