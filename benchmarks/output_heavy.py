"""An output-heavy Kleene query (the shape of SASE 1.0's s3-p2): matching against writing, row-by-row writer
against the column writer, and the whole `cepkit run` process of source trees side by side.

    python -m benchmarks.output_heavy [--events 1000000] [--repeat 3] [--dir DIR] [--tree PATH ...]

The stream: one `stock` event a tick over 4 symbols; each symbol's price climbs by 1 for a run
of 5..120 ticks, then falls back (so Kleene runs are long); volume uniform over 1..1000. Deterministic
(seed 7). The query (QUERY): `SEQ(stock+ a[], stock b)` under skip_till_next_match, `[symbol]`, a rising
closure started where the price is a multiple of 100, ended by a low-volume b; RETURN with an exact average.

In one process, on the same table: matching (program.run, warm kernel), the row-by-row JSON lines that
`cepkit run` wrote before (`json_line(m.to_json())` per Match) and the column writer
(cepkit.match_output.jsonl). Then with `--tree` each source tree's `cepkit run --engine optimized
--output /dev/null` as a fresh process, alternated, best of `--repeat` (wall time and cepkit's own
reported seconds); without `--tree` this tree only.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time

import numpy as np

QUERY = ("PATTERN SEQ(stock+ a[], stock b) WHERE skip_till_next_match { [symbol] and a[1].price % 100 = 0 "
         "and a[i].price > a[i-1].price and b.volume < 100 } WITHIN 400 "
         "RETURN a[1].price AS first_price, avg(a[].price) AS avg_price, b.volume AS drop_volume")


def generate(n: int, symbols: int = 4, seed: int = 7):
    """The stream as a pyarrow Table: id, ts, type, symbol, price, volume."""
    import pyarrow as pa

    rng = np.random.default_rng(seed)
    sym = rng.integers(1, symbols + 1, size=n)
    price = np.empty(n, np.int64)
    for s in range(1, symbols + 1):
        idx = np.flatnonzero(sym == s)
        runs = rng.integers(5, 121, size=len(idx) // 5 + 2)
        steps = np.concatenate([np.r_[np.ones(r - 1, np.int64), -(r - 1)] for r in runs])[: len(idx)]
        price[idx] = 1000 + np.cumsum(steps)
    volume = rng.integers(1, 1001, size=n)
    return pa.table({"id": np.arange(n), "ts": np.arange(n), "type": ["stock"] * n, "symbol": sym,
                     "price": price, "volume": volume})


def stream_file(n: int, directory: str) -> str:
    """DIR/heavy_N.parquet, written once."""
    import pyarrow.parquet as pq

    path = os.path.join(directory, f"heavy_{n}.parquet")
    if not os.path.exists(path):
        pq.write_table(generate(n), path)
    return path


def in_process(path: str) -> dict:
    """Seconds of reading, matching, the row-by-row JSON lines and the column writer, on one table."""
    from cepkit import compile
    from cepkit.match_output import jsonl
    from cepkit.forms import TimeForm, json_line, use_time_form
    from cepkit.core.readers import read_events

    t = time.perf_counter()
    batch = read_events(path)
    read = time.perf_counter() - t
    compile(QUERY, engine="optimized").run(batch.slice(0, 2000))  # the kernel warm
    program = compile(QUERY, engine="optimized")
    t = time.perf_counter()
    table = program.run(batch)
    match = time.perf_counter() - t
    ids = sum(int(np.sum(np.diff(table.to_arrow().column(v).combine_chunks().offsets.to_numpy())))
              for v in table.layout.variables)
    with use_time_form(TimeForm("ticks")):
        t = time.perf_counter()
        size = sum(len(p) for p in jsonl(table))
        column = time.perf_counter() - t
        fresh = type(table)(table.layout, arrow=table.to_arrow())  # the rows decoded anew, as the old path did
        t = time.perf_counter()
        old = "".join(json_line(m.to_json()) for m in fresh)
        row = time.perf_counter() - t
    assert len(old.encode()) == size
    return {"events": len(batch), "matches": len(table), "bound ids": ids, "MB": size / 1e6, "read s": read,
            "match s": match, "row writer s": row, "column writer s": column}


def whole_process(tree: str, path: str) -> tuple[float, float]:
    """(wall seconds, cepkit's reported seconds) of one `cepkit run` of `tree`'s sources."""
    query = os.path.join(os.path.dirname(path), "heavy.sase")
    with open(query, "w") as f:
        f.write(QUERY)
    env = dict(os.environ, PYTHONPATH=tree)
    cmd = [sys.executable, "-m", "cepkit.cli", "run", query, path, "--engine", "optimized", "--output", os.devnull,
           "--no-progress"]
    t = time.perf_counter()
    done = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env, cwd=tree)
    wall = time.perf_counter() - t
    return wall, float(re.search(r"in ([0-9.]+) s", done.stderr.strip().splitlines()[-1]).group(1))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dir", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "cepkit-heavy"))
    ap.add_argument("--tree", nargs="*", default=None, help="source trees to run side by side (default: this one)")
    ap.add_argument("--no-in-process", action="store_true")
    args = ap.parse_args(argv)
    os.makedirs(args.dir, exist_ok=True)
    path = stream_file(args.events, args.dir)
    if not args.no_in_process:
        r = in_process(path)
        print(" | ".join(f"{k} {v:,.2f}" if isinstance(v, float) else f"{k} {v:,}" for k, v in r.items()), flush=True)
    trees = args.tree or [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
    for tree in trees:
        whole_process(tree, path)  # Numba's cache and the page cache warm
    best = {tree: (float("inf"), float("inf")) for tree in trees}
    for _ in range(args.repeat):
        for tree in trees:
            best[tree] = min(best[tree], whole_process(tree, path))
    for tree, (wall, inner) in best.items():
        print(f"{tree}: process {wall:.2f} s, cepkit-reported {inner:.2f} s (best of {args.repeat})", flush=True)


if __name__ == "__main__":
    main()
