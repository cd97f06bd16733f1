"""What an engine outside cepkit is given and what it answers (docs/conformance.md, "Protocol")."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cepkit.conformance.harness import Case
from cepkit.core.match import plain


class Refused(Exception):
    """An outside engine declines a construct of the vector's query, naming it (the vector counts as refused,
    not failed). cepkit's own `cepkit.errors.Unsupported` counts the same."""

    def __init__(self, construct: str, message: str = ""):
        self.construct = construct
        super().__init__(message or f"refused: {construct}")


class Unavailable(Exception):
    """The engine cannot run here (a package, a runtime or a file it needs is missing), saying why: raised
    while the adapter loads, or from compile / run, it skips the vectors with the reason (never a failure,
    never a pass). A command says the same with exit code 69, the reason on the last line of stderr."""


@dataclass(frozen=True)
class Vector:
    """One conformance vector as plain, JSON-able data.

    `events` are the rows in stream order (dicts: `id`, `ts`, the type column, attributes); a two-input
    query (the window JOIN) has its right input in `right_events`. `read_options` say how to read the rows:
    `type_col` (the event-type column; null: no type column, every row is of type `default_type`), `ts_unit`
    (unit of the integer `ts`; null: unitless ticks), `default_type`. Values are JSON values (an exact decimal of
    a VALUES row is a number, 90.5, as the command protocol's files write it). `options` are the compile options
    (`selection`, `mode`, `flavor`, `sigma`). `origin` says where the expected answer comes from
    (conformance/origin.py: `trino TestRowPatternMatching.java#testSimpleQuery`, `extension ...`).
    `compares_bindings` says whether the check reads the rows' `bindings` (every `sase` and `window` vector, a
    `sql` vector that pins matches): an engine that returns columns without row ids may refuse those.
    `stream` is a `sase1` vector's SASE 1.0 stream generator configuration (`.stream` file names: streamSize,
    randomSeed, ...; null for a vector that lists its events): `events` are that stream, generated."""

    id: str
    language: str
    query: str
    options: dict
    events: list
    right_events: list | None
    read_options: dict
    origin: str = ""
    compares_bindings: bool = False
    stream: dict | None = None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "language": self.language, "query": self.query, "options": self.options,
                "events": self.events, "right_events": self.right_events, "read_options": self.read_options,
                "origin": self.origin, "compares_bindings": self.compares_bindings,
                "stream": self.stream}


def vector_of(case: Case) -> Vector:
    """The neutral form of a harness case."""
    records = case.records if case.records is not None else []
    events, right = (list(records[0]), list(records[1])) if isinstance(records, tuple) else (list(records), None)
    options = case.options if case.portable_options is None else case.portable_options
    compares = case.compares_bindings if case.compares_bindings is not None else case.language in BINDINGS_COMPARED
    return Vector(case.id, case.kit_language, case.query, dict(options), _plain_rows(events), _plain_rows(right),
                  dict(case.record_options), str(case.origin) if case.origin is not None else "", compares,
                  dict(case.stream) if case.stream is not None else None)


BINDINGS_COMPARED = ("sase", "window")   # the languages whose checks always read bindings (sql: per vector)


def _plain_rows(rows: list | None) -> list | None:
    """Event rows with exact values as JSON numbers (Fraction(181, 2) as 90.5; numpy scalars unwrapped)."""
    if rows is None:
        return None
    return [{k: plain(v) for k, v in r.items()} if isinstance(r, dict) else r for r in rows]
