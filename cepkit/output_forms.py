"""How `cepkit run` writes a program's tables, by the output form its language declares (core/registry.py
LanguageEntry.output): "matches" as they come (cepkit.output.MatchWriter); the other forms ("items", "rows",
"situations", "changes") once the run is over, from the program's whole table, by the `write` of the
language's runner module (cepkit/runners/LANG.py)."""
from __future__ import annotations

import argparse
from typing import Any, Callable

from cepkit.core.match_table import MatchTable
from cepkit.forms import note_input
from cepkit.output import MatchWriter


class TableWriter:
    """The tables a run returns, held and written by `close` in the language's form (`write(table, program,
    args)`, which returns the rows it wrote)."""

    def __init__(self, form: Callable[[MatchTable, Any, argparse.Namespace], int], args: argparse.Namespace,
                 program: Any):
        self.form, self.args, self.program = form, args, program
        self.tables: list[MatchTable] = []
        self.count = 0

    def __enter__(self) -> "TableWriter":
        return self

    def __exit__(self, kind, exc, tb) -> None:
        self.tables = []

    def write(self, table: MatchTable, batch: Any = None) -> None:
        if batch is not None:
            note_input(batch)   # datetimes in, ISO 8601 out (--ts-format)
        self.tables.append(table)

    def held_note(self, chunked: bool = True) -> str | None:
        return None   # the language's whole-input note says why

    def close(self) -> None:
        table = MatchTable.concat(self.program.layout, self.tables)
        self.count = self.form(table, self.program, self.args)


def open_writer(form: str, args: argparse.Namespace, program: Any, runner: Any) -> MatchWriter | TableWriter:
    """The writer of a run whose language's output form is `form`: "matches" as they come, any other form
    by the language's runner module's `write(table, program, args)` once the run is over."""
    if form == "matches":
        return MatchWriter(args.format, args.output, program)
    return TableWriter(runner.write, args, program)
