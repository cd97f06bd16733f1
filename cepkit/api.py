"""compile() and run(): one door to every engine."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from reference.errors import QueryError
from reference.events import EventBatch
from reference.readers import from_arrow, from_pandas, read_events
from reference.match import Match


def get_engine(name: str):
    from cepkit.engines import ENGINES

    if name not in ENGINES:
        raise QueryError(f"unknown engine '{name}'", expected=list(ENGINES))
    return ENGINES[name]


def compile(query: str, engine: str = "reference", language: str = "sase", **options: Any):
    """A program for the query on the named engine (QueryError / Unsupported at compile time)."""
    return get_engine(engine).compile(query, language=language, **options)


def to_batch(events: Any, **read_options: Any) -> EventBatch:
    """An EventBatch from a batch, a pandas DataFrame, an Arrow table, or a file path."""
    if isinstance(events, EventBatch):
        return events
    if isinstance(events, pd.DataFrame):
        return from_pandas(events, **read_options)
    if isinstance(events, (str, Path)):
        return read_events(events, **read_options)
    return from_arrow(events, **read_options)


def run(query: str, events: Any, engine: str = "reference", language: str = "sase",
        read_options: dict | None = None, **options: Any) -> list[Match]:
    """All matches of the query over the events (whole stream at once)."""
    program = compile(query, engine=engine, language=language, **options)
    return program.run(to_batch(events, **(read_options or {})))
