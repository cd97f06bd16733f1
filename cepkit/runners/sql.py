"""`cepkit run` for MATCH_RECOGNIZE queries (.sql): the query's table is the events file, or the rows the query
carries (VALUES), when it is run without one; the output is the query's rows."""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from cepkit import options

if TYPE_CHECKING:
    from cepkit.core.match_table import MatchTable


def add_options(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--ts-col", type=options.column,
                       help="column read as the integer timestamp (default: ts, else the query's first ORDER BY "
                            "column when it holds integers or datetimes, else none: ORDER BY alone orders the rows)")
    group.add_argument("--gpu-launch", choices=("batch", "event"),
                       help="kernel launches of --engine gpu: one per batch of events (default) or one per event")

def compile_options(args: argparse.Namespace, engine) -> dict:
    """--gpu-launch as the `launch` option of the engines that take it."""
    # lazy: start-up: the parser imports this module for its flags; the run's machinery loads when it runs
    from cepkit.runner import option_for

    if args.gpu_launch is None:
        return {}
    option_for("--gpu-launch", "launch", "sql", engine, args.engine is not None)
    return {"launch": args.gpu_launch}


def summary(args: argparse.Namespace, program, stats) -> str:
    q = program.query
    mode = {"one": "ONE ROW PER MATCH", "all": "ALL ROWS PER MATCH", "all_matches": f"ALL MATCHES {q.strategy}"}
    return (f"{stats.count} rows from {stats.events} events in {stats.elapsed:.2f} s ({mode[q.rows]}, "
            f"engine {stats.engine}{stats.notes})")

def write(table: MatchTable, program: Any, args: argparse.Namespace) -> int:
    """The query's rows: the payload columns, those holding timestamps in the run's time form."""
    write_match_table(table, args.format, args.output, tuple(program.timestamp_columns))
    return len(table)


def write_match_table(table: MatchTable, fmt: str, output: str | None, timestamps: tuple[str, ...] = ()) -> None:
    """A program's match table written as the query's rows (its payload columns, cepkit.output.write_rows):
    a column Arrow types goes out as it is; a column of another kind (fractions, big integers, JSON) and a
    timestamp column (written in the run's time form) as its plain values."""
    import pyarrow as pa

    # lazy: start-up: the parser imports this module for its flags; the run's machinery loads when it runs
    from cepkit.output import write_rows
    from cepkit.core.match import plain
    from cepkit.core.match_table import KIND, decode

    arrow = table.to_arrow()
    values: dict[str, object] = {}
    for name, column in zip(table.layout.payload, table.layout.payload_columns()):
        col = arrow.column(column).combine_chunks()
        kind = (arrow.schema.field(column).metadata or {}).get(KIND)
        if kind is None and not pa.types.is_decimal(col.type) and (name not in timestamps or
                                                                 pa.types.is_integer(col.type)):
            values[name] = col   # as Arrow holds it (an integer timestamp column too: Rows converts it if needed)
        else:
            values[name] = [plain(v) for v in decode(col, kind)]
    write_rows(list(table.layout.payload), values, len(table), fmt, output, "(no rows)", timestamps)
