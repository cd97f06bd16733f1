"""`cepkit run` for SASE+ queries: compile on the chosen engine, feed the events, write the matches."""
from __future__ import annotations

import argparse
import sys
import time

from cepkit import options
from cepkit.core.errors import QueryError


LAZY_ENGINES = ("reference-lazy", "optimized-lazy")  # the chain NFAs: they take --order and --negation
CHUNK_SIZE = 100_000  # events read and fed at a time by default (docs/semantics.md SD1)


def add_options(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--dialect", choices=("sase+", "sase1"),
                       help="read the query with the SASE+ paper's semantics or SASE 1.0's (default: sase1 for "
                       "a .query file, else sase+; docs/semantics.md S1)")
    group.add_argument("--selection", default="all", choices=("all", "non-overlap"),
                       help="all matches (default) or the non-overlap output format")
    group.add_argument("--order", type=options.names,
                       help="reference-lazy, optimized-lazy: frequency order, rarest first, as event types or "
                       "variables (e.g. C,B,A); default: estimated from the first events")
    group.add_argument("--negation", choices=("post-processing", "first-chance"),
                       help="reference-lazy, optimized-lazy: how negation is checked (default post-processing)")
    group.add_argument("--chunk-size", type=options.count, metavar="N",
                       help=f"read and feed the events N at a time (default {CHUNK_SIZE:,}: memory bounded by "
                       "the window and the chunk, not the file; jsonl and csv output written as matches "
                       "complete); 0 reads the whole input at once (as --whole)")
    group.add_argument("--whole", action="store_true",
                       help="read the whole input at once (--chunk-size 0)")
    group.add_argument("--no-merge", action="store_true",
                       help="optimized: keep equivalent runs apart (merging, spec/000 §6, is on by default)")
    group.add_argument("--counters", action="store_true",
                       help="print the work counters (partial matches created, predicate evaluations)")


def run(args: argparse.Namespace) -> int:
    from cepkit.api import compile as compile_query
    from cepkit.cli import Progress, limit_options, limited, read_query
    from cepkit.output import MatchWriter
    from cepkit.reference.language import parse
    from cepkit.reference.language.dialects import dialect_of_path
    from cepkit.core.readers import read_events

    engine = args.engine or "reference"  # checked against the registry by `cepkit run`
    text = read_query(args.query)
    lazy = {k: v for k, v in (("order", args.order), ("negation", args.negation)) if v is not None}
    if lazy and engine not in LAZY_ENGINES:
        raise QueryError(f"--{next(iter(lazy))} applies to --engine {' or '.join(LAZY_ENGINES)} only, not {engine}")
    if args.no_merge:
        if engine != "optimized":
            raise QueryError(f"--no-merge applies to --engine optimized only, not {engine}")
        lazy["merge"] = False
    chunk, whole = chunking(args, engine)
    dialect = args.dialect or dialect_of_path(args.query)
    query = parse(text, dialect=dialect) if dialect is not None else text
    program = compile_query(query, language="sase", engine=engine, selection=args.selection.replace("-", "_"),
                             **lazy, **limit_options(args))
    started = time.monotonic()
    id_col = None if args.id_col.lower() == "none" else args.id_col
    options = dict(ts_unit=args.ts_unit, type_col=args.type_col, default_type=args.default_type, id_col=id_col)
    if not chunk:
        batches = [read_events(args.events, sort=args.sort, **options)]
        progress = Progress(f"cepkit {engine}", not args.no_progress)
    else:
        from cepkit.core.event_chunks import iter_events

        batches = iter_events(args.events, chunk, **options)
        progress = Progress(f"cepkit {engine}", not args.no_progress, open_ended=True)  # length not known
    progress.watch(program.budget)
    events = 0
    with MatchWriter(args.format, args.output, program) as writer:  # a failed run leaves --output as it was
        for batch in batches:
            progress.offset = events
            writer.write(program.feed(batch, progress), batch)
            events += len(batch)
            if program.budget.stopped:
                break  # --limit: read no further
        writer.write(program.close())
        progress.finish()
        writer.close()
    elapsed = time.monotonic() - started
    limited(args, writer.count)
    notes = "".join(f"; {n}" for n in (whole, writer.held_note(bool(chunk))) if n)
    print(f"{writer.count} matches from {events} events in {elapsed:.2f} s "
          f"(engine {engine}, {program.query.strategy.value}{notes})", file=sys.stderr)
    if args.counters:
        c = program.counters
        order = f", order {' / '.join(','.join(o) for o in program.orders)}" if hasattr(program, "orders") else ""
        print(f"counters: {c.partial_matches} partial matches, {c.predicate_evaluations} predicate "
              f"evaluations{order}", file=sys.stderr)
    return 0


WHOLE_ENGINES = {"brute": "engine brute enumerates the matches over the whole stream at its end"}


def chunking(args: argparse.Namespace, engine: str) -> tuple[int, str | None]:
    """(the events read and fed at a time, 0 for the whole input; why the whole input is read where the
    default was asked for and cannot be kept, for the summary line). docs/semantics.md SD1."""
    if args.whole and args.chunk_size:
        raise QueryError(f"--whole reads the whole input; --chunk-size {args.chunk_size} reads it in chunks: "
                         "give one of them")
    if args.sort and args.chunk_size:
        raise QueryError("--sort needs the whole file: it cannot be combined with --chunk-size")
    if args.whole or args.chunk_size == 0:
        return 0, None
    if args.chunk_size is not None:
        return args.chunk_size, None
    if args.sort:
        return 0, "whole input read: --sort orders every event first"
    if engine in WHOLE_ENGINES:
        return 0, f"whole input read: {WHOLE_ENGINES[engine]}"
    return CHUNK_SIZE, None
