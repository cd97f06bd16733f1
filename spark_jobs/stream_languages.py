"""The streaming job for MATCH_RECOGNIZE, TPStream and AFA (docs/spark.md "Streaming every language"): the
generic path's split by key (cepkit.spark_jobs.languages), each key's program in Spark's state store
(cepkit.spark_jobs.stream_keyed), the rows of `cepkit spark run` for the language appended under OUT. What the
stream cannot run is refused by name before any Spark work."""
from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from cepkit.core import registry
from cepkit.core.errors import EventError, QueryError
from cepkit.spark_jobs import generic_tasks as G
from cepkit.spark_jobs import languages as L
from cepkit.spark_jobs import source as S
from cepkit.spark_jobs import spark_io as IO
from cepkit.spark_jobs import stream_run as M
from cepkit.spark_jobs import stream_checkpoint as K
from cepkit.spark_jobs import stream_keyed as KS
from cepkit.spark_jobs import stream_source as R
from cepkit.spark_jobs import stream_state as ST
from cepkit.spark_jobs import typed_output as TO
from cepkit.core.match_table import Layout
from cepkit.front.sql.table import output_columns

# engines whose feed returns matches as they complete (the stream's "program" mode needs one)
INCREMENTAL = {("tpstream", "optimized"), ("afa", "optimized"), ("afa", "reference")}


@dataclass(frozen=True)
class StreamPlan:
    """How a query of another language streams: its keys, mode (cepkit.spark_jobs.stream_keyed) and columns."""

    keys: tuple[str, ...]
    mode: str
    ts_col: str | None
    context: int | None = None


def refuse(lang: str, message: str, node=None) -> QueryError:
    pos = getattr(node, "pos", None)
    title = registry.language(lang).title or lang
    return QueryError(f"the streaming job cannot run this {title} query: {message}",
                      (getattr(pos, "line", None) or None), (getattr(pos, "column", None) or None))


def plan_stream(lang: str, q, engine: str, columns: S.Columns, ts_unit: str | None, key: str | None,
                early: bool) -> StreamPlan:
    """The stream's plan, or QueryError naming what it cannot run."""
    if lang not in ("sql", "tpstream", "afa"):
        raise QueryError(f"the streaming job runs SASE+, MATCH_RECOGNIZE, TPStream and AFA queries, not "
                         f"{registry.language(lang).title or lang}", expected=["sase", "sql", "tpstream", "afa"])
    if early and lang != "tpstream":
        raise QueryError("--early is for TPStream queries")
    if key is not None and lang != "afa":
        raise QueryError(f"--key is for AFA files; a {registry.language(lang).title} query is split by its own "
                         "PARTITION BY")
    if lang in ("tpstream", "afa") and (lang, engine) not in INCREMENTAL:
        raise QueryError(f"engine '{engine}' computes {registry.language(lang).title} matches at close only, "
                         "which a stream never reaches; use engine 'optimized'")
    if lang == "afa":
        return StreamPlan(L.plan_afa(key).keys, "arrival", None)
    if lang == "tpstream":
        if not q.partition_by:
            raise refuse(lang, "it has no PARTITION BY (the stream keeps one program per partition); add "
                         "PARTITION BY", q)
        return StreamPlan(tuple(q.partition_by), "program", columns.ts)
    if not q.partition_by:
        raise refuse(lang, "it has no PARTITION BY (the stream keeps the rows of each partition); add PARTITION BY",
                     q)
    if q.within is None:
        raise refuse(lang, "it has no WITHIN, so a match may span the whole partition and none is final before "
                     "the stream ends; add WITHIN (the stream emits a partition's matches once the watermark "
                     "passes its last row by WITHIN)", q)
    if q.order_by[0].descending:
        raise refuse(lang, "the stream orders by the first ORDER BY key ascending, and it is DESC", q.order_by[0])
    found = registry.constructs("sql", q)
    for name in found:
        if name.startswith(("PREV", "NEXT")):
            raise refuse(lang, f"{name} reads rows outside the match, which may lie in rows the stream has "
                         "matched already", found[name])
        if name.startswith("MATCH_NUMBER"):
            raise refuse(lang, f"{name} numbers the matches of the whole partition", found[name])
        if name == "anchors":
            raise refuse(lang, "anchors (^, $) refer to the partition's first and last rows, which a stream "
                         "does not know", found[name])
    return StreamPlan(tuple(c.col for c in q.partition_by), "segment", q.order_by[0].col.col,
                      L.sql_window_ticks(q, ts_unit))


def run_language_stream(lang: str, query: str, source: R.StreamSource, out_dir: str, checkpoint: str, *,
                        engine: str | None, watermark: int | None, columns: S.Columns, ts_unit: str | None,
                        once: bool, partitions: int | None, trigger_seconds: float | None, timeout: float | None,
                        until, spark, master: str | None, report, key: str | None, flavor: str | None,
                        early: bool) -> M.StreamSummary:
    """cepkit.spark_jobs.stream.run_stream for MATCH_RECOGNIZE, TPStream and AFA."""
    if lang == "sase":
        raise QueryError("--key, --flavor and --early are for AFA and TPStream queries")
    q = registry.parse(lang, query)
    engine = engine or L.default_engine(lang, q)
    options = {"mode": "early"} if early else {}
    if flavor is not None:
        if lang != "afa":
            raise QueryError("--flavor is for AFA files")
        options["flavor"] = flavor
    plan = plan_stream(lang, q, engine, columns, ts_unit, key, early)
    program = registry.get_engine(lang, engine).compile(query, **options)  # refusals before any Spark work
    context = _tpstream_context(q, ts_unit) if lang == "tpstream" else plan.context
    delay = watermark if watermark is not None else (context or 0)
    if delay < 0:
        raise QueryError("the watermark delay must be zero or positive")
    ts_col, id_col = plan.ts_col, (None if lang == "afa" else columns.id)
    need = {k: "the key" for k in plan.keys}
    if ts_col is not None:
        need[ts_col] = "the timestamp (--ts-col)"
        need[id_col] = "the event id (the stream orders events by timestamp, then id)"
    if source.kafka is not None:
        raise QueryError(f"the {registry.language(lang).title} stream reads a directory of files (its arrival "
                         "order and schema come from them); Kafka is for SASE+ streams")
    files = R.check_directory(source)
    if source.schema is None and not files:
        raise EventError(f"'{source.path}' holds no file to take the stream's schema from; pass --schema")
    record = {"language": lang, "engine": engine, "watermark": delay, "keys": list(plan.keys),
              "source": M.absolute_where(source.describe()), "out": M.absolute_where(out_dir), "ts": ts_col,
              "id": id_col, "type": columns.type, "default_type": columns.default_type, "ts_unit": ts_unit,
              "options": options, "values": TO.STREAM_VALUES}
    K.check(checkpoint, out_dir, query, record)

    spark = spark or M.stream_session(master)
    fmt = R.file_format(source, files)
    if plan.mode == "arrival" and fmt != "parquet":
        raise QueryError("the AFA stream reads Parquet files: a key's rows are fed in arrival order, and within a "
                         f"file that is Spark's row index, which {fmt} files lack")
    schema = R.file_schema(spark, source, fmt, files)
    S.check_columns(source.describe(), schema.fieldNames(), need)
    id_is_int = True
    if ts_col is not None:
        id_is_int = _check_types(schema, ts_col, id_col)
    type_col = columns.type if lang == "tpstream" and columns.type in schema.fieldNames() else None
    default_type = {"sql": "row", "tpstream": columns.default_type or "event"}.get(lang, columns.default_type)
    layout = program.layout
    if lang == "sql" and q.rows == "all" and q.select is None:  # ALL ROWS PER MATCH, SELECT *: every column

        attrs = [c for c in schema.fieldNames() if c not in (ts_col, id_col)]
        layout = Layout(layout.variables, output_columns(q, [ts_col, "id"] + attrs))
    out_schema = G.output_schema(layout, pa.int64() if id_is_int else pa.string(), key=lang == "afa",
                                 values=TO.STREAM_VALUES)
    spec = G.GenericSpec(lang=lang, engine=engine, query=query, options=tuple(options.items()), ts_col=ts_col,
                         id_col=id_col, type_col=type_col, default_type=default_type, ts_unit=ts_unit,
                         type_names=None, group_cols=plan.keys, schema=out_schema, layout=layout,
                         key_col=key if lang == "afa" else None,
                         values=TO.STREAM_VALUES)  # payload values as exact JSON text (docs/spark.md "Output": streams)
    ks = KS.KeyedSpec(spec, plan.mode, plan.context, delay)
    K.record(checkpoint, query, record)

    from pyspark.sql import functions as F
    from pyspark.sql.streaming.state import GroupStateTimeout

    events = R.read_stream(spark, source, fmt, schema)
    state_out = IO.spark_schema(out_schema.append(pa.field(ST.LATE_COL, pa.int64())))
    if plan.mode == "arrival":
        meta = F.col("_metadata")
        events = events.withColumns({KS.ARRIVAL[0]: meta.getField("file_modification_time").cast("long"),
                                     KS.ARRIVAL[1]: meta.getField("file_path"),
                                     KS.ARRIVAL[2]: meta.getField("row_index"),
                                     G.GROUP_COL: F.col(key).cast("string")})
        grouped = events.groupBy(G.GROUP_COL)
        timeout_kind = GroupStateTimeout.NoTimeout
    else:
        events = events.withColumn(ST.EVENT_TIME, F.timestamp_millis(F.col(ts_col).cast("long") + ST.OFFSET))
        grouped = events.withWatermark(ST.EVENT_TIME, f"{delay} milliseconds").groupBy(*plan.keys)
        timeout_kind = GroupStateTimeout.EventTimeTimeout
    matched = grouped.applyInPandasWithState(KS.call_step(ks), state_out, ST.STATE_SCHEMA, "append", timeout_kind)
    summary = M.StreamSummary(watermark_delay=delay, keys=plan.keys, engine=engine)
    return M.write_and_follow(spark, matched, out_dir, checkpoint, summary, report, once=once,
                              trigger_seconds=trigger_seconds, partitions=partitions, timeout=timeout, until=until)


def _tpstream_context(q, ts_unit: str | None) -> int | None:
    """TPStream's WITHIN in whole timestamp ticks (the default watermark delay)."""
    import math

    return math.ceil(q.within.ticks(ts_unit))


def _check_types(schema, ts_col: str, id_col: str) -> bool:
    """Whether ids are integers; EventError for a timestamp that is not an integer or an id of another type."""
    from pyspark.sql import types as T_

    ints = (T_.LongType, T_.IntegerType, T_.ShortType, T_.ByteType)
    if not isinstance(schema[ts_col].dataType, ints):
        raise EventError(f"the streaming job needs integer timestamps (ticks), but column '{ts_col}' holds "
                         f"{schema[ts_col].dataType.simpleString()}", column=ts_col)
    id_type = schema[id_col].dataType
    if isinstance(id_type, ints):
        return True
    if isinstance(id_type, T_.StringType):
        return False
    raise EventError(f"the streaming job needs integer or text event ids, but column '{id_col}' holds "
                     f"{id_type.simpleString()}", column=id_col)
