"""The Spark job for every language (cepkit.spark_jobs.languages plans the split, cepkit.spark_jobs.generic_tasks runs the
groups): read the events, number them where the plan needs it, partition and sort them in Spark, match
inside the executors, write the match rows atomically (cepkit.spark_jobs.commit)."""
from __future__ import annotations

import dataclasses
import time

from cepkit.core import registry
from cepkit.core.errors import EventError, QueryError
from cepkit.spark_jobs import commit as C, generic_tasks as G
from cepkit.spark_jobs import languages as L, plan as P
from cepkit.spark_jobs import source as S, spark_io as IO
from cepkit.spark_jobs import kernel_pack as KP, tasks as T, typed_output as TO, warmup as W
from cepkit.spark_jobs import sql_walk as SW, task_witnesses as TW
from cepkit.spark_jobs import output_form as OF
from cepkit.spark_jobs.summary import Summary
from cepkit.front.language.ast import leaves
from cepkit.core.match_table import Layout
from cepkit.front.sql.table import output_columns
from cepkit.front.binding import resolve_type

NONE_COL = "__cepkit_none"  # a column name no input has: nothing is typed by Spark's inference


def run_generic(lang: str, query: str, events: str, out_dir: str, *, engine: str | None, spark_factory,
                selection: str = "all", columns: S.Columns = S.Columns(), ts_unit: str | None = None,
                input_format: str | None = None, slice_length: int | None = None,
                partitions: int | None = None, spark=None, key: str | None = None, flavor: str | None = None,
                t0: float | None = None):
    """Run a query of any language (cepkit.spark_jobs.languages); returns cepkit.spark_jobs.summary.Summary."""
    t0 = t0 if t0 is not None else time.perf_counter()
    if lang not in ("sase", "sql", "tpstream", "afa"):
        raise QueryError(f"the Spark job does not run {registry.language(lang).title or lang} queries",
                         expected=["sase", "sql", "tpstream", "afa"])
    q = registry.parse(lang, query)
    engine = engine or L.default_engine(lang, q)
    options = _options(lang, selection, flavor)
    program = registry.get_engine(lang, engine).compile(query, **options)  # refusals before any Spark work
    layout = program.layout
    if key is not None and lang != "afa":
        raise QueryError(f"--key is for AFA files; a {registry.language(lang).title} query is split by "
                         "its own partitioning")
    fmt = S.detect_format(events, input_format)
    local = S.local_columns(events, fmt)

    # The plan, and the columns it needs (those it can know before reading).
    if lang == "afa":
        plan = L.plan_afa(key)
        need = {key: "the AFA's key (--key)"}
    elif lang == "sql":
        plan = L.plan_sql(q, None, engine)  # refusals first; a slice's context needs the time unit, known once read
        need = {c.col: "PARTITION BY" for c in q.partition_by}
    elif lang == "tpstream":
        plan = L.plan_tpstream(q, dict(options).get("mode", "exact"))
        need = {a: "PARTITION BY" for a in q.partition_by}
    else:
        plan = None
        L.plan_sase(q, selection, 1)  # refusals first
        need = S.needed_columns(q, columns)
    if local is not None:
        S.check_columns(events, local, need)
    recovered = tuple(C.recover(S.local_path(out_dir))) if S.is_local(out_dir) else ()

    spark = spark or spark_factory()
    if not S.is_local(out_dir):
        recovered = tuple(C.recover(out_dir, C.HadoopFS(spark)))
    from pyspark.sql import functions as F

    if lang == "afa":  # every column typed by the readers' rule, as the AFA event file reader does
        typed_cols = S.Columns(ts=NONE_COL, id=NONE_COL, type=None)
    elif lang == "sase":
        typed_cols = columns
    else:
        typed_cols = S.Columns(ts=_ts_col(lang, q, columns, local), id=columns.id, type=columns.type)
    df, text_cols = S.read(spark, events, fmt, typed_cols)
    S.check_columns(events, df.columns, need)

    ts_col = None if lang == "afa" else _ts_col(lang, q, columns, df.columns)
    if ts_col is not None:
        S.check_columns(events, df.columns, {ts_col: "the timestamp (--ts-col)"})
    id_col = columns.id if columns.id in df.columns and lang != "afa" else None
    if lang == "sase" and id_col is None:
        S.check_columns(events, df.columns, {columns.id: "the event id (the job orders events by timestamp, then id)"})
    type_col = _type_col(lang, columns, df.columns)
    if lang == "sase" and type_col is None and columns.default_type is None:
        raise EventError(f"'{events}' has no column '{columns.type}' (the event type); pass --default-type",
                         column=columns.type)

    tick, ns_per_tick, is_datetime = (None, 1, False) if ts_col is None else IO.tick_expr(df, ts_col)
    aggs = [F.count(F.lit(1)).alias("n")]
    if ts_col is not None:
        aggs += [F.count(ts_col).alias("n_ts"), F.min(tick).alias("t_min"), F.max(tick).alias("t_max")]
    if id_col is not None and lang != "afa":
        aggs += [F.count(id_col).alias("n_id"), F.count_distinct(id_col).alias("n_distinct")]
    if lang == "sase" and type_col is not None:
        aggs += [F.count(type_col).alias("n_type"),
                 F.collect_set(F.trim(F.col(type_col).cast("string"))).alias("types")]
    stats = IO.first_action(events, lambda: df.agg(*aggs).collect()[0])
    n = stats["n"]
    if ts_col is not None and stats["n_ts"] < n:
        raise EventError(f"'{events}': missing timestamp ({n - stats['n_ts']} rows)", column=ts_col)
    if id_col is not None and lang != "afa":
        if stats["n_id"] < n:
            raise EventError(f"'{events}': missing event id ({n - stats['n_id']} rows)", column=id_col)
        if stats["n_distinct"] < n:
            raise EventError(f"'{events}': duplicate event ids ({n - stats['n_distinct']} rows repeat an id)",
                             column=id_col)
    type_names = None
    if lang == "sase":
        if type_col is not None:
            type_names = tuple(sorted(set(stats["types"])))
            if stats["n_type"] < n or "" in type_names:
                raise EventError(f"'{events}': missing event type", column=type_col)
        else:
            type_names = (columns.default_type,)
    stream_unit = "ns" if is_datetime else ts_unit
    if lang == "sql":
        plan = L.plan_sql(q, L.sql_window_ticks(q, stream_unit), engine)
        if plan.sliced:
            L.check_slice_key(q, ts_col)
        if plan.sliced and is_datetime:
            plan = L.LanguagePlan(plan.kind, plan.keys, -(-plan.context // ns_per_tick), plan.note)
    elif lang == "sase":
        if n:
            for c in _components(q):
                resolve_type(c.event_type, type_names, c.pos)
        plan = L.plan_sase(q, selection, L.sase_window_ticks(q, stream_unit, ns_per_tick) if n else 1)

    if lang == "sql" and q.rows == "all" and q.select is None:  # ALL ROWS PER MATCH, SELECT *: every column

        attrs = [c for c in df.columns if c not in (ts_col, id_col)]
        layout = Layout(layout.variables, output_columns(q, [ts_col] + (["id"] if id_col else []) + attrs))
    id_is_int = id_col is None or IO.id_is_int(df, id_col)
    schema = G.output_schema(layout, _id_type(id_is_int), key=lang == "afa", values=TO.BATCH_VALUES)
    used_text = tuple(c for c in text_cols if c not in (ts_col, id_col, type_col))
    forms = IO.text_forms(events, df, used_text) if used_text and n else ()
    spec_args = dict(lang=lang, engine=engine, query=query, options=tuple(options.items()), ts_col=ts_col,
                     id_col=id_col, type_col=type_col, default_type=_default_type(lang, columns),
                     ts_unit=ts_unit, type_names=type_names, schema=schema, layout=layout,
                     text_cols=used_text, text_forms=forms, values=TO.BATCH_VALUES)
    spark_schema = IO.spark_schema(schema)
    values = G.value_columns(schema, layout)  # typed as `cepkit run --format parquet` types them
    form = _output_form(lang, q, layout, values, ts_col, is_datetime)   # what `cepkit run --format parquet` writes
    if n == 0:
        matches = IO.write_matches(spark.createDataFrame([], spark_schema), out_dir, values=values, form=form,
                                   gathered=TW.accumulator(spark))
        return Summary(0, matches, "empty", engine, 0, 0.0, time.perf_counter() - t0, recovered)

    parallelism = max(spark.sparkContext.defaultParallelism, 1)
    nparts = partitions or parallelism
    if lang in ("sql", "tpstream", "afa"):
        df = _numbered(df)  # the file row: the order of arrival (and the ids where the input has none)
    order = ([ts_col] if ts_col else []) + ([G.ROW_COL] if G.ROW_COL in df.columns else [id_col])
    gathered = TW.accumulator(spark)   # the value columns' witnesses, from the matching tasks (task_witnesses)
    walk = plan.kind == "walk-slice"   # context after the slice only, two phases (cepkit.spark_jobs.sql_walk)
    walk_s, kept = 0.0, None           # phase 1's seconds; the staged rows it persisted for phase 2
    if plan.kind == "partition":
        coarse = {G.GROUP_COL + str(i): _coarse(k, k in text_cols) for i, k in enumerate(plan.keys)}
        spec = G.GenericSpec(group_cols=(), **spec_args)
        stage, stage_order = df, list(order)
        out = (df.withColumns(coarse).repartition(nparts, *coarse).drop(*coarse).sortWithinPartitions(*order)
               .mapInArrow(TW.gathering(T.call(G.match_groups, spec), values, gathered), spark_schema))
        groups = nparts
    elif plan.kind == "key":
        kind = F.lower(F.trim(F.col("kind").cast("string"))) if "kind" in df.columns else F.lit("insert")
        is_event = kind.isNull() | kind.isin("insert", "retract", "+", "-")
        rows = df.withColumn(G.GROUP_COL, F.col(key).cast("string"))
        data = rows.where(is_event)
        keys = data.select(G.GROUP_COL).distinct()
        control = rows.where(~is_event).drop(G.GROUP_COL).crossJoin(F.broadcast(keys))
        spec = G.GenericSpec(group_cols=(G.GROUP_COL,), key_col=key, **spec_args)
        stage, stage_order = data.unionByName(control), [G.GROUP_COL, G.ROW_COL]
        out = (stage.repartition(nparts, G.GROUP_COL).sortWithinPartitions(G.GROUP_COL, G.ROW_COL)
               .mapInArrow(TW.gathering(T.call(G.match_groups, spec), values, gathered), spark_schema))
        groups = nparts
    else:
        if plan.kind == "position-slice":
            df = _positioned(df, ts_col, id_col)
            tick_col, lo_t, hi_t = F.col(G.POS_COL), 0, n - 1
        else:
            tick_col, lo_t, hi_t = tick, stats["t_min"], stats["t_max"]
        sp = P.slice_plan(lo_t, hi_t, plan.context, 4 * parallelism, slice_length)
        d = f"({G.TICK_COL} - {sp.t_min}L)"
        lo = F.expr(f"IF({d} < {sp.context}L, 0L, ({d} - {sp.context}L) div {sp.length}L)")
        hi = F.expr(f"LEAST({sp.count - 1}L, ({d} + {0 if walk else sp.context}L) div {sp.length}L)")
        sliced = (df.withColumn(G.TICK_COL, tick_col.cast("long"))
                  .withColumn(G.SLICE_COL, F.explode(F.sequence(lo.cast("long"), hi.cast("long")))))
        spec = G.GenericSpec(group_cols=(G.SLICE_COL,), slice_length=sp.length, slice_t_min=sp.t_min,
                             walk_context=sp.context if walk else None, **spec_args)
        stage, stage_order = sliced, [G.SLICE_COL, *order]
        staged = (sliced.repartitionByRange(partitions or min(sp.count, 4 * parallelism), G.SLICE_COL)
                  .sortWithinPartitions(G.SLICE_COL, *order))
        if walk:
            spec, staged, walk_s = _walk_entries(spark, q, spec, staged, stage, stage_order, sp.count)
            kept = staged
        out = staged.mapInArrow(TW.gathering(T.call(G.match_groups, spec), values, gathered), spark_schema)
        groups = sp.count
        plan = L.LanguagePlan(plan.kind, plan.keys, plan.context,
                              f"{plan.note} ({sp.count} slices of {sp.length}, context {sp.context})")
    if not walk:   # a walk's phase 1 warmed the engine
        _warm(spark, spec, stage, stage_order)
    t1 = time.perf_counter()
    matches = IO.write_matches(out, out_dir, values=values, form=form, gathered=gathered)
    t2 = time.perf_counter()
    if kept is not None:
        kept.unpersist()
    return Summary(n, matches, plan.note, engine, groups, walk_s + t2 - t1, time.perf_counter() - t0, recovered)


def _walk_entries(spark, q, spec: G.GenericSpec, staged, stage, stage_order: list[str], count: int):
    """Phase 1 of a "walk-slice" plan (cepkit.spark_jobs.sql_walk): the slices' TRANSFER rows, walked on the
    driver; returns the phase-2 spec (each slice's entry), the staged rows (kept for phase 2) and the seconds
    phase 1 took. A walk that meets an AFTER MATCH SKIP error raises it here, as the single process does."""
    first = dataclasses.replace(spec, schema=SW.TRANSFER)
    _warm(spark, first, stage, stage_order)
    t = time.perf_counter()
    staged = staged.persist()
    table = staged.mapInArrow(T.call(G.match_groups, first), IO.spark_schema(SW.TRANSFER)).toArrow()
    entries = tuple(SW.entries(q, table, count))
    return dataclasses.replace(spec, walk_entries=entries), staged, time.perf_counter() - t


def _warm(spark, spec: G.GenericSpec, stage, order: list[str]) -> None:
    """The task body over a sample of the matching stage's input, in the driver (warmup.warm), so that the
    engine's kernels are compiled (or loaded) here and shipped to executors with their own compile caches
    (kernel_pack)."""
    try:
        sample = stage.limit(W.SAMPLE_ROWS).toArrow()
    except Exception:  # noqa: BLE001 - the tasks meet the same rows and report them
        return
    W.warm(lambda batches: G.match_groups(spec, batches), sample, (*spec.group_cols, *order))
    KP.ship(spark)


def _options(lang: str, selection: str, flavor: str | None) -> dict:
    if flavor is not None and lang != "afa":
        raise QueryError("--flavor is for AFA files")
    if lang == "sase":
        return {"selection": selection} if selection != "all" else {}
    if selection != "all":
        raise QueryError(f"--selection is for SASE+ queries, not {registry.language(lang).title}")
    return {"flavor": flavor} if flavor else {}


def _components(q):
    return leaves(q.pattern)


def _ts_col(lang: str, q, columns: S.Columns, present) -> str:
    """The timestamp column: the one named (default ts); for SQL, where the table has none, the first
    ORDER BY column (as the single-process table reader)."""
    if lang == "sql" and present is not None and columns.ts not in present and q.order_by:
        return q.order_by[0].col.col
    return columns.ts


def _type_col(lang: str, columns: S.Columns, present) -> str | None:
    if lang in ("sql", "afa"):
        return None
    return columns.type if columns.type is not None and columns.type in present else None


def _default_type(lang: str, columns: S.Columns) -> str | None:
    return {"sql": "row", "tpstream": columns.default_type or "event"}.get(lang, columns.default_type)


def _output_form(lang: str, q, layout, values: tuple[str, ...], ts_col: str | None, is_datetime: bool):
    """The columns `cepkit run --format parquet` writes for this language (cepkit.spark_jobs.output_form)."""
    if lang == "sql":
        from cepkit.front.sql.table import timestamp_columns  # lazy: the SQL front end, for SQL jobs only

        return OF.sql_form(layout.payload, values, timestamp_columns(q, ts_col), is_datetime)
    if lang == "tpstream":
        return OF.tpstream_form(q.partition_by, list(q.streams), [r.name for r in q.returns], values, is_datetime)
    if lang == "sase":
        return OF.sase_form(is_datetime)
    return OF.OutputForm()


def _id_type(is_int: bool):
    import pyarrow as pa

    return pa.int64() if is_int else pa.string()


def _offsets(df, counted):
    """Consecutive numbers 0.. in partition order: Spark's monotonic id made dense with per-partition counts
    (one counting pass; the ids of a file scan are the same when it is read again)."""
    from pyspark.sql import functions as F

    mono = df.withColumn("__cepkit_m", F.monotonically_increasing_id())
    part, local = F.shiftright(F.col("__cepkit_m"), 33), F.col("__cepkit_m").bitwiseAND((1 << 33) - 1)
    counts = dict((r[0], r[1]) for r in mono.groupBy(part.alias("p")).count().collect())
    starts, total = [], 0
    for p in range(max(counts, default=-1) + 1):
        starts.append(total)
        total += counts.get(p, 0)
    base = F.element_at(F.array(*[F.lit(s).cast("long") for s in starts or [0]]), (part + 1).cast("int"))
    return mono.withColumn(counted, base + local).drop("__cepkit_m")


def _numbered(df):
    """ROW_COL: each row's number in read order (a single file: its row order)."""
    return _offsets(df, G.ROW_COL)


def _positioned(df, ts_col: str, id_col: str):
    """POS_COL: each event's position in (ts, id) order over the whole stream."""
    return _offsets(df.orderBy(ts_col, id_col).localCheckpoint(), G.POS_COL).localCheckpoint()


def _coarse(col: str, is_text: bool):
    """A Spark group for a partition key: the value itself, or for CSV text spark_io.key_group (a coarsening
    of the readers' equality)."""
    from pyspark.sql import functions as F

    return IO.key_group(col) if is_text else F.col(f"`{col}`")