"""`cepkit spark stream QUERY SOURCE OUT --checkpoint DIR`: the streaming job (spark_jobs/stream.py)."""
from __future__ import annotations

import argparse
import sys

from cepkit import options
from cepkit.core.errors import require_extra
from cepkit.spark_lang_cli import add_language_options
from cepkit.spark_jobs.session import DEFAULT_MASTER
from cepkit.core.errors import QueryError
from cepkit.cli import read_query
from cepkit.spark_lang_cli import language_kwargs
from cepkit.spark_jobs.source import Columns
from cepkit.summary_line import add_quiet, summary_line


def register_stream(actions) -> None:
    """Add `stream` to the `cepkit spark` subcommands."""

    s = actions.add_parser("stream", help="match a keyed query over events as they arrive (Structured Streaming); "
                                          "append the final matches as Parquet under OUT")
    s.add_argument("query", help="query file split by key: SASE+ ([attr] with s2, s3 or s4), MATCH_RECOGNIZE or "
                                 "TPStream with PARTITION BY, AFA with --key")
    s.add_argument("source", nargs="?", help="a directory that Parquet or JSON-lines event files land in "
                                             "(not with --kafka)")
    s.add_argument("out_dir", help="output directory: Parquet parts appended as matches become final")
    s.add_argument("--checkpoint", required=True, help="Spark's checkpoint directory (the stream's offsets and "
                                                       "per-key state); a restart with it goes on where it stopped")
    s.add_argument("--watermark", type=int, metavar="TICKS",
                   help="event-time watermark delay in timestamp ticks: events may arrive this much behind the "
                        "largest timestamp seen; later ones are dropped and counted (default: the query's window)")
    s.add_argument("--once", action="store_true", help="process the files (or Kafka offsets) there now, then stop")
    s.add_argument("--trigger-seconds", type=float, help="start a micro-batch every N seconds (default: as soon "
                                                         "as the previous one ends)")
    s.add_argument("--max-files-per-trigger", type=options.positive, help="at most N new files a micro-batch")
    s.add_argument("--input-format", choices=["parquet", "json"], help="default: from the files' names")
    s.add_argument("--schema", help="the events' schema as DDL ('ts long, id long, type string, price double'); "
                                    "default: the first file's")
    s.add_argument("--kafka", metavar="BOOTSTRAP", help="read JSON events from Kafka at these bootstrap servers "
                                                        "(needs Spark's Kafka connector)")
    s.add_argument("--topic", help="the Kafka topic (with --kafka)")
    s.add_argument("--engine", help="engine inside the executors (default: as cepkit spark run)")
    s.add_argument("--master", type=options.spark_master, help=f"Spark master URL (default: {DEFAULT_MASTER})")
    s.add_argument("--partitions", type=options.positive, help="state partitions (a new checkpoint only)")
    s.add_argument("--ts-unit", type=options.ts_unit, help="unit of the integer timestamps: ns, us, ms, s, min, h, d")
    s.add_argument("--type-col", default="type", type=options.column, help="column holding the event type")
    s.add_argument("--default-type", help="event type for every row when there is no type column")
    s.add_argument("--id-col", default="id", type=options.column, help="column holding the event id")
    s.add_argument("--ts-col", default="ts", type=options.column, help="column holding the timestamp")
    s.add_argument("--early", action="store_true", help="TPStream: early output (configurations as soon as known)")
    add_language_options(s)
    add_quiet(s)
    s.set_defaults(func=_cmd_spark_stream)


def _cmd_spark_stream(args: argparse.Namespace) -> int:
    require_extra("spark", "cepkit spark stream")
    # lazy: start-up: the parser imports every subcommand's module; what this one runs loads when it runs
    from cepkit.spark_jobs.stream import run_stream
    from cepkit.spark_jobs.stream_source import StreamSource

    if (args.kafka is None) == (args.source is None):
        raise QueryError("give either a SOURCE directory or --kafka BOOTSTRAP --topic TOPIC")
    if args.kafka is not None and not args.topic:
        raise QueryError("--kafka needs --topic")
    args.events = args.source or f"kafka {args.kafka}"
    text = read_query(args.query)
    source = StreamSource(path=args.source, fmt=args.input_format, kafka=args.kafka, topic=args.topic,
                          schema=args.schema, max_files_per_trigger=args.max_files_per_trigger)
    try:
        summary = run_stream(text, source, args.out_dir, args.checkpoint, engine=args.engine,
                             watermark=args.watermark,
                             columns=Columns(ts=args.ts_col, id=args.id_col, type=args.type_col,
                                             default_type=args.default_type),
                             ts_unit=args.ts_unit, once=args.once, trigger_seconds=args.trigger_seconds,
                             partitions=args.partitions, master=args.master, early=args.early,
                             report=(lambda line: None) if args.quiet else None, **language_kwargs(args))
    except KeyboardInterrupt:
        print("stopped; start again with the same --checkpoint to go on", file=sys.stderr)
        return 130
    summary_line(args, f"{summary.line()}; matches in {args.out_dir}")
    return 0
