"""`cepkit run QUERY.tps EVENTS [--early]`: a TPStream query over an event file; one row per match with
its detection time `ts`, its situations' intervals and the RETURN values."""
from __future__ import annotations

import argparse
import sys
import time
from typing import Any, Sequence

import pandas as pd

from reference.errors import CepkitError, QueryError

ENGINES = {"reference": "matcher", "brute": "brute", "gpu": "matcher"}   # gpu: situations derived on the device
BRUTE_LIMIT = 300  # events: the brute-force definition enumerates every run and configuration


def add_options(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--early", action="store_true",
                       help="low-latency output: report each match as soon as it is certain (spec/004 §5.8)")


def run(args: argparse.Namespace) -> int:
    from cepkit.cli import read_query
    from reference.readers import read_events
    from reference.tpstream.parser import parse_tpstream
    from reference.tpstream.run import run_query

    engine = args.engine or "reference"
    if engine not in ENGINES:
        raise QueryError(f"engine '{engine}' cannot run TPStream queries", expected=sorted(ENGINES))
    if engine == "gpu" and args.early:
        raise QueryError("engine 'gpu' derives situations for the exact mode only; drop --early or use "
                         "--engine reference")
    query = parse_tpstream(read_query(args.query))
    derived = None
    if engine == "gpu":
        from gpu.situations import device_derivation

        derived = device_derivation(getattr(args, "device", None))
    started = time.monotonic()
    batch = read_events(args.events, ts_unit=args.ts_unit, sort=args.sort, type_col=args.type_col,
                        default_type=args.default_type or "event")
    if engine == "brute" and len(batch) > BRUTE_LIMIT:
        raise CepkitError(f"engine 'brute' enumerates every configuration; it refuses more than {BRUTE_LIMIT} "
                          f"events (got {len(batch)})")
    mode = "early" if args.early else "exact"
    matches = run_query(query, batch, mode, ENGINES[engine], derived=derived)
    elapsed = time.monotonic() - started
    write(matches, query, args.format, args.output)
    print(f"{len(matches)} matches from {len(batch)} events in {elapsed:.2f} s "
          f"(tpstream, {mode} mode, engine {engine})", file=sys.stderr)
    return 0


def frame(matches: Sequence[Any], query) -> pd.DataFrame:
    """One row per match: partition attributes, each situation's ts and te, ts (detection), RETURN values."""
    from reference.match import plain

    names = list(query.streams)
    cols = list(query.partition_by) + [f"{n}_{e}" for n in names for e in ("ts", "te")] + ["ts"] + \
        [r.name for r in query.returns]
    rows = []
    for m in matches:
        row: dict[str, Any] = {a: plain(v) for a, v in zip(query.partition_by, m.partition)}
        for n, s, e in m.situations:
            row[f"{n}_ts"], row[f"{n}_te"] = s, e
        row["ts"] = m.ts
        row.update({k: plain(v) for k, v in m.values})
        rows.append(row)
    return pd.DataFrame(rows, columns=cols)


def write(matches: Sequence[Any], query, fmt: str, output: str | None) -> None:
    from cepkit.output import write_output

    write_output(fmt, output, lambda: (m.to_json(query.partition_by) for m in matches),
                 lambda _fmt: frame(matches, query), "(no matches)")
