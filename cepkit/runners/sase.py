"""`cepkit run` for SASE+ queries: compile on the chosen engine, feed the events, write the matches."""
from __future__ import annotations

import argparse
import sys
import time

from reference.errors import QueryError


def add_options(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--selection", default="all", choices=("all", "non-overlap"),
                       help="all matches (default) or the non-overlap output format")
    group.add_argument("--order", help="reference-lazy: frequency order, rarest first, as event types or "
                       "variables (e.g. C,B,A); default: estimated from the first events")
    group.add_argument("--negation", choices=("post-processing", "first-chance"),
                       help="reference-lazy: how negation is checked (default post-processing)")
    group.add_argument("--counters", action="store_true",
                       help="print the work counters (partial matches created, predicate evaluations)")


def run(args: argparse.Namespace) -> int:
    from cepkit.api import compile as compile_query
    from cepkit.cli import Progress, read_query
    from cepkit.engines import ENGINES
    from cepkit.output import write_matches
    from reference.events import read_events

    engine = args.engine or "reference"
    if engine not in ENGINES:
        raise QueryError(f"engine '{engine}' cannot run SASE+ queries", expected=sorted(ENGINES))
    text = read_query(args.query)
    lazy = {k: v for k, v in (("order", args.order), ("negation", args.negation)) if v is not None}
    if lazy and engine != "reference-lazy":
        raise QueryError(f"--{next(iter(lazy))} applies to --engine reference-lazy only, not {engine}")
    program = compile_query(text, engine=engine, selection=args.selection.replace("-", "_"), **lazy)
    started = time.monotonic()
    id_col = None if args.id_col.lower() == "none" else args.id_col
    batch = read_events(args.events, ts_unit=args.ts_unit, sort=args.sort, type_col=args.type_col,
                        default_type=args.default_type, id_col=id_col)
    progress = Progress(f"cepkit {engine}", not args.no_progress)
    matches = program.feed(batch, progress)
    matches += program.close()
    progress.finish()
    elapsed = time.monotonic() - started
    write_matches(matches, args.format, args.output, program)
    print(f"{len(matches)} matches from {len(batch)} events in {elapsed:.2f} s "
          f"(engine {engine}, {program.query.strategy.value})", file=sys.stderr)
    if args.counters:
        c = program.counters
        order = f", order {' / '.join(','.join(o) for o in program.orders)}" if hasattr(program, "orders") else ""
        print(f"counters: {c.partial_matches} partial matches, {c.predicate_evaluations} predicate "
              f"evaluations{order}", file=sys.stderr)
    return 0
