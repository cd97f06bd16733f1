"""`cepkit spark run QUERY EVENTS_PATH OUT_DIR`: the Spark job (spark_jobs/) from the command line."""
from __future__ import annotations

import argparse
import sys

from cepkit import options
from cepkit.core.errors import require_extra
from cepkit.spark_replay_cli import register_replay
from cepkit.spark_stream_cli import register_stream
from cepkit.spark_lang_cli import add_language_options
from cepkit.spark_jobs.job import UDFS, default_engine
from cepkit.spark_jobs.session import DEFAULT_MASTER
from cepkit.cli import read_query
from cepkit.spark_lang_cli import language_kwargs
from cepkit.spark_jobs.job import run_job
from cepkit.spark_jobs.source import Columns
from cepkit.spark_progress import spark_progress
from cepkit.summary_line import add_quiet, summary_line


def register(sub) -> None:
    """Add the `spark` subcommand to the cepkit parser."""

    spark = sub.add_parser("spark", help="run a query on Spark (cepkit spark run QUERY EVENTS OUT_DIR)")
    actions = spark.add_subparsers(dest="spark_command", required=True)
    r = actions.add_parser("run", help="match a query over Parquet/CSV events with Spark; write the matches "
                                       "as Parquet parts under OUT_DIR")
    r.add_argument("query", help="query file: SASE+, MATCH_RECOGNIZE, TPStream or AFA (docs/spark.md)")
    r.add_argument("events", help="events: a .parquet file or directory, or a .csv file")
    r.add_argument("out_dir", help="output directory for the matches (Parquet), replaced only when the job "
                                   "succeeds")
    r.add_argument("--master", type=options.spark_master,
                   help=f"Spark master URL (default: {DEFAULT_MASTER}: every core, a failed task retried once; "
                        "plain local[*] never retries)")
    r.add_argument("--engine", help=f"engine inside the executors (default: {default_engine()})")
    r.add_argument("--selection", default="all", choices=["all", "non-overlap"])
    r.add_argument("--input-format", choices=["parquet", "csv"], help="default: from the file name")
    r.add_argument("--ts-unit", type=options.ts_unit, help="unit of integer timestamps: ns, us, ms, s, min, h, d")
    r.add_argument("--type-col", default="type", type=options.column,
                   help="column holding the event type (default: type)")
    r.add_argument("--default-type", help="event type for every row when there is no type column")
    r.add_argument("--id-col", default="id", type=options.column, help="column holding the event id (default: id)")
    r.add_argument("--ts-col", default="ts", type=options.column, help="column holding the timestamp (default: ts)")
    r.add_argument("--udf", choices=UDFS,
                   help="task body: pandas (applyInPandas per group) or arrow (mapInArrow over sorted partitions, "
                        "fed batch by batch: memory bounded by a batch; the default, measured faster)")
    r.add_argument("--slice-length", type=options.positive, help="time-slice length in ticks for queries without a key")
    r.add_argument("--partitions", type=options.positive,
                   help="number of Spark partitions (default: from the parallelism)")
    add_language_options(r)
    add_quiet(r)
    r.set_defaults(func=_cmd_spark_run)
    register_replay(actions)
    register_stream(actions)


def _cmd_spark_run(args: argparse.Namespace) -> int:
    require_extra("spark", "cepkit spark")

    text = read_query(args.query)
    with spark_progress("cepkit spark run", not args.quiet):   # a bar per Spark job, on a terminal
        summary = run_job(text, args.events, args.out_dir, engine=args.engine, master=args.master,
                          selection=args.selection.replace("-", "_"),
                          columns=Columns(ts=args.ts_col, id=args.id_col, type=args.type_col,
                                          default_type=args.default_type),
                          ts_unit=args.ts_unit, input_format=args.input_format, udf=args.udf,
                          slice_length=args.slice_length, partitions=args.partitions, **language_kwargs(args))
    for line in summary.recovered:
        print(f"note: {line}", file=sys.stderr)
    summary_line(args, f"{summary.events} events, {summary.matches} matches, engine {summary.engine}, split "
                       f"{summary.plan}; matching {summary.match_seconds:.2f} s ({summary.events_per_second:,.0f} "
                       f"events/s), total {summary.total_seconds:.2f} s; matches in {args.out_dir}")
    return 0
