"""The streaming job's machinery every language shares: its summary and per-batch progress, writing and
following the running query, turning a failed query into a clear error, and the SparkSession."""
from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field


from cepkit.core.errors import CepkitError, EventError
from cepkit.spark_jobs import source as S, stream_state as ST
from cepkit.spark_jobs import tasks as T
from cepkit.spark_jobs.session import get_session

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


def check_types(schema, columns: S.Columns) -> bool:
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

    return get_session(master, **{"spark.sql.shuffle.partitions": "8"})
