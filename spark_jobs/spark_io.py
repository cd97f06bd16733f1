"""What every Spark job of cepkit shares on the driver: Spark's malformed-CSV failure as an EventError, the
form of CSV text columns over the whole file, the Spark group of a key read as text, the atomic write of the
output, and Arrow schemas as Spark's."""
from __future__ import annotations

import os
import time

from cepkit.core.errors import EventError
from cepkit.core.numbers_text import NULL_WORDS
from cepkit.spark_jobs import commit as C
from cepkit.spark_jobs import source as S
from cepkit.spark_jobs import tasks as T
from cepkit.spark_jobs import output_form as OF
from cepkit.spark_jobs import typed_output as TO
from cepkit.spark_jobs.failures import spark_failure


def first_action(events: str, action):
    """action(), with Spark's failure on a malformed CSV row as an EventError."""
    try:
        return action()
    except Exception as exc:
        found = S.malformed_csv(events, exc)
        if found is not None:
            raise found from None
        raise spark_failure(exc) from None


def text_forms(events: str, df, used: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """The form each CSV text column the query reads has over the whole file (tasks.combine_forms)."""
    rows = first_action(events, lambda: df.select(*used).mapInArrow(T.call(T.chunk_forms, used), T.FORM_SCHEMA)
                         .collect())
    return tuple((c, T.combine_forms((r["form"], r["nulls"], r["big"]) for r in rows if r["col"] == c))
                 for c in used)


def key_group(col: str):
    """The Spark group of a key column read as CSV text: a coarsening of the engine's equality on whatever
    form `text_column` gives the column (cells with the same value share a group; different values may too).
    Null words are null, whitespace is dropped, numbers are grouped by their nearest double (+0.0 makes -0
    and 0 one group), other text by its lower case."""
    from pyspark.sql import functions as F

    squeezed = F.regexp_replace(F.col(f"`{col}`"), r"(?U)[\s\x1c-\x1f]", "")
    lowered = F.lower(squeezed)
    number = squeezed.try_cast("double") + F.lit(0.0)
    return (F.when(squeezed.isNull() | lowered.isin(*sorted({w.lower() for w in NULL_WORDS})), F.lit(None))
            .otherwise(F.coalesce(number.cast("string"), lowered)))


def type_code(col: str, raw: tuple[str, ...], type_names: tuple[str, ...]):
    """1 + the index in `type_names` of each row's type name (tasks.TaskSpec.type_coded): the column's text
    looked up among `raw`, the texts it holds, each standing for its name (the text stripped, the readers'
    rule); an int shuffled and sent to the tasks in place of the text."""
    from pyspark.sql import functions as F

    codes = F.array(*[F.lit(1 + type_names.index(t.strip())) for t in raw])
    at = F.array_position(F.array(*[F.lit(t) for t in raw]), F.col(f"`{col}`").cast("string"))
    return F.element_at(codes, at.cast("int")).cast("int")


def _unwrapped(action, what: str = "the Spark job"):
    """action(), with a task's cepkit error (wrapped in Spark's exception text) raised as itself, and any other
    failure as failures.spark_failure's one line about `what`."""
    try:
        return action()
    except Exception as exc:
        found = T.unwrap_error(str(exc))
        if found is not None:
            raise found from None
        raise spark_failure(exc, what) from None


def typed(out, values: tuple[str, ...], gathered):
    """The match rows `out` (value columns in `values` as typed_output.VALUE structs) with each value column in
    the type and the values `cepkit run --format parquet` gives it over the whole answer
    (cepkit.spark_jobs.typed_output): the rows are kept (persisted), their count running the tasks that add
    each column's witnesses to the accumulator `gathered` (task_witnesses), the driver fixes the schema, and a
    projection types the kept rows (Spark's expressions where typed_output.column_plan has one for every
    column, else a map of typed_output.typed_rows)."""
    from pyspark import StorageLevel
    from pyspark.sql.pandas.types import to_arrow_schema

    if not values:
        return out, None
    names = out.columns  # a later mapInArrow resolves its input by name: no dotted names (`payload.ts`) there
    safe = [f"c{i}" for i in range(len(names))]
    cols = tuple(safe[names.index(v)] for v in values)
    kept = _persisted(out.toDF(*safe), StorageLevel.MEMORY_AND_DISK)
    _unwrapped(lambda: kept.count())
    by_name = gathered.value
    found = {c: by_name.get(v, []) for c, v in zip(cols, values)}
    schema = TO.typed_schema(to_arrow_schema(kept.schema), cols, found)
    plans = {c: TO.column_plan(found[c], schema.field(c).type) for c in cols}
    if all(p is not None for p in plans.values()):
        return kept.select(*[_typed_column(c, plans[c]) if c in cols else c for c in safe]).toDF(*names), kept

    def body(batches):
        return TO.typed_rows(cols, found, schema, batches)

    return kept.mapInArrow(body, spark_schema(schema)).toDF(*names), kept


def _typed_column(c: str, plan: str):
    """Spark's expression for a VALUE column typed as typed_output.column_plan says (its Arrow kernels'
    values: NaN is null, each division one of two exact doubles)."""
    from pyspark.sql import functions as F

    i, d, f = (F.col(c).getField(k) for k in ("i", "d", "f"))
    if plan == "nulls":
        return F.lit(None).cast("string").alias(c)
    if plan in ("b", "s", "i"):
        return F.col(c).getField(plan).alias(c)
    value = {"f": f, "i+f": F.coalesce(i.cast("double"), f),
             "i/d": i.cast("double") / F.coalesce(d, F.lit(1)).cast("double")}[plan]
    return F.when(F.isnan(value), F.lit(None).cast("double")).otherwise(value).alias(c)


CACHED_PARTITIONING = "spark.sql.optimizer.canChangeCachedPlanOutputPartitioning"


def _persisted(df, level):
    """df.persist(level), its plan still adaptive (Spark caches a plan with adaptive partition coalescing off
    unless CACHED_PARTITIONING is on when it is cached): the matching stage keeps the partitions it has
    uncached (applyInPandas' small groups coalesced into few tasks, so few output files); the session's
    setting is restored."""
    conf = df.sparkSession.conf
    before = conf.get(CACHED_PARTITIONING, None)
    conf.set(CACHED_PARTITIONING, "true")
    try:
        return df.persist(level)
    finally:
        if before is None:
            conf.unset(CACHED_PARTITIONING)
        else:
            conf.set(CACHED_PARTITIONING, before)


def write_matches(out, out_dir: str, stamps: list[float] | None = None, values: tuple[str, ...] = (),
                  form: OF.OutputForm = OF.OutputForm(), *, gathered) -> int:
    """Write the matches to `out_dir` and return their number, each value column in `values` typed as
    `cepkit run --format parquet` types it (`typed`), in the columns of `form` (output_form: those `cepkit run
    --format parquet` writes), its times as timestamps (`as_timestamps`). `out_dir` is replaced atomically
    (cepkit.spark_jobs.commit: a staging directory, then a swap); a failure or interrupt leaves it as it was.
    `stamps` gets the time the matching stage ended (before the count and the swap). `gathered`: the
    accumulator the tasks of `out` add `values`' witnesses to (task_witnesses)."""
    out, kept = typed(out, tuple(values), gathered)
    try:
        return _write(as_timestamps(OF.project(out, form), form.times), out_dir, stamps)
    finally:
        if kept is not None:
            kept.unpersist()


def as_timestamps(out, cols: tuple[str, ...]):
    """`out` with each column in `cols` (integer nanoseconds since the epoch, whole microseconds: Spark reads
    datetimes in microseconds) as Spark's timestamp, which its Parquet writer stores as INT96: read back as
    timestamp[ns], the type `cepkit run --format parquet` writes for a datetime input's `ts`."""
    from pyspark.sql import functions as F

    return out.withColumns({c: F.timestamp_micros(F.expr(f"`{c}` div 1000")) for c in cols}) if cols else out


def _write(out, out_dir: str, stamps: list[float] | None) -> int:
    if S.is_local(out_dir):
        fs, target = C.LocalFS(), S.local_path(out_dir)
    else:
        fs, target = C.HadoopFS(out.sparkSession), out_dir
    staging = C.stage(target, fs)
    try:
        _unwrapped(lambda: out.write.mode("append").parquet(staging),  # staging holds only the marker
                   f"the Spark job writing {out_dir}")
        if stamps is not None:
            stamps.append(time.perf_counter())
        matches = _rows_written(staging, out.sparkSession, S.is_local(out_dir))
        C.swap(staging, target, fs)
    except BaseException:
        C.discard(staging, fs)
        raise
    return matches


def _rows_written(staging: str, spark, local: bool) -> int:
    """The rows of the Parquet parts in `staging`: their footers where it is a local folder (no Spark job), else
    Spark's count."""
    if not local:
        return spark.read.parquet(staging).count()
    import pyarrow.parquet as pq

    return sum(pq.ParquetFile(os.path.join(staging, name)).metadata.num_rows for name in sorted(os.listdir(staging))
               if not name.startswith(("_", ".")))


def spark_schema(schema):
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(schema)


def tick_expr(df, ts_col: str):
    """The timestamp as whole ticks (Spark microseconds for datetimes), nanoseconds per tick, and whether
    the timestamps are datetimes."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as ST

    dtype = df.schema[ts_col].dataType
    if isinstance(dtype, (ST.LongType, ST.IntegerType, ST.ShortType, ST.ByteType)):
        return F.col(ts_col).cast("long"), 1, False
    if isinstance(dtype, (ST.TimestampType, ST.TimestampNTZType)):
        return F.unix_micros(F.col(ts_col).cast("timestamp")), 1000, True
    if isinstance(dtype, ST.DateType):
        return F.unix_micros(F.col(ts_col).cast("timestamp")), 1000, True
    raise EventError(f"the Spark job needs integer or datetime timestamps, but column '{ts_col}' holds "
                     f"{dtype.simpleString()}", column=ts_col)


def id_is_int(df, id_col: str) -> bool:
    """Whether the column holds integers (else text; EventError naming the column for any other type)."""
    from pyspark.sql import types as ST

    dtype = df.schema[id_col].dataType
    if isinstance(dtype, (ST.LongType, ST.IntegerType, ST.ShortType, ST.ByteType)):
        return True
    if isinstance(dtype, ST.StringType):
        return False
    raise EventError(f"the Spark job needs integer or text event ids, but column '{id_col}' holds "
                     f"{dtype.simpleString()}", column=id_col)
