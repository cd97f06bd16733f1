"""One key's step in the streaming job (the function `applyInPandasWithState` calls): buffer the key's events
until the watermark makes them final, feed the final ones in (ts, id) order to the key's program, and keep
the program (pickled) and the buffer in Spark's state store. Plain Python, pandas and pyarrow.

Finality (docs/spark.md, "Streaming"; semantics SP-S1..SP-S3): the step drops an event whose timestamp is
at or below the micro-batch's watermark W, and W never decreases. The next micro-batch's watermark is at
least (the largest timestamp read so far) - delay, which is at least F = (the largest timestamp of this
key so far) - delay. So once a micro-batch runs with W, every buffered event with ts <= max(W, F) is final:
no event that could precede it is still to come. Those are fed, in (ts, id) order, exactly as the batch job
feeds the whole stream. Once max(W, F) >= (last fed ts) + the query's window context, no later event can join
a run or a negation of this key's program: the program is closed (its close() matches are final) and
dropped, and a later event of the key starts a new one.
"""
from __future__ import annotations

import importlib
import importlib.util
import io
import pickle
import sys
import types
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from cepkit.core.errors import CepkitError, EventError
from cepkit.core.match_table import MatchTable
from cepkit.spark_jobs import tasks as T

EVENT_TIME = "__cepkit_event_time"   # the timestamp as Spark event time: one tick = one millisecond, + OFFSET
# Spark's watermark starts at 0 ms and its timeouts must be positive: event time is ts + OFFSET milliseconds,
# so timestamps down to -OFFSET (about -139 years of milliseconds) are on time in the first micro-batch
OFFSET = 2**42
OTHER_TYPE = "__cepkit_other_type"   # every event type the query does not name
STATE_SCHEMA = "pending binary, program binary, last_fed long, max_seen long"
LATE_COL = "__cepkit_late"   # an extra output row per key and micro-batch that dropped late rows: their number
NO_TS = -(2**63)


@dataclass(frozen=True)
class StreamSpec:
    """What a key's step needs: the batch job's task spec, plus the window context (None: no window)."""

    task: T.TaskSpec
    context: int | None          # ticks: once W >= last fed + context the key's program is closed
    query_types: tuple[str, ...]  # the event types the query names (others become OTHER_TYPE)
    delay: int = 0               # the watermark delay in ticks


# ---------------------------------------------------------------------------------------------
# Programs in the state store.

class _ProgramPickler(pickle.Pickler):
    """Pickles a program; a module it holds (a generated kernel module) travels as its name and file."""

    def reducer_override(self, obj):
        if isinstance(obj, types.ModuleType):
            return module_at, (obj.__name__, getattr(obj, "__file__", None))
        return NotImplemented


def module_at(name: str, path: str | None) -> types.ModuleType:
    """The module `name`: already imported, importable, or loaded from `path` (a generated module)."""
    if name in sys.modules:
        return sys.modules[name]
    if path is None or importlib.util.find_spec(name) is not None:
        return importlib.import_module(name)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def dump_program(program: Any) -> bytes:
    buf = io.BytesIO()
    _ProgramPickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(program)
    return buf.getvalue()


def load_program(data: bytes) -> Any:
    return pickle.loads(data)


# ---------------------------------------------------------------------------------------------
# The buffer of events not yet final, as Arrow IPC bytes.

def dump_table(table: pa.Table) -> bytes:
    if table.num_rows == 0:
        return b""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def load_table(data: bytes) -> pa.Table | None:
    if not data:
        return None
    return pa.ipc.open_stream(pa.py_buffer(data)).read_all()


# ---------------------------------------------------------------------------------------------
# The step.

@dataclass
class KeyState:
    """A key's state between micro-batches."""

    pending: pa.Table | None     # events not yet final
    program: Any                 # the key's program, or None
    last_fed: int                # ts of the last event fed to the program (NO_TS: none)
    max_seen: int = NO_TS        # the largest timestamp of the key read so far


def step(spec: StreamSpec, key: tuple, state: KeyState, new: pa.Table | None, watermark: int
         ) -> tuple[MatchTable | list, KeyState, int | None, int]:
    """Drop the new events at or below `watermark` (late: an event they might precede was fed already) and
    feed what `watermark` makes final; return (final matches, the state after, the timeout: the watermark
    value past which the key must be called again, None when nothing waits for the watermark; the late
    events' number)."""
    task = spec.task
    late = 0
    if new is not None and new.num_rows:
        on_time = new.column(task.ts_col).to_numpy(zero_copy_only=False) > watermark
        late = int(len(on_time) - on_time.sum())
        if late:
            new = new.filter(pa.array(on_time))
    parts = [t for t in (state.pending, new) if t is not None and t.num_rows]
    events = pa.concat_tables(parts, promote_options="permissive") if len(parts) > 1 else parts[0] if parts else None
    found: list[MatchTable] = []   # the engine's tables, turned into rows column by column
    program, last, seen = state.program, state.last_fed, state.max_seen
    if new is not None and new.num_rows:
        seen = max(seen, int(new.column(task.ts_col).to_numpy(zero_copy_only=False).max()))
    if seen != NO_TS:
        watermark = max(watermark, seen - spec.delay)  # the next micro-batch's watermark is at least this
    pending = None
    if events is not None:
        ts = events.column(task.ts_col).to_numpy(zero_copy_only=False)
        final = ts <= watermark
        if final.any():
            ready = events.filter(pa.array(final))
            ready = ready.sort_by([(task.ts_col, "ascending"), (task.id_col, "ascending")])
            runner = T.GroupRunner(task, key, program)
            runner.feed(typed_events(spec, ready))
            found += runner.tables
            program, last = runner.program, int(ts[final].max())
        if not final.all():
            pending = events.filter(pa.array(~final))
    if program is not None and spec.context is not None and watermark >= last + spec.context:
        found.append(program.close())  # no later event reaches this program's runs (module docstring)
        program = None
    timeouts = []
    if pending is not None:
        timeouts.append(int(pending.column(task.ts_col).to_numpy(zero_copy_only=False).min()) - 1)
    if program is not None and spec.context is not None:
        timeouts.append(last + spec.context - 1)
    matches = MatchTable.concat(found[0].layout, found) if found else []
    return matches, KeyState(pending, program, last, seen), (min(timeouts) if timeouts else None), late


def typed_events(spec: StreamSpec, table: pa.Table) -> pa.Table:
    """The events with every type the query does not name read as OTHER_TYPE (the stream's type dictionary
    is the query's types: semantics SP-S4)."""
    col = spec.task.type_col
    if col is None:
        return table
    import pyarrow.compute as pc

    types_ = table.column(col).cast(pa.string())
    if types_.null_count:
        raise EventError("an event has no type", column=col)
    known = pc.is_in(types_, value_set=pa.array(spec.query_types, pa.string()))
    return table.set_column(table.column_names.index(col), col, pc.if_else(known, types_, OTHER_TYPE))


def call_step(spec: StreamSpec):
    """The function for applyInPandasWithState: (key, frames, GroupState) -> output frames."""

    def stateful(key, frames: Iterator[pd.DataFrame], group_state) -> Iterator[pd.DataFrame]:
        try:
            if group_state.exists:
                pending, prog, last, seen = group_state.get
                state = KeyState(load_table(pending), load_program(prog) if prog else None, last, seen)
            else:
                state = KeyState(None, None, NO_TS)
            tables = [pa.Table.from_pandas(f.drop(columns=[EVENT_TIME]), preserve_index=False)
                      for f in frames if len(f)]
            new = pa.concat_tables(tables, promote_options="permissive") if tables else None
            watermark = int(group_state.getCurrentWatermarkMs()) - OFFSET
            key = tuple(k.item() if isinstance(k, np.generic) else k for k in key)
            matches, after, timeout, late = step(spec, key, state, new, watermark)
            if after.pending is None and after.program is None:
                group_state.remove()
            else:
                group_state.update((dump_table(after.pending) if after.pending is not None else b"",
                                    dump_program(after.program) if after.program is not None else b"",
                                    after.last_fed, after.max_seen))
                if timeout is not None:  # none: a program without a window, kept until the key's next events
                    group_state.setTimeoutTimestamp(max(timeout, watermark) + OFFSET)
        except CepkitError as exc:
            raise T.wrap_error(exc) from None
        out = T.matches_to_arrow(spec.task, matches).to_pandas()
        out[LATE_COL] = None
        if late:  # one row with the match columns null (the job counts it and filters it out)
            out = pd.concat([out, pd.DataFrame([{**{c: None for c in out.columns}, LATE_COL: late}])],
                            ignore_index=True)
        yield out

    return stateful
