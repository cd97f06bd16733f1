"""The streaming job: a Structured Streaming query that matches a keyed query over events as they arrive,
keeping each key's pattern state in Spark's state store (`applyInPandasWithState`, cepkit.spark_jobs.stream_state)
with an event-time watermark, and appends the final matches to Parquet files under OUT (the batch job's
rows, cepkit.spark_jobs.tasks.output_schema). Every check on the user's input runs before Spark writes anything."""
from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import pyarrow as pa

from cepkit.core import registry
from cepkit.core.errors import CepkitError, EventError, QueryError, require_extra
from cepkit.reference.language import parse
from cepkit.spark_jobs import plan as P
from cepkit.spark_jobs import source as S
from cepkit.spark_jobs import spark_io as IO
from cepkit.spark_jobs import stream_checkpoint as K
from cepkit.spark_jobs import stream_source as R
from cepkit.spark_jobs import stream_state as ST
from cepkit.spark_jobs import tasks as T

MATCHES_METRIC = "cepkit_matches"


@dataclass(frozen=True)
class BatchProgress:
    """One micro-batch, from Spark's query progress."""

    batch: int
    rows_in: int
    matches_out: int
    late_dropped: int
    latency_ms: int          # the micro-batch's trigger execution: read, match, write, commit
    watermark: str

    def line(self) -> str:
        return (f"batch {self.batch}: {self.rows_in} rows in, {self.matches_out} matches out, "
                f"{self.late_dropped} late rows dropped, {self.latency_ms} ms, watermark {self.watermark}")


@dataclass
class StreamSummary:
    """What a streaming run did (this run only; earlier runs on the same checkpoint are not counted)."""

    batches: list[BatchProgress] = field(default_factory=list)
    watermark_delay: int = 0
    keys: tuple[str, ...] = ()
    engine: str = ""

    @property
    def rows_in(self) -> int:
        return sum(b.rows_in for b in self.batches)

    @property
    def matches(self) -> int:
        return sum(b.matches_out for b in self.batches)

    @property
    def late_dropped(self) -> int:
        return sum(b.late_dropped for b in self.batches)

    def line(self) -> str:
        late = (f"{self.late_dropped} late rows DROPPED (at or below the watermark, delay {self.watermark_delay} "
                "ticks)" if self.late_dropped else f"no late rows (watermark delay {self.watermark_delay} ticks)")
        return (f"{len(self.batches)} micro-batches, {self.rows_in} rows in, {self.matches} matches out, {late}; "
                f"engine {self.engine}, by key [{', '.join(self.keys)}]")


def default_engine() -> str:
    """The batch job's default ("optimized" where registered)."""
    from cepkit.spark_jobs.job import default_engine as batch_default

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
        from cepkit.spark_jobs.stream_languages import run_language_stream

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
               "default_type": columns.default_type, "ts_unit": ts_unit}
    K.check(checkpoint, out_dir, query, options)

    spark = spark or stream_session(master)
    if source.kafka:
        R.require_kafka(spark)
        fmt, schema = None, R.ddl_schema(spark, source.schema)
    else:
        fmt = R.file_format(source, files)
        schema = R.file_schema(spark, source, fmt, files)
    S.check_columns(source.describe(), schema.fieldNames(), need)
    id_is_int = _check_types(schema, columns)
    type_col = columns.type if columns.type is not None and columns.type in schema.fieldNames() else None
    if type_col is None and columns.default_type is None:
        raise EventError(f"the stream has no column '{columns.type}' (the event type); pass --default-type",
                         column=columns.type)
    spec = stream_spec(query, engine, columns, type_col, id_is_int, ts_unit, delay)
    task = spec.task
    out_schema = IO.spark_schema(T.output_schema(task.variables, task.returns, id_is_int).append(
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


def write_and_follow(spark, matched, out_dir: str, checkpoint: str, summary: StreamSummary, report, *,
                     once: bool, trigger_seconds: float | None, partitions: int | None, timeout: float | None,
                     until) -> StreamSummary:
    """Append the matched rows (LATE_COL: the late rows' count rows) as Parquet under `out_dir` and follow
    the query until it ends (run_stream's options)."""
    from pyspark.sql import functions as F

    late = F.col(ST.LATE_COL)
    matched = (matched.observe(MATCHES_METRIC, F.count(F.when(late.isNull(), 1)).alias("matches"),
                               F.sum(late).alias("late"))
               .where(late.isNull()).drop(ST.LATE_COL))
    writer = (matched.writeStream.format("parquet").option("path", out_dir)
              .option("checkpointLocation", checkpoint).outputMode("append"))
    if once:
        writer = writer.trigger(availableNow=True)
    elif trigger_seconds:
        writer = writer.trigger(processingTime=f"{trigger_seconds} seconds")
    before = spark.conf.get("spark.sql.shuffle.partitions")
    if partitions:  # fixed by the checkpoint's first run (Spark keeps it in the checkpoint's metadata)
        spark.conf.set("spark.sql.shuffle.partitions", str(partitions))
    try:
        running = writer.start()
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", before)
    try:
        follow_query(running, summary, report, timeout, until)
    finally:
        if running.isActive:
            running.stop()
    collect_progress(running, summary, report)
    if summary.late_dropped:
        report(f"warning: {summary.late_dropped} late rows were dropped: their timestamps were at or below the "
               f"watermark (the largest timestamp seen minus {summary.watermark_delay} ticks); raise --watermark to keep them")
    return summary


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
                      returns=tuple(r.name for r in q.returns), id_is_int=id_is_int)
    context = P.window_in_ts_long(q, ts_unit) if q.window is not None else None
    return ST.StreamSpec(task, context, query_types, delay)


def follow_query(running, summary: StreamSummary, report, timeout: float | None, until) -> None:
    """Report each micro-batch's progress until the query ends (or `timeout` seconds pass, or `until()`)."""
    start = time.monotonic()
    while running.isActive:
        try:
            running.awaitTermination(0.2)
        except Exception:  # noqa: BLE001 (the query failed: running.exception() below has it)
            break
        collect_progress(running, summary, report)
        if (timeout is not None and time.monotonic() - start > timeout) or (until is not None and until()):
            break
    failure = running.exception()
    if failure is not None:
        raise stream_failure(_chain(failure)) from None


def _chain(exc: BaseException) -> str:
    """The text of a Spark exception and of its causes (pyspark keeps the JVM cause as `_cause`)."""
    texts = []
    while exc is not None and len(texts) < 8:
        texts.append(str(exc))
        exc = getattr(exc, "_cause", None) or exc.__cause__
    return "\n".join(texts)


_FILE = re.compile(r"while reading file (\S+?)\.?\s")
_CAUSES = re.compile(r"\[(CANNOT_PARSE_JSON_FIELD|MALFORMED_RECORD_IN_PARSING[.\w]*|PARQUET_COLUMN_DATA_TYPE_MISMATCH|"
                     r"FAILED_READ_FILE.PARQUET_COLUMN_DATA_TYPE_MISMATCH)\] (.*?)(?: SQLSTATE|\n|$)")


def stream_failure(text: str) -> CepkitError:
    """The cepkit error for a failed micro-batch (it committed nothing): a task's own error, a file that does
    not fit the stream's schema (EventError naming it), or Spark's first line."""
    found = T.unwrap_error(text)
    if found is not None:
        return found
    causes = _CAUSES.findall(text)
    where = _FILE.search(text)
    if causes or where:
        name = f"'{where.group(1)}'" if where else "a file"
        why = f" ({causes[-1][1].strip()})" if causes else ""
        return EventError(f"the stream's schema changes: {name} does not fit it{why}; the micro-batch that read "
                          "it committed nothing")
    first = (text.strip().splitlines() or ["(no message)"])[0]
    return CepkitError(f"the streaming query failed: {first[:500]}")


def collect_progress(running, summary: StreamSummary, report) -> None:
    seen = {b.batch for b in summary.batches}
    for p in running.recentProgress:
        if p.batchId in seen:
            continue
        ops = p.stateOperators or []
        b = BatchProgress(batch=p.batchId, rows_in=p.numInputRows,
                          matches_out=_observed(p, MATCHES_METRIC, "matches"),
                          late_dropped=_observed(p, MATCHES_METRIC, "late") +
                          sum(int(o.numRowsDroppedByWatermark) for o in ops),
                          latency_ms=int(p.durationMs.get("triggerExecution", 0)),
                          watermark=_ticks((p.eventTime or {}).get("watermark")))
        summary.batches.append(b)
        seen.add(b.batch)
        report(b.line())


def absolute_where(path: str) -> str:
    """A local path made absolute (the checkpoint records where the stream reads and writes)."""
    return os.path.abspath(S.local_path(path)) if S.is_local(path) and not path.startswith("kafka ") else path


def _observed(progress, name: str, field: str) -> int:
    row = (progress.observedMetrics or {}).get(name)
    return int(row[field]) if row is not None and row[field] is not None else 0


def _ticks(iso: str | None) -> str:
    """Spark's watermark (an ISO time of ts + OFFSET milliseconds) in ticks; "-" before the first one."""
    from datetime import UTC, datetime

    if not iso:
        return "-"
    at = datetime.fromisoformat(iso)
    ms = round((at - datetime(1970, 1, 1, tzinfo=UTC)).total_seconds() * 1000)
    return "-" if ms <= 0 else str(ms - ST.OFFSET)


def _check_types(schema, columns: S.Columns) -> bool:
    """Whether ids are integers; EventError for a timestamp that is not an integer or an id of another type."""
    from pyspark.sql import types as ST_

    ints = (ST_.LongType, ST_.IntegerType, ST_.ShortType, ST_.ByteType)
    ts_type = schema[columns.ts].dataType
    if not isinstance(ts_type, ints):
        raise EventError(f"the streaming job needs integer timestamps (ticks), but column '{columns.ts}' holds "
                         f"{ts_type.simpleString()}", column=columns.ts)
    id_type = schema[columns.id].dataType
    if isinstance(id_type, ints):
        return True
    if isinstance(id_type, ST_.StringType):
        return False
    raise EventError(f"the streaming job needs integer or text event ids, but column '{columns.id}' holds "
                     f"{id_type.simpleString()}", column=columns.id)


def stream_session(master: str | None):
    from cepkit.spark_jobs.session import get_session

    return get_session(master, **{"spark.sql.shuffle.partitions": "8"})
