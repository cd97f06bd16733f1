"""`cepkit run` for MATCH_RECOGNIZE queries (.sql): the query's table is the events file, or the rows the query
carries (VALUES), when it is run without one."""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace

from cepkit import options
from reference.errors import QueryError


# docs/semantics.md SD1: why this language reads its events whole
WHOLE = "whole input read: a MATCH_RECOGNIZE query runs over its table at once (ORDER BY, the outer query)"


def _query_columns(q) -> list[str]:
    """Every column name the query mentions (the device plan is checked before the table is read)."""
    from reference.sql.validate import nodes

    found: list[str] = []
    for e in [m.expr for m in q.measures] + [d.cond for d in q.define] + [k.col for k in q.order_by] + \
            list(q.partition_by):
        found += [n.col for n in nodes(e) if hasattr(n, "col") and isinstance(n.col, str)]
    return list(dict.fromkeys(found))


def add_options(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--ts-col", type=options.column,
                       help="column read as the integer timestamp (default: ts, else the query's first ORDER BY "
                            "column when it holds integers or datetimes, else none: ORDER BY alone orders the rows)")
    group.add_argument("--gpu-launch", choices=("batch", "event"),
                       help="kernel launches of --engine gpu: one per batch of events (default) or one per event")


def read_table(path: str, query, ts_col: str | None = None, ts_unit: str | None = None):
    """(an EventBatch of every column of the table: type and id stay ordinary columns, its ts column)."""
    from reference.sql.engine import to_table

    options = {"ts_col": ts_col} if ts_col else {}
    batch = to_table(path, query, ts_unit=ts_unit, id_col=None, **options)
    return batch, batch.ts_col


def ts_columns(q, ts_col: str) -> list[str]:
    """The output columns that hold timestamps: the timestamp column itself (ALL ROWS PER MATCH, SELECT) and
    every MEASURE that is it, navigated or not (`FIRST(A.ts)`, `LAST(ts)`, `B.ts`)."""
    from reference.sql import ast as S

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
    from reference.match import plain

    values = {c: [plain(row[k]) for row in table.rows] for k, c in enumerate(table.columns)}
    write_rows(table.columns, values, len(table.rows), fmt, output, "(no rows)", timestamps)


def run(args: argparse.Namespace) -> int:
    from cepkit.api import warn_unbounded
    from cepkit.cli import limit_options, limited, read_query
    from reference import registry
    from reference.sql import parse, source
    from reference.sql.run import batch_rows, run_rows
    from reference.sql.table import shown

    engine = args.engine or "reference"  # checked against the registry by `cepkit run`
    q = parse(read_query(args.query))
    inner = q.inner   # the MATCH_RECOGNIZE; the input forms and the outer query are applied around it
    type(registry.get_engine("sql", engine)).check_budget(**limit_options(args))
    warn_unbounded("sql", q)
    hook = None
    launch = getattr(args, "gpu_launch", None)
    if launch and engine != "gpu":
        raise QueryError("--gpu-launch needs --engine gpu")
    if engine == "gpu":  # refuses what the device cannot run before reading any event
        from gpu.pattern_run import DeviceAllMatches, compile_query

        hook = DeviceAllMatches(compile_query(inner, _query_columns(inner))[1], getattr(args, "device", None),
                                **({"launch": launch} if launch else {}))
    started = time.monotonic()
    batch, _ = read_table(args.events, q, getattr(args, "ts_col", None), args.ts_unit)
    from cepkit.output import note_input

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
    limited(args, len(table.rows))
    mode = {"one": "ONE ROW PER MATCH", "all": "ALL ROWS PER MATCH", "all_matches": f"ALL MATCHES {q.strategy}"}
    print(f"{len(table.rows)} rows from {events} events in {elapsed:.2f} s ({mode[q.rows]}, engine {engine}; {WHOLE})",
          file=sys.stderr)
    return 0


def outer_table(q, table, timestamps: list[str]):
    """The run's table after the query's outer SELECT / WHERE / ORDER BY, and its timestamp columns."""
    from reference.sql.outer import Step

    step = Step(q, table.columns)
    kept, rows = step.apply(table.rows)
    out = replace(table, columns=step.names, rows=tuple(rows),
                  matches=None if table.matches is None else tuple(table.matches[i] for i in kept))
    stamps = [name for name, e in step.items if isinstance(e, str) and table.columns[step.source[e]] in timestamps]
    return out, stamps
