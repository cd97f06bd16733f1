"""Event input for the engines that feed on EventBatches: a path, a pandas DataFrame, an Arrow table."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from cepkit.core.events import EventBatch
from cepkit.core.readers import from_arrow, from_pandas, read_events
from cepkit.core.lazy_import import lazy_module

pd = lazy_module("pandas")  # imported where a column needs it (the common CSV / Parquet shapes do not)


def to_batch(events: Any, **read_options: Any) -> EventBatch:
    """An EventBatch from a batch, a pandas DataFrame, an Arrow table, or a file path (CSV, Parquet,
    JSON lines)."""
    if isinstance(events, EventBatch):
        return events
    if isinstance(events, pd.DataFrame):
        return from_pandas(events, **read_options)
    if isinstance(events, (str, Path)):
        return read_events(events, **read_options)
    return from_arrow(events, **read_options)


def to_untyped_batch(events: Any, **read_options: Any) -> EventBatch:
    """As to_batch, for languages whose queries name no event type (TPStream): events without a type
    column are all of type `event`."""
    read_options.setdefault("default_type", "event")
    return to_batch(events, **read_options)
