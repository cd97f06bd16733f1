"""`cepkit run QUERY.win EVENTS`: a FILTER or AGGREGATE window query over an event file, through the window
engines; one output row each, as `cepkit window` prints them. A JOIN reads two files: `cepkit window join`."""
from __future__ import annotations

import argparse
import sys
import time

from cepkit.core.errors import QueryError


# docs/semantics.md SD1: why this language reads its events whole
WHOLE = "whole input read: window programs run over the whole stream (Program.run)"


def run(args: argparse.Namespace) -> int:
    from cepkit.cli import limit_options, limited, read_query
    from cepkit.output import write_matches
    from cepkit.core import registry
    engine = args.engine or "reference"  # checked against the registry by `cepkit run`
    text = read_query(args.query)
    options = {"device": args.device} if engine == "gpu" and args.device is not None else {}
    program = registry.get_engine("window", engine).compile(text, **options, **limit_options(args))
    if program.query.operator == "join":
        raise QueryError("a JOIN reads two event files: run it with `cepkit window join LEFT RIGHT --on ...`",
                         program.query.pos.line, program.query.pos.column)
    started = time.monotonic()
    batch = registry.read_input("window", engine, args.events, ts_unit=args.ts_unit, sort=args.sort,
                                type_col=args.type_col, default_type=args.default_type or "event")
    from cepkit.forms import note_input

    note_input(batch)  # datetimes in, ISO 8601 out (--ts-format)
    table = program.run(batch)
    # the RETURN items alone, column by column; an item `ts` (the window's end, or the event's) as a time
    write_matches(table, args.format, args.output, program, payload_only=True, empty="(no rows)")
    limited(args, len(table))
    print(f"{len(table)} rows from {len(batch)} events in {time.monotonic() - started:.2f} s "
          f"(window {program.query.operator}, engine {engine}; {WHOLE})", file=sys.stderr)
    return 0
