"""`cepkit spark index EVENTS` and `cepkit spark replay QUERY EVENTS OUT`: the thesis' index-based offline
replay (spec/004 §3) on Spark. The replay intervals are planned on the driver by cepkit.reference.replay's planner
over the side table (cepkit.spark_jobs.index_table); the tasks read only the row groups the intervals touch."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from cepkit import options
from cepkit.core import registry
from cepkit.core.errors import QueryError, require_extra
from cepkit.spark_jobs.session import DEFAULT_MASTER
from cepkit.spark_jobs.session import get_session
from cepkit.cli import read_query
from cepkit.replay_cli import describe, warnings_to_stderr
from cepkit.spark_progress import spark_progress
from cepkit.summary_line import add_quiet, summary_line

METHODS = ("pareto", "greedy", "optimal", "all", "none")
CONF = {"spark.sql.execution.arrow.maxRecordsPerBatch": "100000"}


def default_engine() -> str:
    """The engine inside the tasks: "optimized" where it is registered for SQL, else "reference"."""
    return "optimized" if "optimized" in registry.engines_for("sql") else "reference"


def register_replay(actions) -> None:
    """Add `index` and `replay` to the `cepkit spark` subcommands."""

    i = actions.add_parser("index", help="build the replay side table (lightweight per-block index and secondary "
                                         "indexes) of a directory of Parquet events")
    i.add_argument("events", help="directory of Parquet files (in timestamp order: files by name, row groups, "
                                  "rows); a reference store (`cepkit store`) too")
    i.add_argument("--index", default="", type=options.names,
                   help="comma-separated attributes to build secondary indexes on")
    i.add_argument("--ts-unit", type=options.ts_unit,
                   help="unit of the integer timestamps (default: a reference store's, else none)")
    i.add_argument("--master", type=options.spark_master, help=f"Spark master URL (default: {DEFAULT_MASTER})")
    add_quiet(i)
    i.set_defaults(func=_cmd_index)

    r = actions.add_parser("replay", help="run an ALL MATCHES MATCH_RECOGNIZE query over indexed Parquet events, "
                                          "reading only the row groups its replay intervals touch")
    r.add_argument("query", help="MATCH_RECOGNIZE query file (.sql)")
    r.add_argument("events", help="directory indexed by `cepkit spark index`")
    r.add_argument("out_dir", help="output directory for the matches (Parquet), replaced only when the job succeeds")
    r.add_argument("--method", default="pareto", choices=METHODS,
                   help="index selection (as `cepkit replay`); none: a full scan of every row group")
    r.add_argument("--use", type=options.names, help="comma-separated pattern variables whose indexes to use")
    r.add_argument("--engine", help=f"SQL engine inside the tasks (default: {default_engine()})")
    r.add_argument("--explain", action="store_true", help="print the plan (indexes, intervals, blocks) first")
    r.add_argument("--master", type=options.spark_master, help=f"Spark master URL (default: {DEFAULT_MASTER})")
    add_quiet(r)
    r.set_defaults(func=_cmd_replay)


def session(master: str | None):
    return get_session(master, **CONF)


def spark_index(events: str, secondary: Sequence[str] = (), ts_unit: str | None = None, spark=None):
    """Build the side table of `events` (cepkit.spark_jobs.index_build.build_index)."""
    # lazy: start-up: the parser imports every subcommand's module; what this one runs loads when it runs
    from cepkit.spark_jobs.index_build import build_index
    from cepkit.spark_jobs.index_files import data_files

    data_files(events)   # a missing directory is an error before Spark starts
    return build_index(spark or session(None), events, tuple(secondary), ts_unit)


def plan_replay(text: str, events: str, method: str | Sequence[str] = "pareto"):
    """cepkit.reference.replay's plan over the side table of `events` (StaleIndex when it no longer fits the data);
    QueryError for a query the index-based replay cannot plan."""
    # lazy: start-up: the parser imports every subcommand's module; what this one runs loads when it runs
    from cepkit.reference.replay.plan import plan
    from cepkit.spark_jobs.index_table import IndexedEvents

    p = plan(text, IndexedEvents(events), method)
    if not p.kinds:   # the planner's model: ALL MATCHES, ORDER BY ts, WITHIN, no PARTITION BY
        raise QueryError(f"spark replay cannot run this query: {p.reason}; `cepkit spark run` runs it",
                         p.query.pos.line, p.query.pos.column)
    return p


def spark_replay(text: str, events: str, out_dir: str, method: str | Sequence[str] = "pareto",
                 engine: str | None = None, spark=None):
    """Plan and run the replay; (ReplaySummary, the plan)."""
    p = plan_replay(text, events, method)
    return replay_plan(p, text, out_dir, engine, spark), p


def replay_plan(p, text: str, out_dir: str, engine: str | None = None, spark=None, master: str | None = None):
    """Run a plan of `plan_replay` on Spark (the job's refusals first, before Spark starts)."""
    # lazy: start-up: the parser imports every subcommand's module; what this one runs loads when it runs
    from cepkit.spark_jobs.replay_job import prepare, run_replay

    engine = engine or default_engine()
    prepare(text, p.store, engine)
    intervals = p.intervals if p.mode == "index" else None
    return run_replay(spark or session(master), text, p.store, out_dir, intervals, p.window, engine)


def _cmd_index(args: argparse.Namespace) -> int:
    require_extra("spark", "cepkit spark index")
    # lazy: start-up: the parser imports every subcommand's module; what this one runs loads when it runs
    from cepkit.spark_jobs.index_files import data_files

    attrs = [a.strip() for a in args.index.split(",") if a.strip()]
    data_files(args.events)   # a missing directory is an error before Spark starts
    with spark_progress("cepkit spark index", not args.quiet):   # a bar per Spark job, on a terminal
        built = spark_index(args.events, attrs, args.ts_unit, session(args.master))
    summary_line(args, f"indexed {built.events} events in {built.blocks} blocks of {built.files} files; timestamps "
                       f"{'strictly increasing' if built.strict_ts else 'non-decreasing'}; secondary indexes: "
                       f"{', '.join(built.secondary) or 'none'}")
    return 0


def _cmd_replay(args: argparse.Namespace) -> int:
    require_extra("spark", "cepkit spark replay")

    text = read_query(args.query)
    method = [v.strip() for v in args.use.split(",") if v.strip()] if args.use else args.method
    if args.use is not None and not method:
        raise QueryError("--use names no pattern variable")
    with warnings_to_stderr():
        p = plan_replay(text, args.events, method)
    if args.explain:
        print(describe(p), file=sys.stderr)
    with spark_progress("cepkit spark replay", not args.quiet):   # a bar per Spark job, on a terminal
        summary = replay_plan(p, text, args.out_dir, args.engine, master=args.master)
    share = 100 * summary.blocks_read / max(summary.blocks_total, 1)
    summary_line(args, f"{summary.matches} matches; {summary.mode} read {summary.blocks_read} of "
                       f"{summary.blocks_total} blocks ({share:.1f}%) in {summary.units} units; "
                       f"{summary.seconds:.2f} s; matches in {args.out_dir}")
    return 0
