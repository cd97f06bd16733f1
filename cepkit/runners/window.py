"""`cepkit run QUERY.win EVENTS`: a FILTER or AGGREGATE window query over an event file, through the window
engines; one output row each, as `cepkit window` prints them. A JOIN reads two files: `cepkit window join`."""
from __future__ import annotations

import argparse

from cepkit.core.errors import QueryError


def compiled(args: argparse.Namespace, program) -> None:
    """QueryError for a JOIN, which reads two event files."""
    if program.query.operator == "join":
        raise QueryError("a JOIN reads two event files: run it with `cepkit window join LEFT RIGHT --on ...`",
                         program.query.pos.line, program.query.pos.column)


def summary(args: argparse.Namespace, program, stats) -> str:
    return (f"{stats.count} rows from {stats.events} events in {stats.elapsed:.2f} s "
            f"(window {program.query.operator}, engine {stats.engine}{stats.notes})")
