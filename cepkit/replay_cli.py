"""`cepkit store`, `cepkit replay-plan` and `cepkit replay`: index-based offline replay (spec/004 §3)."""
from __future__ import annotations

import argparse
import sys
import warnings
from contextlib import contextmanager

from cepkit import options
from cepkit.core.errors import QueryError
from cepkit.run_steps import read_query
from cepkit.summary_line import add_quiet, summary_line

METHODS = ("pareto", "greedy", "optimal", "all", "none")


def register(sub) -> None:
    s = sub.add_parser("store", help="write an event file as a replay store (Parquet blocks + indexes)")
    s.add_argument("events", help="events: .csv, .parquet, .jsonl with an integer ts")
    s.add_argument("store", help="directory to write")
    s.add_argument("--block-size", type=options.positive, default=64, help="events per block (Parquet row group)")
    s.add_argument("--blocks-per-file", type=options.positive, default=16)
    s.add_argument("--index", default="", type=options.names,
                   help="comma-separated attributes to build secondary indexes on")
    s.add_argument("--ts-unit", type=options.ts_unit, help="unit of integer timestamps")
    s.add_argument("--sort", action="store_true", help="sort events by timestamp")
    add_quiet(s)
    s.set_defaults(func=_store, query="")

    for name, helptext, func in (("replay-plan", "show the indexes, replay intervals and blocks a query reads",
                                  _plan),
                                 ("replay", "run a MATCH_RECOGNIZE query over a store by index-based replay",
                                  _replay)):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("query", help="MATCH_RECOGNIZE query file (.sql)")
        p.add_argument("store", help="store directory (see `cepkit store`)")
        p.add_argument("--method", default="pareto", choices=METHODS,
                       help="index selection: Pareto search (default), greedy, optimal (exhaustive), all indexes, "
                            "none (full replay)")
        p.add_argument("--use", type=options.names,
                       help="comma-separated pattern variables whose indexes to use (overrides --method)")
        if name == "replay":
            p.add_argument("--format", default="jsonl", choices=("jsonl", "csv", "table"))
            p.add_argument("--output")
            add_quiet(p)
        p.set_defaults(func=func)

@contextmanager
def warnings_to_stderr():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)

def _store(args: argparse.Namespace) -> int:
    # lazy: start-up: the parser imports every subcommand's module; what this one runs loads when it runs
    from cepkit.core.readers import read_events
    from cepkit.reference.replay.store import write_store

    batch = read_events(args.events, ts_unit=args.ts_unit, sort=args.sort, type_col=None, default_type="event")
    attrs = [a.strip() for a in args.index.split(",") if a.strip()]
    store = write_store(batch, args.store, args.block_size, args.blocks_per_file, attrs)
    summary_line(args, f"{store.events} events in {len(store.blocks)} blocks, {len(store.manifest['files'])} files; "
                       f"secondary indexes: {', '.join(store.indexed()) or 'none'}")
    return 0


def _make_plan(args: argparse.Namespace):
    # lazy: start-up: the parser imports every subcommand's module; what this one runs loads when it runs
    from cepkit.reference.replay.plan import plan
    from cepkit.reference.replay.store import Store

    text = read_query(args.query)
    store = Store(args.store)
    method = [v.strip() for v in args.use.split(",") if v.strip()] if args.use else args.method
    if args.use is not None and not method:
        raise QueryError("--use names no pattern variable")
    return plan(text, store, method)


def describe(p) -> str:
    lines = []
    total = len(p.store.blocks)
    lines.append(f"store: {p.store.events} events in {total} blocks; secondary indexes: "
                 f"{', '.join(p.store.indexed()) or 'none'}")
    if p.kinds:
        lines.append(f"symbols: {' '.join(p.kinds)}  (window {p.window})")
    if p.candidates:
        lines.append("index candidates:")
        for c in p.candidates:
            sel = c.count / max(p.store.events, 1)
            mark = "*" if c in p.chosen else " "
            lines.append(f" {mark} {c.label:8} {c.range_text:30} index on {c.attr}: {c.count} entries "
                         f"(selectivity {sel:.3f})")
    if p.mode == "full":
        lines.append(f"plan: full replay ({p.reason})")
    else:
        lines.append(f"plan: index-based replay with {', '.join(c.label for c in p.chosen)}")
        if p.estimate:
            lines.append(f"estimate: C_PIO {p.estimate[0]:.3g} blocks, C_SIO {p.estimate[1]:.3g} pages, "
                         f"C_query {p.estimate[2]:.3g}")
        shown = ", ".join(f"[{a}, {b}]" for a, b in p.intervals) or "none"
        lines.append(f"replay intervals ({len(p.intervals)}): {shown}")
    lines.append(f"blocks read: {len(p.blocks)} of {total} ({100 * p.fraction:.1f}%)")
    return "\n".join(lines)


def _plan(args: argparse.Namespace) -> int:
    with warnings_to_stderr():
        p = _make_plan(args)
    print(describe(p))
    return 0


def write_table(table, fmt: str, output: str | None) -> None:
    """The replay's rows (a cepkit.reference.sql.run.Table), column by column (cepkit.output.write_rows)."""
    # lazy: start-up: the parser imports every subcommand's module; what this one runs loads when it runs
    from cepkit.output import write_rows
    from cepkit.core.match import plain

    values = {c: [plain(row[k]) for row in table.rows] for k, c in enumerate(table.columns)}
    write_rows(table.columns, values, len(table.rows), fmt, output, "(no rows)")


def _replay(args: argparse.Namespace) -> int:
    # lazy: start-up: the parser imports every subcommand's module; what this one runs loads when it runs
    from cepkit.reference.replay.plan import execute

    with warnings_to_stderr():
        p = _make_plan(args)
        table = execute(p)
    write_table(table, args.format, args.output)
    total = len(p.store.blocks)
    read = len(p.store.blocks_read)
    summary_line(args, f"{len(table.rows)} rows; {p.mode} replay read {read} of {total} blocks")
    return 0
