"""One key's step in the streaming job for MATCH_RECOGNIZE, TPStream and AFA (the function
`applyInPandasWithState` calls): the generic path's groups (cepkit.spark_jobs.generic_tasks) fed as the stream
arrives, the rows written in the format of `cepkit spark run` for the language. Plain Python and pyarrow.

- **TPStream** (exact and early output): the events are buffered until the watermark makes them final
  (cepkit.spark_jobs.stream_state's rule) and fed in (ts, id) order to the key's program, kept (pickled) in the
  state store; its feed returns the configurations it completes (early: those known at an event's time).
- **MATCH_RECOGNIZE**: its programs compute at close, so the key's final rows are kept until the watermark
  passes the last of them by the WITHIN context; no later row can then join a match with them, and one
  program over them gives their matches (semantics SP-S9).
- **AFA**: no watermark: each micro-batch's rows of the key are fed at once in arrival order (file
  modification time, file, row) to the key's AFA; its signed rows (speculative insertions and retractions)
  are written as it gives them (semantics SP-S11).
"""
from __future__ import annotations

import copy
import io
import pickle
import types
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from cepkit.core.errors import CepkitError, EventError
from cepkit.core.match_table import MatchTable
from cepkit.spark_jobs import generic_tasks as G, stream_state as ST
from cepkit.spark_jobs import tasks as T
from cepkit.core import registry

# arrival order of a file stream's rows (AFA): Spark's file metadata
ARRIVAL = ("__cepkit_mtime", "__cepkit_file", "__cepkit_row_index")
EVENT_KINDS = ("insert", "retract", "+", "-")


@dataclass(frozen=True)
class KeyedSpec:
    """What a key's step needs: the generic task spec and how the language streams."""

    spec: G.GenericSpec
    mode: str                 # "program": TPStream; "segment": MATCH_RECOGNIZE; "arrival": AFA
    context: int | None = None  # "segment": once W >= last fed + context the segment's matches are final
    delay: int = 0


def dump_program(program: Any) -> bytes:
    """A program pickled with Spark's cloudpickle (closures such as compiled fences by value), a module it
    holds (a generated kernel module) as its name and file."""
    from pyspark import cloudpickle

    class Pickler(cloudpickle.CloudPickler):
        def reducer_override(self, obj):
            if isinstance(obj, types.ModuleType):
                return ST.module_at, (obj.__name__, getattr(obj, "__file__", None))
            return super().reducer_override(obj)

    buf = io.BytesIO()
    Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(program)
    return buf.getvalue()


def load_program(data: bytes) -> Any:
    return pickle.loads(data)


_TEMPLATES: dict[tuple, Any] = {}   # per Python worker: a compiled program per query, copied for a new key


def fresh_program(spec: G.GenericSpec) -> Any:
    """A new program for the query: a copy of the worker's compiled one (compiling an AFA takes ~20 ms,
    a copy ~3 ms), or compiled where a copy fails."""
    key = (spec.lang, spec.engine, spec.query, spec.options)
    if key not in _TEMPLATES:
        _TEMPLATES[key] = registry.get_engine(spec.lang, spec.engine).compile(spec.query, **dict(spec.options))
    try:
        return copy.deepcopy(_TEMPLATES[key])
    except Exception:  # noqa: BLE001 (a program that cannot be copied is compiled anew)
        return registry.get_engine(spec.lang, spec.engine).compile(spec.query, **dict(spec.options))


class KeyGroup(G.Group):
    """A Group around the key's program from the state (or a fresh one), fed chunk by chunk."""

    def __init__(self, spec: G.GenericSpec, key: tuple, program: Any = None):
        self.spec, self.key = spec, key
        self.program = program if program is not None else fresh_program(spec)
        self.tables, self.ticks, self.ids = [], [], []


def _concat(parts: list[pa.Table | None]) -> pa.Table | None:
    parts = [t for t in parts if t is not None and t.num_rows]
    if not parts:
        return None
    return pa.concat_tables(parts, promote_options="permissive") if len(parts) > 1 else parts[0]


def _ts(table: pa.Table, col: str) -> np.ndarray:
    return table.column(col).to_numpy(zero_copy_only=False)


def step(ks: KeyedSpec, key: tuple, state: ST.KeyState, new: pa.Table | None, watermark: int
         ) -> tuple[pa.RecordBatch, ST.KeyState, int | None, int]:
    """(output rows, the state after, the timeout: the watermark past which the key must be called again or
    None, the late events' number). For "segment", `state.program` holds the segment's rows."""
    spec = ks.spec
    if ks.mode == "arrival":
        group = KeyGroup(spec, key, state.program)
        if new is not None and new.num_rows:
            new = new.sort_by([(c, "ascending") for c in ARRIVAL])
            check_event_rows(new)
            group.feed(new)
        table = MatchTable.concat(group.program.layout, group.tables)
        return _output(spec, table, key), ST.KeyState(None, group.program, ST.NO_TS), None, 0
    late = 0
    if new is not None and new.num_rows:
        on_time = _ts(new, spec.ts_col) > watermark
        late = int(len(on_time) - on_time.sum())
        if late:
            new = new.filter(pa.array(on_time))
    seen = state.max_seen
    if new is not None and new.num_rows:
        seen = max(seen, int(_ts(new, spec.ts_col).max()))
    if seen != ST.NO_TS:
        watermark = max(watermark, seen - ks.delay)  # the next micro-batch's watermark is at least this
    events = _concat([state.pending, new])
    pending, ready, last = None, None, state.last_fed
    if events is not None:
        final = _ts(events, spec.ts_col) <= watermark
        if final.any():
            ready = events.filter(pa.array(final)).sort_by([(spec.ts_col, "ascending"), (spec.id_col, "ascending")])
            last = int(_ts(ready, spec.ts_col).max())
        if not final.all():
            pending = events.filter(pa.array(~final))
    timeouts = [] if pending is None else [int(_ts(pending, spec.ts_col).min()) - 1]
    if ks.mode == "program":
        group = KeyGroup(spec, key, state.program)
        if ready is not None:
            group.feed(ready)
        table = MatchTable.concat(group.program.layout, group.tables)
        program = group.program if ready is not None or state.program is not None else None
        after = ST.KeyState(pending, program, last, seen)
        return _output(spec, table, key), after, (min(timeouts) if timeouts else None), late
    segment = _concat([state.program, ready])  # "segment"
    out = G.to_output(spec, MatchTable.empty(spec.layout))
    if segment is not None and watermark >= last + ks.context:
        group = KeyGroup(spec, key)
        group.feed(segment)
        out = group.finish()  # no later row reaches a match of these rows (module docstring)
        segment = None
    elif segment is not None:
        timeouts.append(last + ks.context - 1)
    after = ST.KeyState(pending, segment, last, seen)
    return out, after, (min(timeouts) if timeouts else None), late


def check_event_rows(rows: pa.Table) -> None:
    """EventError for an AFA control row (punctuation, arc row): it reaches every key's AFA, and the stream
    keeps no list of keys to send it to (semantics SP-S12)."""
    if "kind" not in rows.column_names:
        return
    import pyarrow.compute as pc

    kind = pc.utf8_lower(pc.utf8_trim_whitespace(rows.column("kind").cast(pa.string())))
    event = pc.fill_null(pc.is_in(kind, value_set=pa.array(EVENT_KINDS)), True)
    if not pc.all(event).as_py():
        bad = kind.filter(pc.invert(event))[0].as_py()
        raise EventError(f"the AFA stream takes insert and retract rows; a '{bad}' row reaches every key's AFA, "
                         "which the stream does not do yet (run it with cepkit spark run)", column="kind")


def _output(spec: G.GenericSpec, table: MatchTable, key: tuple) -> pa.RecordBatch:
    return G.to_output(spec, table, key[0] if spec.key_col is not None and key else None)


def call_step(ks: KeyedSpec):
    """The function for applyInPandasWithState: (key, frames, GroupState) -> output frames."""
    segment = ks.mode == "segment"

    def stateful(key, frames: Iterator[pd.DataFrame], group_state) -> Iterator[pd.DataFrame]:
        try:
            if group_state.exists:
                pending, prog, last, seen = group_state.get
                held = (ST.load_table(prog) if segment else load_program(prog)) if prog else None
                state = ST.KeyState(ST.load_table(pending), held, last, seen)
            else:
                state = ST.KeyState(None, None, ST.NO_TS)
            tables = [pa.Table.from_pandas(f.drop(columns=[ST.EVENT_TIME], errors="ignore"), preserve_index=False)
                      for f in frames if len(f)]
            new = _concat(tables)
            watermark = (int(group_state.getCurrentWatermarkMs()) - ST.OFFSET) if ks.mode != "arrival" else 0
            key = tuple(k.item() if isinstance(k, np.generic) else k for k in key)
            rows, after, timeout, late = step(ks, key, state, new, watermark)
            if after.pending is None and after.program is None:
                group_state.remove()
            else:
                held = after.program
                data = b"" if held is None else ST.dump_table(held) if segment else dump_program(held)
                group_state.update((ST.dump_table(after.pending) if after.pending is not None else b"", data,
                                    after.last_fed, after.max_seen))
                if timeout is not None:
                    group_state.setTimeoutTimestamp(max(timeout, watermark) + ST.OFFSET)
        except CepkitError as exc:
            raise T.wrap_error(exc) from None
        out = rows.to_pandas()
        out[ST.LATE_COL] = None
        if late:  # one row with the match columns null (the job counts it and filters it out)
            out = pd.concat([out, pd.DataFrame([{**{c: None for c in out.columns}, ST.LATE_COL: late}])],
                            ignore_index=True)
        yield out

    return stateful
