"""`cepkit run QUERY.tps EVENTS [--early]`: a TPStream query over an event file; one row per match with
its detection time `ts`, its situations' intervals and the RETURN values."""
from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING, Any, Sequence

from cepkit.core.errors import CepkitError, QueryError

if TYPE_CHECKING:
    import pandas as pd

# docs/semantics.md SD1: why this language reads its events whole
WHOLE = "whole input read: TPStream programs run over the whole stream (Program.run)"


def add_options(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--early", action="store_true",
                       help="low-latency output: report each match as soon as it is certain (spec/004 §5.8)")


def run(args: argparse.Namespace) -> int:
    from cepkit.cli import limit_options, limited, read_query
    from cepkit.core import registry
    from cepkit.core.readers import read_events
    from cepkit.reference.tpstream.parser import parse_tpstream

    engine = args.engine or "reference"  # checked against the registry by `cepkit run`
    if engine == "gpu" and args.early:
        raise QueryError("engine 'gpu' derives situations for the exact mode only; drop --early or use "
                         "--engine reference")
    query = parse_tpstream(read_query(args.query))
    mode = "early" if args.early else "exact"
    options: dict[str, Any] = {"mode": mode}
    if engine == "gpu":
        options["device"] = getattr(args, "device", None)
    program = registry.get_engine("tpstream", engine).compile(query, **options, **limit_options(args))
    started = time.monotonic()
    batch = read_events(args.events, ts_unit=args.ts_unit, sort=args.sort, type_col=args.type_col,
                        default_type=args.default_type or "event")
    from cepkit.reference.tpstream.engine import BRUTE_LIMIT

    if engine == "brute" and len(batch) > BRUTE_LIMIT:
        raise CepkitError(f"engine 'brute' enumerates every configuration; it refuses more than {BRUTE_LIMIT} "
                          f"events (got {len(batch)})")
    from cepkit.forms import note_input

    note_input(batch)  # datetimes in, ISO 8601 out (--ts-format)
    matches = matches_of(program.run(batch), query)
    elapsed = time.monotonic() - started
    write(matches, query, args.format, args.output)
    limited(args, len(matches))
    print(f"{len(matches)} matches from {len(batch)} events in {elapsed:.2f} s "
          f"(tpstream, {mode} mode, engine {engine}; {WHOLE})", file=sys.stderr)
    return 0


def matches_of(table, query) -> list:
    """The TPMatch of each row of a TPStream program's table (reference/tpstream/engine.py's layout:
    partition attributes, each situation's NAME.start and NAME.end, the RETURN values)."""
    from cepkit.reference.tpstream.run import TPMatch

    k, names = len(query.partition_by), list(query.streams)
    out = []
    for m in table:
        values = [v for _name, v in m.payload]
        sits = tuple((n, values[k + 2 * i], values[k + 2 * i + 1]) for i, n in enumerate(names))
        returns = tuple(zip((r.name for r in query.returns), values[k + 2 * len(names):]))
        out.append(TPMatch(tuple(values[:k]), sits, m.ts, returns))
    return out


def frame(matches: Sequence[Any], query) -> pd.DataFrame:
    """One row per match: partition attributes, each situation's ts and te, ts (detection), RETURN values."""
    from cepkit.core.match import plain

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
    from cepkit.forms import exact_frame

    return exact_frame(rows, cols, [f"{n}_{e}" for n in names for e in ("ts", "te")] + ["ts"])


def write(matches: Sequence[Any], query, fmt: str, output: str | None) -> None:
    """The matches; the detection time and every situation's start and end are timestamps (--ts-format)."""
    from cepkit.forms import time_form
    from cepkit.output import write_output

    def records() -> list[dict]:
        rows = [m.to_json(query.partition_by) for m in matches]
        texts = iter(time_form().texts([t for r in rows for pair in r["situations"].values() for t in pair]))
        for r in rows:
            r["situations"] = {n: [next(texts), next(texts)] for n in r["situations"]}
        return rows

    ts_columns = [f"{n}_{e}" for n in query.streams for e in ("ts", "te")] + ["ts"]
    write_output(fmt, output, records, lambda _fmt: frame(matches, query), "(no matches)", ts_columns)
