"""What an engine outside cepkit is given and what it answers (docs/conformance.md, "Protocol")."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cepkit.conformance.harness import Case


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
    (unit of the integer `ts`; null: unitless ticks), `default_type`. `options` are the compile options
    (`selection`, `mode`, `flavor`, `sigma`). `origin` says where the expected answer comes from
    (conformance/origin.py: `trino TestRowPatternMatching.java#testSimpleQuery`, `extension ...`)."""

    id: str
    language: str
    query: str
    options: dict
    events: list
    right_events: list | None
    read_options: dict
    origin: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "language": self.language, "query": self.query, "options": self.options,
                "events": self.events, "right_events": self.right_events, "read_options": self.read_options,
                "origin": self.origin}


def vector_of(case: Case) -> Vector:
    """The neutral form of a harness case."""
    records = case.records if case.records is not None else []
    events, right = (list(records[0]), list(records[1])) if isinstance(records, tuple) else (list(records), None)
    options = case.options if case.portable_options is None else case.portable_options
    return Vector(case.id, case.language, case.query, dict(options), events, right, dict(case.record_options),
                  str(case.origin) if case.origin is not None else "")
