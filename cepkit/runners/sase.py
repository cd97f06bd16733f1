"""`cepkit run` for SASE+ queries: compile on the chosen engine, feed the events, write the matches."""
from __future__ import annotations

import argparse

from cepkit import options
from cepkit.run_steps import CHUNK_SIZE
from cepkit.run_steps import read_query


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

def compile_options(args: argparse.Namespace, engine) -> dict:
    """--selection, and --order, --negation, --no-merge for the engines that take them."""
    from cepkit.runner import option_for  # lazy: start-up (this module adds its flags to every parser)

    options = {"selection": args.selection.replace("-", "_")}
    for flag, option in (("--order", "order"), ("--negation", "negation")):
        if getattr(args, option) is not None:
            option_for(flag, option, "sase", engine, args.engine is not None)
            options[option] = getattr(args, option)
    if args.no_merge:
        option_for("--no-merge", "merge", "sase", engine, args.engine is not None)
        options["merge"] = False
    return options


def query(args: argparse.Namespace):
    """The query text, parsed in the dialect --dialect or the file's suffix names (.query: SASE 1.0)."""
    # lazy: start-up: the parser imports this module for its flags; the run's machinery loads when it runs
    from cepkit.front.language import parse
    from cepkit.front.language.dialects import dialect_of_path

    text = read_query(args.query)
    dialect = args.dialect or dialect_of_path(args.query)
    return parse(text, dialect=dialect) if dialect is not None else text


DIALECTS = {"sase1": "SASE 1.0 dialect", "sase+": "SASE+ dialect", "rfid": "SASE RFID dialect"}   # what the summary line says ran (a
# .query file is read in SASE 1.0's dialect: the same text can mean other matches, docs/semantics.md S1)


def summary(args: argparse.Namespace, program, stats) -> str:
    name = getattr(program.query, "dialect", None) or "sase+"
    dialect = DIALECTS.get(name, f"{name} dialect")
    line = (f"{stats.count} matches from {stats.events} events in {stats.elapsed:.2f} s "
            f"(engine {stats.engine}, {program.query.strategy.value}, {dialect}{stats.notes})")
    if args.counters:
        c = program.counters
        order = f", order {' / '.join(','.join(o) for o in program.orders)}" if hasattr(program, "orders") else ""
        line += (f"\ncounters: {c.partial_matches} partial matches, {c.predicate_evaluations} predicate "
                 f"evaluations{order}")
    return line
