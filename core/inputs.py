"""Event input for the engines that feed on EventBatches: a path, a pandas DataFrame, an Arrow table or record
batch, an object with the Arrow PyCapsule stream interface (`__arrow_c_stream__`: polars, DuckDB), a list of
row dicts, or an EventBatch. Reading options: core.registry.READ_OPTIONS (`input_format` is read_events'
`format`)."""
from __future__ import annotations

import os
import sys
from typing import Any, Mapping

from cepkit.core.errors import EventError, option_name
from cepkit.core.events import EventBatch
from cepkit.core.readers import from_arrow, from_pandas, read_events

READABLE = ("a path (CSV, Parquet, JSON lines), a pandas DataFrame, an Arrow table or record batch, an object "
            "with the Arrow PyCapsule stream interface (__arrow_c_stream__: a polars DataFrame, a DuckDB "
            "relation), a list of row dicts, or an EventBatch")


def _is_frame(events: Any) -> bool:
    """Whether `events` is a pandas DataFrame (without importing pandas: no frame exists before it is)."""
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(events, pd.DataFrame)


def arrow_stream(events: Any) -> Any:
    """An object with the Arrow PyCapsule stream interface (not pandas, not pyarrow's own) as a pyarrow
    Table; anything else as is."""
    if isinstance(events, (EventBatch, str, os.PathLike, list, tuple, dict)) or _is_frame(events):
        return events
    if not hasattr(type(events), "__arrow_c_stream__"):
        return events
    import pyarrow as pa

    if isinstance(events, (pa.Table, pa.RecordBatch)):
        return events
    try:
        return pa.table(events)
    except (pa.ArrowException, TypeError, ValueError) as exc:
        raise EventError(f"cannot read the Arrow stream of a {type(events).__name__}: {exc}") from None


def rows_table(rows: list) -> Any:
    """A list of row mappings as a pyarrow Table (a key a row lacks is null there), or as a pandas
    DataFrame where Arrow cannot type a column (mixed kinds, exact fractions)."""
    import pyarrow as pa

    names = list(dict.fromkeys(k for r in rows for k in r))
    try:
        return pa.table({str(k): pa.array([r.get(k) for r in rows]) for k in names})
    except (pa.ArrowException, TypeError, ValueError):
        import pandas as pd

        return pd.DataFrame({str(k): pd.Series([r.get(k) for r in rows], dtype=object) for k in names})


def tabular(events: Any) -> Any:
    """`events` in a form the readers take: a PyCapsule stream as a pyarrow Table, a list of row dicts as a
    table (rows_table); anything else as is."""
    if isinstance(events, list) and all(isinstance(r, Mapping) for r in events):
        return rows_table(events)
    return arrow_stream(events)


def to_batch(events: Any, **read_options: Any) -> EventBatch:
    """An EventBatch from anything READABLE names; EventError naming those for another input."""
    events = tabular(events)
    fmt = read_options.pop("input_format", None)
    if isinstance(events, EventBatch):
        return events
    if isinstance(events, (str, os.PathLike)):
        return read_events(events, fmt, **read_options)
    if fmt is not None:
        raise EventError(f"{option_name('input_format')} names the format of an events file, not of type "
                         f"{type(events).__name__}")
    if _is_frame(events):
        return from_pandas(events, **read_options)
    import pyarrow as pa

    if isinstance(events, (pa.Table, pa.RecordBatch)):
        return from_arrow(events, **read_options)
    raise EventError(f"cannot read events of type {type(events).__name__}: give {READABLE}")


def to_untyped_batch(events: Any, **read_options: Any) -> EventBatch:
    """As to_batch, for languages whose queries name no event type (TPStream): events without a type
    column are all of type `event`."""
    read_options.setdefault("default_type", "event")
    return to_batch(events, **read_options)
