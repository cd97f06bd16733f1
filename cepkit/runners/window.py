"""`cepkit run QUERY.win EVENTS`: a FILTER or AGGREGATE window query over an event file, through the window
engines; one output row each, as `cepkit window` prints them. A JOIN reads two files: `cepkit window join`."""
from __future__ import annotations

import argparse
from typing import Any

from cepkit.core.errors import QueryError
from cepkit.core.match_table import MatchTable
from cepkit.output import write_matches


def compiled(args: argparse.Namespace, program) -> None:
    """QueryError for a JOIN, which reads two event files."""
    if program.query.operator == "join":
        raise QueryError("a JOIN reads two event files: run it with `cepkit window join LEFT RIGHT --on ...`",
                         program.query.pos.line, program.query.pos.column)


def summary(args: argparse.Namespace, program, stats) -> str:
    return (f"{stats.count} rows from {stats.events} events in {stats.elapsed:.2f} s "
            f"(window {program.query.operator}, engine {stats.engine}{stats.notes})")


def write(table: MatchTable, program: Any, args: argparse.Namespace) -> int:
    """The RETURN items alone, column by column (window queries); an item `ts` (the window's end, or the
    event's) as a time."""
    write_matches(table, args.format, args.output, program, payload_only=True, empty="(no rows)")
    return len(table)
