"""`cepkit run` for MATCH_RECOGNIZE queries (.sql): the query's table is the events file, or the rows the query
carries (VALUES), when it is run without one."""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace

from cepkit import options
from cepkit.core.errors import QueryError


# docs/semantics.md SD1: why this language reads its events whole
WHOLE = "whole input read: a MATCH_RECOGNIZE query runs over its table at once (ORDER BY, the outer query)"


def _query_columns(q) -> list[str]:
    """Every column name the query mentions (the device plan is checked before the table is read)."""

    found: list[str] = []
    for e in [m.expr for m in q.measures] + [d.cond for d in q.define] + [k.col for k in q.order_by] + \
            list(q.partition_by):
        found += [n.col for n in e.walk() if hasattr(n, "col") and isinstance(n.col, str)]
    return list(dict.fromkeys(found))


def add_options(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--ts-col", type=options.column,
                       help="column read as the integer timestamp (default: ts, else the query's first ORDER BY "
                            "column when it holds integers or datetimes, else none: ORDER BY alone orders the rows)")
    group.add_argument("--gpu-launch", choices=("batch", "event"),
                       help="kernel launches of --engine gpu: one per batch of events (default) or one per event")


def read_table(path: str, query, ts_col: str | None = None, ts_unit: str | None = None):
    """(an EventBatch of every column of the table: type and id stay ordinary columns, its ts column)."""
    from cepkit.reference.sql.engine import to_table

    options = {"ts_col": ts_col} if ts_col else {}
    batch = to_table(path, query, ts_unit=ts_unit, id_col=None, **options)
    return batch, batch.ts_col


def ts_columns(q, ts_col: str) -> list[str]:
    """The output columns that hold timestamps: the timestamp column itself (ALL ROWS PER MATCH, SELECT) and
    every MEASURE that is it, navigated or not (`FIRST(A.ts)`, `LAST(ts)`, `B.ts`)."""
    from cepkit.reference.sql import ast as S

    out = [ts_col]
    for m in q.measures:
        e = m.expr
        while isinstance(e, S.Nav):
            e = e.arg
        if isinstance(e, S.ColRef) and e.col == ts_col:
            out.append(m.name)
    return out


def write_table(table, fmt: str, output: str | None, timestamps: tuple[str, ...] = ()) -> None:
    """The output rows, column by column (cepkit.output.write_rows); `timestamps` in the run's time form."""
    from cepkit.output import write_rows
    from cepkit.core.match import plain

    values = {c: [plain(row[k]) for row in table.rows] for k, c in enumerate(table.columns)}
    write_rows(table.columns, values, len(table.rows), fmt, output, "(no rows)", timestamps)


def write_match_table(table, fmt: str, output: str | None, timestamps: tuple[str, ...] = ()) -> None:
    """A program's match table written as the query's rows (its payload columns, cepkit.output.write_rows):
    a column Arrow types goes out as it is; a column of another kind (fractions, big integers, JSON) and a
    timestamp column (written in the run's time form) as its plain values, as write_table writes them."""
    import pyarrow as pa

    from cepkit.output import write_rows
    from cepkit.core.match import plain
    from cepkit.core.match_table import KIND, decode

    arrow = table.to_arrow()
    values: dict[str, object] = {}
    for name, column in zip(table.layout.payload, table.layout.payload_columns()):
        col = arrow.column(column).combine_chunks()
        kind = (arrow.schema.field(column).metadata or {}).get(KIND)
        if kind is None and not pa.types.is_decimal(col.type) and name not in timestamps:
            values[name] = col
        else:
            values[name] = [plain(v) for v in decode(col, kind)]
    write_rows(list(table.layout.payload), values, len(table), fmt, output, "(no rows)", timestamps)


def run(args: argparse.Namespace) -> int:
    """The query's rows computed by the chosen engine's program (core/registry.py; the SQL front step
    applies the input forms and the outer query around it), written column by column."""
    from cepkit.api import warn_unbounded
    from cepkit.cli import limit_options, read_query
    from cepkit.core import registry
    from cepkit.reference.sql import parse

    engine = args.engine or "reference"  # checked against the registry by `cepkit run`
    q = parse(read_query(args.query))
    budget = limit_options(args)
    type(registry.get_engine("sql", engine)).check_budget(**budget)
    warn_unbounded("sql", q)
    launch = getattr(args, "gpu_launch", None)
    if launch and engine != "gpu":
        raise QueryError("--gpu-launch needs --engine gpu")
    if engine == "gpu":
        return _run_device(args, q, launch)
    # the engine's program for the MATCH_RECOGNIZE; the query's subqueries and outer query are applied here,
    # around it, as the SQL front step (reference/sql/front.py) does, over the table's columns in their order
    inner = q.inner
    state = {k: v for k, v in budget.items() if k != "limit"}
    if registry.engine_entry("sql", engine).events is not None:   # replay: refuses VALUES and subqueries
        registry.get_engine("sql", engine).compile(q, **state)
    program = registry.get_engine("sql", engine).compile(inner, **state)
    started = time.monotonic()
    batch, _ = read_table(args.events, q, getattr(args, "ts_col", None), args.ts_unit)
    from cepkit.forms import note_input
    from cepkit.reference.sql import source

    note_input(batch)  # datetimes in, ISO 8601 out (--ts-format)
    events = len(batch)
    batch = source.apply(q, batch)
    columns, timestamps = inner_columns(inner, batch)
    data = as_ids(batch)
    if registry.engine_entry("sql", engine).events is not None:   # replay: a store written for the table
        if batch.ts_col != "ts":   # the store keeps its times as `ts`: the query's column would be lost
            from cepkit.core.errors import Unsupported

            raise Unsupported(engine, f"a table whose timestamp column is '{batch.ts_col}' (a store keeps 'ts'; "
                                      "run it with: reference, optimized)")
        data = registry.read_input("sql", engine, data)
    table = in_columns(program.run(data), columns)   # every output row; --limit keeps the first N (below)
    if q.outer is not None:
        from cepkit.reference.sql.front import apply
        from cepkit.reference.sql.outer import Step

        step = Step(q, table.layout.payload)
        timestamps = [name for name, e in step.items
                      if isinstance(e, str) and table.layout.payload[step.source[e]] in timestamps]
        table = apply(step, table)
    if args.limit is not None and len(table) > args.limit:  # the first N output rows
        from cepkit.core.match_table import MatchTable

        table = MatchTable(table.layout, arrow=table.to_arrow().slice(0, args.limit))
    elapsed = time.monotonic() - started
    write_match_table(table, args.format, args.output, tuple(timestamps))
    return _summary(args, q, engine, len(table), events, elapsed)


def as_ids(batch):
    """The batch with its `id` column as its ids, as the engines read a table (read_table keeps `id` an
    ordinary column, in its place among the columns; a subquery's WHERE keeps row numbers as the ids)."""
    import dataclasses

    if "id" not in batch.columns or batch.ts_col == "id":
        return batch
    columns = dict(batch.columns)
    ids = columns.pop("id")
    return dataclasses.replace(batch, columns=columns, ids=ids, positional_ids=False)


def inner_columns(inner, batch) -> tuple[list[str], list[str]]:
    """(the output columns, those that hold timestamps) of the MATCH_RECOGNIZE over the table `batch`: the
    table's columns in their order, no made-up `id` (QueryError, with position, for a column the table
    lacks)."""
    from cepkit.reference.sql.run import Table, project_columns
    from cepkit.reference.sql.table import bind_columns, output_columns, shown

    columns = shown([batch.ts_col] + [c for c in batch.columns if c != batch.ts_col])
    inner = bind_columns(inner, columns)
    table = project_columns(inner, Table(tuple(output_columns(replace(inner, select=None), columns)), ()))
    return list(table.columns), ts_columns(inner, batch.ts_col)


def in_columns(table, names: list[str]):
    """A program's match table with the payload columns `names`, in that order (each the payload column of
    that name, else of that name in another case); a made-up `id` column (row numbers) is left out. The
    table as is where its columns are not those."""
    from cepkit.core.match_table import Layout, MatchTable

    payload = list(table.layout.payload)
    if payload == names or len(set(names)) != len(names) or len(set(payload)) != len(payload):
        return table
    chosen = []
    for name in names:
        same = [p for p in payload if p == name] or [p for p in payload if p.lower() == name.lower()]
        if len(same) != 1:
            return table
        chosen.append(same[0])
    if set(payload) - set(chosen) - {"id"}:
        return table
    layout = Layout(table.layout.variables, tuple(names))
    column = dict(zip(payload, table.layout.payload_columns()))
    head = [c for c in table.layout.column_names() if c not in table.layout.payload_columns()]
    arrow = table.to_arrow().select(head + [column[p] for p in chosen])
    return MatchTable(layout, arrow=arrow.rename_columns(head + list(layout.payload_columns())))


def _summary(args: argparse.Namespace, q, engine: str, rows: int, events: int, elapsed: float) -> int:
    from cepkit.cli import limited

    limited(args, rows)
    mode = {"one": "ONE ROW PER MATCH", "all": "ALL ROWS PER MATCH", "all_matches": f"ALL MATCHES {q.strategy}"}
    print(f"{rows} rows from {events} events in {elapsed:.2f} s ({mode[q.rows]}, engine {engine}; {WHOLE})",
          file=sys.stderr)
    return 0


def _run_device(args: argparse.Namespace, q, launch: str | None) -> int:
    """--engine gpu: the reference's rows, ALL MATCHES matched on the device (gpu/pattern_run.py)."""
    from cepkit.gpu.pattern_run import DeviceAllMatches, compile_query
    from cepkit.reference.sql import source
    from cepkit.reference.sql.run import batch_rows, run_rows
    from cepkit.reference.sql.table import shown

    inner = q.inner   # the MATCH_RECOGNIZE; the input forms and the outer query are applied around it
    # refuses what the device cannot run before reading any event
    hook = DeviceAllMatches(compile_query(inner, _query_columns(inner))[1], getattr(args, "device", None),
                            **({"launch": launch} if launch else {}))
    started = time.monotonic()
    batch, _ = read_table(args.events, q, getattr(args, "ts_col", None), args.ts_unit)
    from cepkit.forms import note_input

    note_input(batch)  # datetimes in, ISO 8601 out (--ts-format)
    events = len(batch)
    batch = source.apply(q, batch)
    ts_col = batch.ts_col
    columns, rows = batch_rows(batch, ts_col=ts_col, id_col=None)
    table = run_rows(inner, shown(columns), rows, batch.ts_unit, all_matches=hook)
    timestamps = ts_columns(inner, ts_col)
    if q.outer is not None:
        table, timestamps = outer_table(q, table, timestamps)
    if args.limit is not None and len(table.rows) > args.limit:  # the first N output rows
        table = replace(table, rows=table.rows[: args.limit],
                        matches=None if table.matches is None else table.matches[: args.limit])
    elapsed = time.monotonic() - started
    write_table(table, args.format, args.output, tuple(timestamps))
    return _summary(args, q, "gpu", len(table.rows), events, elapsed)


def outer_table(q, table, timestamps: list[str]):
    """The run's table after the query's outer SELECT / WHERE / ORDER BY, and its timestamp columns."""
    from cepkit.reference.sql.outer import Step

    step = Step(q, table.columns)
    kept, rows = step.apply(table.rows)
    out = replace(table, columns=step.names, rows=tuple(rows),
                  matches=None if table.matches is None else tuple(table.matches[i] for i in kept))
    stamps = [name for name, e in step.items if isinstance(e, str) and table.columns[step.source[e]] in timestamps]
    return out, stamps
