"""The Spark job: read events, split them by key or by time slice, match inside the executors, write
the matches as Parquet. Every check that can fail on the user's input runs before the matching tasks."""
from __future__ import annotations

import time

from cepkit.core import registry
from cepkit.front.binding import attribute_uses, resolve_type, window_bound
from cepkit.core.errors import EventError, QueryError, require_extra
from cepkit.front.language import parse
from cepkit.spark_jobs import commit as C, languages as L
from cepkit.spark_jobs import plan as P, source as S
from cepkit.spark_jobs import spark_io as IO, tasks as T, typed_output as TO
from cepkit.spark_jobs import kernel_pack as KP, output_form as OF, warmup as W
from cepkit.spark_jobs import task_witnesses as TW
from cepkit.spark_jobs.summary import Summary
from cepkit.spark_jobs.session import get_session, job_settings
from cepkit.spark_jobs.generic_job import run_generic

UDFS = ("arrow", "pandas")
PARTITION_EVENTS = 100_000   # events per partition of the matching stage (partition_count)
PARTITIONS_PER_CORE = 4


def default_engine() -> str:
    """"optimized" where that engine is registered, else "reference"."""
    return "optimized" if "optimized" in registry.engines_for("sase") else "reference"


def _recover_output(out_dir: str) -> tuple[str, ...]:
    """Clean what killed runs left beside a local `out_dir` and check it can be replaced (cepkit.spark_jobs.commit),
    before Spark starts; other file systems are checked once the session is up."""
    if not S.is_local(out_dir):
        return ()
    return tuple(C.recover(S.local_path(out_dir)))


def run_job(query: str, events: str, out_dir: str, *, engine: str | None = None, master: str | None = None,
            selection: str = "all", columns: S.Columns = S.Columns(), ts_unit: str | None = None,
            input_format: str | None = None, udf: str | None = None, slice_length: int | None = None,
            partitions: int | None = None, spark=None, fail_once_marker: str | None = None,
            fail_first_attempt: tuple[str, str] | None = None, language: str | None = None,
            key: str | None = None, flavor: str | None = None) -> Summary:
    """Run `query` (text) over the events at `events`; write the matches under `out_dir`.
    `fail_once_marker` and `fail_first_attempt` inject task failures, for tests of retry (tasks.TaskSpec).
    Queries other than flat SASE+ sequences with a time window (language: named, else detected) go to
    cepkit.spark_jobs.generic_job (`key`, `flavor`: AFA)."""
    t0 = time.perf_counter()
    if spark is None:
        require_extra("spark", "the Spark job")  # MissingExtra naming cepkit[spark], not an ImportError later
    lang = registry.language(language).name if language else registry.detect(query)
    if lang != "sase" or L.needs_generic(lang, parse(query)) or key is not None or flavor is not None:
        if udf is not None:
            raise QueryError("--udf chooses the task body of flat SASE+ sequences; this query takes the "
                             "generic path (docs/spark.md \"Every language on Spark\")")
        return run_generic(lang, query, events, out_dir, engine=engine, spark_factory=lambda: _session(master),
                           selection=selection, columns=columns, ts_unit=ts_unit, input_format=input_format,
                           slice_length=slice_length, partitions=partitions, spark=spark, key=key, flavor=flavor,
                           t0=t0)
    engine = engine or default_engine()
    if udf is not None and udf not in UDFS:
        raise QueryError(f"unknown task body '{udf}'", expected=list(UDFS))
    q = parse(query)
    program = registry.get_engine("sase", engine).compile(query, selection=selection)  # refusals before any Spark work
    keyed = P.choose(q, selection)
    keys = keyed.keys if keyed else ()
    fmt = S.detect_format(events, input_format)
    need = S.needed_columns(q, columns, keys)
    local = S.local_columns(events, fmt)
    if local is not None:
        S.check_columns(events, local, need)
    recovered = _recover_output(out_dir)

    t_start = time.perf_counter()
    starting = None
    if spark is None:
        spark = _session(master)
        starting = W.start_workers(spark)  # the Python workers start while the statistics pass runs
    t_read = time.perf_counter()
    if not S.is_local(out_dir):
        recovered = tuple(C.recover(out_dir, C.HadoopFS(spark)))
    from pyspark.sql import functions as F

    df, text_cols = S.read(spark, events, fmt, columns)
    S.check_columns(events, df.columns, need)
    kept = S.stage_columns(df.columns, need, columns.type)
    if len(kept) < len(df.columns):   # what the query never reads is not shuffled nor sent to the workers
        df = df.select(*[F.col(f"`{c}`") for c in kept])
        text_cols = tuple(c for c in text_cols if c in kept)
    try:
        tick, ns_per_tick, is_datetime = IO.tick_expr(df, columns.ts)
        id_is_int = IO.id_is_int(df, columns.id)
    except EventError:
        if IO.first_action(events, lambda: df.limit(1).count()):
            raise
        # a header-only CSV (Spark infers text): no events, 0 matches, as the readers (semantics RD-9)
        tick, ns_per_tick, is_datetime, id_is_int = F.lit(None).cast("long"), 1, False, False
    # as the readers: the type column when there is one, else the default type
    type_col = columns.type if columns.type is not None and columns.type in df.columns else None
    if type_col is None and columns.default_type is None:
        raise EventError(f"'{events}' has no column '{columns.type}' (the event type); pass --default-type",
                         column=columns.type)

    # One statistics pass: nulls, duplicate ids, time range, the type dictionary.
    aggs = [F.count(F.lit(1)).alias("n"), F.count(columns.ts).alias("n_ts"), F.count(columns.id).alias("n_id"),
            F.count_distinct(columns.id).alias("n_distinct"), F.min(tick).alias("t_min"), F.max(tick).alias("t_max")]
    if type_col is not None:
        aggs += [F.count(type_col).alias("n_type"), F.collect_set(F.col(type_col).cast("string")).alias("types")]
    stats = IO.first_action(events, lambda: df.agg(*aggs).collect()[0])  # a malformed CSV row fails it
    n = stats["n"]
    if stats["n_ts"] < n:
        raise EventError(f"'{events}': missing timestamp ({n - stats['n_ts']} rows)", column=columns.ts)
    if stats["n_id"] < n:
        raise EventError(f"'{events}': missing event id ({n - stats['n_id']} rows)", column=columns.id)
    if stats["n_distinct"] < n:
        raise EventError(f"'{events}': duplicate event ids ({n - stats['n_distinct']} rows repeat an id)",
                         column=columns.id)
    if type_col is not None:
        raw_types = tuple(sorted(stats["types"]))   # as written; a type's name is its text stripped (the readers')
        types = sorted({t.strip() for t in raw_types})
        if stats["n_type"] < n or "" in types:
            raise EventError(f"'{events}': missing event type", column=type_col)
    else:
        types = [columns.default_type]
    type_names = tuple(types)
    if n == 0:  # no events: no type or window to bind (semantics RD-9)
        schema = T.output_schema(program.variables, [r.name for r in q.returns], id_is_int, TO.BATCH_VALUES)
        IO.write_matches(spark.createDataFrame([], IO.spark_schema(schema)), out_dir,
                         values=tuple(r.name for r in q.returns), form=OF.sase_form(is_datetime),
                         gathered=TW.accumulator(spark))
        return Summary(0, 0, "empty", engine, 0, 0.0, time.perf_counter() - t0, recovered,
                       (("start-up", t_read - t_start), ("read", time.perf_counter() - t_read)))
    stream_unit = "ns" if is_datetime else ts_unit
    for c in q.pattern.components:  # typos in type names and window units are query errors, found here
        resolve_type(c.event_type, type_names, c.pos)
    window_bound(q.window, stream_unit)

    uses = attribute_uses(q)
    used = [c for c in text_cols if c in uses]
    # the type as an int code: less to shuffle and send, no text to read in the tasks (a text column the
    # query does not read otherwise)
    coded = (type_col is not None and df.schema[type_col].dataType.typeName() == "string"
             and type_col not in uses and type_col not in keys)
    if coded:
        df = df.withColumn(type_col, IO.type_code(type_col, raw_types, type_names))
    text_forms = IO.text_forms(events, df, tuple(used)) if used and n else ()
    spec_args = dict(query=query, engine=engine, selection=selection, ts_col=columns.ts, id_col=columns.id,
                     type_col=type_col, default_type=columns.default_type, ts_unit=ts_unit,
                     type_names=type_names, variables=tuple(program.variables),
                     returns=tuple(r.name for r in q.returns), id_is_int=id_is_int, values=TO.BATCH_VALUES,
                     text_cols=text_cols, text_forms=text_forms, type_coded=coded,
                     fail_once_marker=fail_once_marker, fail_first_attempt=fail_first_attempt)
    schema = T.output_schema(spec_args["variables"], spec_args["returns"], id_is_int, TO.BATCH_VALUES)
    parallelism = spark.sparkContext.defaultParallelism
    compiled = spark.sparkContext.accumulator(0)  # Numba compilations in the matching stage's tasks (W.counting)
    gathered = TW.accumulator(spark)   # the value columns' witnesses, from the matching tasks (task_witnesses)
    returns = spec_args["returns"]
    wanted = partition_count(n, parallelism)  # few partitions for small data (docs/spark.md, "A fast first run")

    # mapInArrow measured faster on 10M keyed events and on slices, and keeps memory bounded (docs/spark.md)
    udf = udf or "arrow"
    if keyed:
        # a key read as text is grouped by _key_group (events equal in the key stay together)
        keyed_df = df.withColumns({T.KEY_COL + str(i): IO.key_group(k) for i, k in enumerate(keys) if k in text_cols})
        group_cols = tuple(T.KEY_COL + str(i) if k in text_cols else k for i, k in enumerate(keys))
        spec = T.TaskSpec(group_cols=group_cols, **spec_args)
        nparts = partitions or wanted
        stage_input = keyed_df
        if udf == "pandas":
            out = keyed_df.groupBy(*group_cols).applyInPandas(
                W.counting(TW.gathering_frames(T.call(T.match_group, spec), returns, gathered), compiled),
                IO.spark_schema(schema))
        else:
            out = (keyed_df.repartition(nparts, *group_cols).sortWithinPartitions(*group_cols, columns.ts, columns.id)
                   .mapInArrow(W.counting(TW.gathering(T.call(T.match_partition, spec), returns, gathered), compiled),
                               IO.spark_schema(schema)))
        plan_text, groups = f"by key [{', '.join(keys)}], {udf}", nparts
    else:
        window = P.window_in_ts_long(q, stream_unit, ns_per_tick)
        sp = P.slice_plan(stats["t_min"], stats["t_max"], window, wanted, slice_length)
        spec = T.TaskSpec(group_cols=(T.SLICE_COL,), slice_length=sp.length, slice_t_min=sp.t_min, **spec_args)
        # slices j with t_j - context <= t < t_{j+1} + context (SlicePlan.slices_of); d - context may be < 0
        d = f"({T.TICK_COL} - {sp.t_min}L)"
        lo = F.expr(f"IF({d} < {sp.context}L, 0L, ({d} - {sp.context}L) div {sp.length}L)")
        hi = F.expr(f"LEAST({sp.count - 1}L, ({d} + {sp.context}L) div {sp.length}L)")
        sliced = (df.withColumn(T.TICK_COL, tick)
                  .withColumn(T.SLICE_COL, F.explode(F.sequence(lo.cast("long"), hi.cast("long")))))
        nparts = partitions or min(sp.count, wanted)
        stage_input = sliced
        if udf == "pandas":
            out = sliced.groupBy(T.SLICE_COL).applyInPandas(
                W.counting(TW.gathering_frames(T.call(T.match_group, spec), returns, gathered), compiled),
                IO.spark_schema(schema))
        else:
            out = (sliced.repartitionByRange(nparts, T.SLICE_COL)
                   .sortWithinPartitions(T.SLICE_COL, columns.ts, columns.id)
                   .mapInArrow(W.counting(TW.gathering(T.call(T.match_partition, spec), returns, gathered), compiled),
                               IO.spark_schema(schema)))
        plan_text = f"by time slice ({sp.count} slices of {sp.length} ticks, context {sp.context}), {udf}"
        groups = sp.count

    t_compile = time.perf_counter()
    warm_spec = W.without_failures(spec)   # no task compiles the engine
    W.warm(lambda batches: T.match_partition(warm_spec, batches), stage_input.limit(W.SAMPLE_ROWS).toArrow(),
           (*spec.group_cols, spec.ts_col, spec.id_col))
    KP.ship(spark)   # what it loaded, to executors with their own compile caches (a cluster)
    if starting is not None:
        starting.join()
    t1 = time.perf_counter()
    stamps: list[float] = []
    matches = IO.write_matches(out, out_dir, stamps, values=returns, form=OF.sase_form(is_datetime),
                               gathered=gathered)
    t2 = stamps[0]
    compiles = compiled.value
    t3 = time.perf_counter()
    timing = (("start-up", t_read - t_start), ("read", t_compile - t_read), ("compile", t1 - t_compile),
              ("match", t2 - t1), ("commit", t3 - t2))
    return Summary(n, matches, plan_text, engine, groups, t2 - t1, t3 - t0, recovered, timing, compiles)


def partition_count(events: int, parallelism: int) -> int:
    """Partitions for the matching stage: one per PARTITION_EVENTS events, at most PARTITIONS_PER_CORE per
    core (a few tasks per core balance uneven keys; more only add per-task cost)."""
    return max(1, min(-(-events // PARTITION_EVENTS), PARTITIONS_PER_CORE * max(parallelism, 1)))




def _session(master: str | None):
    return get_session(master, **job_settings(master, W.cache_env()))
