"""Write matches as JSON lines, CSV, Parquet or a text table."""
from __future__ import annotations

import json
import sys
from typing import Any, Callable, Iterable, Sequence

import pandas as pd

from reference.errors import CepkitError
from reference.match import Match, plain


class OutputError(CepkitError):
    """The matches could not be written where the user asked."""

    exit_code = 1


def matches_frame(matches: Sequence[Match], variables: Sequence[str], returns: Sequence[str]) -> pd.DataFrame:
    """One row per match: a list-of-ids column per variable, ts, then the RETURN fields."""
    rows = []
    for m in matches:
        b = m.binding_dict
        row: dict[str, Any] = {v: [plain(i) for i in b.get(v, ())] for v in variables}
        row["ts"] = m.ts
        payload = dict(m.payload)
        row.update({name: plain(payload.get(name)) for name in returns})
        rows.append(row)
    return pd.DataFrame(rows, columns=list(variables) + ["ts"] + list(returns))


def write_output(fmt: str, output: str | None, records: Callable[[], Iterable[dict]],
                 frame: Callable[[str], pd.DataFrame], empty: str) -> None:
    """Write results: JSON lines from `records()`; csv, table or parquet from `frame(fmt)`."""
    if fmt == "parquet" and not output:
        raise OutputError("--format parquet needs --output PATH")
    try:
        if fmt == "jsonl":
            write_text("".join(json.dumps(r, default=str) + "\n" for r in records()), output)
            return
        table = frame(fmt)
        if fmt == "parquet":
            table.to_parquet(output, index=False)
        elif fmt == "csv":
            write_text(table.to_csv(index=False), output)
        else:
            write_text((table.to_string(index=False) if len(table) else empty) + "\n", output)
    except OSError as exc:
        raise OutputError(f"cannot write {output}: {exc.strerror or exc}") from None


def write_matches(matches: Sequence[Match], fmt: str, output: str | None, program: Any) -> None:
    variables = list(program.variables)
    returns = [r.name for r in program.query.returns]

    def frame(fmt: str) -> pd.DataFrame:
        table = matches_frame(matches, variables, returns)
        if fmt != "parquet":  # list-of-ids columns as text: space-separated in CSV, comma-separated in tables
            sep = " " if fmt == "csv" else ","
            for v in variables:
                table[v] = [sep.join(str(i) for i in ids) for ids in table[v]]
        return table

    write_output(fmt, output, lambda: (m.to_json() for m in matches), frame, "(no matches)")


class MatchWriter:
    """Matches written as they come: JSON lines go out on every `write`; csv, table and parquet (whose
    columns are typed over all rows) are written once, by `close`."""

    def __init__(self, fmt: str, output: str | None, program: Any):
        if fmt == "parquet" and not output:
            raise OutputError("--format parquet needs --output PATH")
        self.fmt, self.output, self.program = fmt, output, program
        self.held: list[Match] = []
        self.count = 0
        self.fh = None
        if fmt == "jsonl" and output:
            try:
                self.fh = open(output, "w", encoding="utf-8")
            except OSError as exc:
                raise OutputError(f"cannot write {output}: {exc.strerror or exc}") from None

    def write(self, matches: Sequence[Match]) -> None:
        self.count += len(matches)
        if self.fmt != "jsonl":
            self.held.extend(matches)
            return
        text = "".join(json.dumps(m.to_json(), default=str) + "\n" for m in matches)
        try:
            (self.fh or sys.stdout).write(text)
        except OSError as exc:
            raise OutputError(f"cannot write {self.output}: {exc.strerror or exc}") from None

    def close(self) -> None:
        if self.fh is not None:
            self.fh.close()
        elif self.fmt == "jsonl":
            sys.stdout.flush()
        else:
            write_matches(self.held, self.fmt, self.output, self.program)


def write_text(text: str, output: str | None) -> None:
    if output:
        with open(output, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
