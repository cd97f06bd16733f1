"""The streaming job: a Structured Streaming query that matches a keyed query over events as they arrive,
keeping each key's pattern state in Spark's state store (`applyInPandasWithState`, cepkit.spark_jobs.stream_state)
with an event-time watermark, and appends the final matches to Parquet files under OUT (the batch job's
rows, cepkit.spark_jobs.tasks.output_schema). Every check on the user's input runs before Spark writes anything."""
from __future__ import annotations

import sys
from collections.abc import Callable

import pyarrow as pa

from cepkit.core import registry
from cepkit.core.errors import EventError, QueryError, require_extra
from cepkit.front.language import parse
from cepkit.spark_jobs import plan as P, source as S
from cepkit.spark_jobs import spark_io as IO, stream_checkpoint as K
from cepkit.spark_jobs import stream_source as R, stream_state as ST
from cepkit.spark_jobs import tasks as T, typed_output as TO
from cepkit.spark_jobs.stream_languages import run_language_stream
from cepkit.spark_jobs.stream_run import StreamSummary, absolute_where, check_types, stream_session, write_and_follow
from cepkit.spark_jobs.job import default_engine as batch_default


def default_engine() -> str:
    """The batch job's default ("optimized" where registered)."""

    return batch_default()


def run_stream(query: str, source: R.StreamSource, out_dir: str, checkpoint: str, *, engine: str | None = None,
               watermark: int | None = None, columns: S.Columns = S.Columns(), ts_unit: str | None = None,
               once: bool = False, partitions: int | None = None, trigger_seconds: float | None = None,
               timeout: float | None = None, until: Callable[[], bool] | None = None, spark=None,
               master: str | None = None, report: Callable[[str], None] | None = None,
               language: str | None = None, key: str | None = None, flavor: str | None = None,
               early: bool = False) -> StreamSummary:
    """Run the streaming query until it is stopped (Ctrl-C, `timeout` seconds, or `until()` true), or with
    `once` until the files (or Kafka offsets) there at the start are processed. `watermark`: the delay in
    ticks (default: the query's window context). `partitions`: the state's partitions (a new checkpoint
    only; default: the session's spark.sql.shuffle.partitions). `report` gets a line per micro-batch
    (default: stderr). `language` (default: detected from the text): MATCH_RECOGNIZE, TPStream (`early`: early output) and AFA
    (`key`, `flavor`) run through cepkit.spark_jobs.stream_languages."""
    if spark is None:
        require_extra("spark", "the streaming job")
    report = report or (lambda line: print(line, file=sys.stderr, flush=True))
    language = registry.language(language).name if language else registry.detect(query)
    if language != "sase" or key is not None or flavor is not None or early:
        return run_language_stream(language, query, source, out_dir, checkpoint, engine=engine,
                                   watermark=watermark, columns=columns, ts_unit=ts_unit, once=once,
                                   partitions=partitions, trigger_seconds=trigger_seconds, timeout=timeout,
                                   until=until, spark=spark, master=master, report=report, key=key,
                                   flavor=flavor, early=early)
    engine = engine or default_engine()
    q = parse(query)
    checked = stream_spec(query, engine, columns, columns.type, True, ts_unit)  # refusals before any Spark work
    keyed, context = P.KeyPlan(checked.task.group_cols), checked.context
    delay = context if watermark is None and context is not None else (watermark or 0)
    if delay < 0:
        raise QueryError("the watermark delay must be zero or positive")
    need = S.needed_columns(q, columns, keyed.keys)
    if source.kafka is None:
        files = R.check_directory(source)
        if source.schema is None and not files:
            raise EventError(f"'{source.path}' holds no file to take the stream's schema from; pass --schema "
                             "(a DDL string such as 'ts long, id long, type string, price double')")
    elif source.schema is None:
        raise EventError("a Kafka stream needs --schema (a DDL string such as 'ts long, id long, type string')")
    options = {"engine": engine, "watermark": delay, "keys": list(keyed.keys), "source": absolute_where(source.describe()),
               "out": absolute_where(out_dir), "ts": columns.ts, "id": columns.id, "type": columns.type,
               "default_type": columns.default_type, "ts_unit": ts_unit,
               "values": TO.STREAM_VALUES}  # a checkpoint of a stream writing its values otherwise is refused
    K.check(checkpoint, out_dir, query, options)

    spark = spark or stream_session(master)
    if source.kafka:
        R.require_kafka(spark)
        fmt, schema = None, R.ddl_schema(spark, source.schema)
    else:
        fmt = R.file_format(source, files)
        schema = R.file_schema(spark, source, fmt, files)
    S.check_columns(source.describe(), schema.fieldNames(), need)
    id_is_int = check_types(schema, columns)
    type_col = columns.type if columns.type is not None and columns.type in schema.fieldNames() else None
    if type_col is None and columns.default_type is None:
        raise EventError(f"the stream has no column '{columns.type}' (the event type); pass --default-type",
                         column=columns.type)
    spec = stream_spec(query, engine, columns, type_col, id_is_int, ts_unit, delay)
    task = spec.task
    out_schema = IO.spark_schema(T.output_schema(task.variables, task.returns, id_is_int, task.values).append(
        pa.field(ST.LATE_COL, pa.int64())))
    K.record(checkpoint, query, options)

    from pyspark.sql import functions as F
    from pyspark.sql.streaming.state import GroupStateTimeout

    events = R.read_stream(spark, source, fmt, schema)
    events = events.withColumn(ST.EVENT_TIME, F.timestamp_millis(F.col(columns.ts).cast("long") + ST.OFFSET))
    matched = (events.withWatermark(ST.EVENT_TIME, f"{delay} milliseconds")
               .groupBy(*keyed.keys)
               .applyInPandasWithState(ST.call_step(spec), out_schema, ST.STATE_SCHEMA, "append",
                                       GroupStateTimeout.EventTimeTimeout))
    summary = StreamSummary(watermark_delay=delay, keys=keyed.keys, engine=engine)
    return write_and_follow(spark, matched, out_dir, checkpoint, summary, report, once=once,
                            trigger_seconds=trigger_seconds, partitions=partitions, timeout=timeout, until=until)


def stream_spec(query: str, engine: str, columns: S.Columns, type_col: str | None, id_is_int: bool,
                ts_unit: str | None = None, delay: int = 0) -> ST.StreamSpec:
    """What each key's step needs (the query is compiled and split by key: QueryError otherwise)."""
    q = parse(query)
    program = registry.get_engine("sase", engine).compile(query)
    keyed = P.choose(q)
    if keyed is None:
        raise QueryError("the streaming job runs queries it can split by key ([attr] with partition_contiguity, "
                         "skip_till_next_match or skip_till_any_match); a stream split by time slices is not "
                         "built yet", q.pattern.pos.line or None, q.pattern.pos.column or None)
    query_types = tuple(sorted({c.event_type for c in q.pattern.components}))
    task = T.TaskSpec(query=query, engine=engine, selection="all", ts_col=columns.ts, id_col=columns.id,
                      type_col=type_col, default_type=columns.default_type, ts_unit=ts_unit,
                      type_names=query_types + (ST.OTHER_TYPE,) if type_col else (columns.default_type,),
                      group_cols=keyed.keys, variables=tuple(program.variables),
                      returns=tuple(r.name for r in q.returns), id_is_int=id_is_int,
                      values=TO.STREAM_VALUES)  # RETURN values as exact JSON text (docs/spark.md "Output": streams)
    context = P.window_in_ts_long(q, ts_unit) if q.window is not None else None
    return ST.StreamSpec(task, context, query_types, delay)
