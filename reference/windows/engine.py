"""The windowed operators on the engine contract (core/contract.py), for window queries
(front/windows/query.py).

Input: FILTER and AGGREGATE feed on EventBatches; JOIN on two streams at once, `feed((left, right))` or
`feed({"left": left, "right": right})` (either side may be None or empty in a piece). `to_input` reads them
from what cepkit.core.inputs.to_batch reads (the registry's reader for the language).

Output (docs/semantics.md, "Windowed operators in the match table"), in the order the reference outputs
its rows, the payload being exactly the reference's output row:
- FILTER: one row per passing event; bindings {e: (id,)}, ts = the event's ts, payload = ts, id and the
  event's attributes (cepkit.reference.windows.api.filter_batch). Emitted by `feed`, batch by batch.
- AGGREGATE: one row per window; no bindings, ts = the window's timestamp (its last instant / its last
  event's ts, cepkit.front.windows.spec), payload = ts and the aggregates in the query's order (AggRow.as_dict).
  Time windows start at the first event and only closed windows count, so the table comes at `close()`.
- JOIN: one row per pair; bindings {left: (left_id,), right: (right_id,)}, ts = the probing event's ts,
  payload = ts, left_id, right_id, left_<attr>..., right_<attr>... (join_batches). Computed at `close()`.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Mapping

import numpy as np

from cepkit.core.contract import Engine, Program
from cepkit.core.errors import EventError, QueryError
from cepkit.core.events import EventBatch
from cepkit.core.match import Match
from cepkit.core.match_table import Layout
from cepkit.front.windows.query import WindowQuery
from cepkit.core.inputs import to_batch
from cepkit.reference.windows.api import aggregate_batch, filter_batch
from cepkit.reference.windows.api import join_batches

VARIABLES = {"filter": ("e",), "aggregate": (), "join": ("left", "right")}


def to_input(events: Any, **read_options: Any) -> Any:
    """An EventBatch, or for a join a (left, right) pair of EventBatches, from anything to_batch reads
    (a (left, right) tuple or a {"left", "right"} mapping of such for a join). Window queries name no event
    type: events without a type column are all of type `event`, as `cepkit run` reads them."""
    read_options.setdefault("default_type", "event")
    if isinstance(events, Mapping):
        events = (events.get("left"), events.get("right"))
    if isinstance(events, (tuple, list)) and len(events) == 2:
        return tuple(None if e is None else to_batch(e, **read_options) for e in events)
    return to_batch(events, **read_options)


def concat(batches: list[EventBatch]) -> EventBatch | None:
    """One batch of the fed pieces, in order (EventError where a piece's timestamps go back in time)."""
    given = [b for b in batches if b is not None]
    batches = [b for b in given if len(b)]
    if not batches:
        return given[0] if given else None   # an empty stream still has its columns checked
    if len(batches) == 1:
        return batches[0]
    names = list(batches[0].columns)
    for b in batches[1:]:
        if list(b.columns) != names:
            raise EventError(f"a fed batch has columns {list(b.columns)}, the first one {names}")
    for a, b in zip(batches, batches[1:]):
        if int(b.ts[0]) < int(a.ts[-1]):
            raise EventError(f"timestamps are not in order: {int(b.ts[0])} comes after {int(a.ts[-1])} "
                             "(feed the batches in time order)", row=int(b.source_rows[0]), column="ts")
    types: list[str] = []
    codes = []
    for b in batches:
        remap = np.array([_index(types, n) for n in b.type_names] or [0], dtype=np.int32)
        codes.append(remap[b.type_codes] if len(b.type_names) else b.type_codes)
    ids, offset = [], 0
    for b in batches:
        ids.append(b.ids + offset if b.positional_ids else b.ids)
        offset += len(b)
    ids_all = np.concatenate(ids) if all(i.dtype != object for i in ids) else \
        np.concatenate([i.astype(object) for i in ids])
    return EventBatch(columns={c: _cat([b.columns[c] for b in batches]) for c in names},
                      type_codes=np.concatenate(codes), type_names=tuple(types),
                      ts=np.concatenate([b.ts for b in batches]), ids=ids_all, ts_unit=batches[0].ts_unit,
                      source_rows=np.concatenate([b.source_rows for b in batches]))


def _index(names: list[str], n: str) -> int:
    if n not in names:
        names.append(n)
    return names.index(n)


def _cat(arrays: list[np.ndarray]) -> np.ndarray:
    if len({a.dtype for a in arrays}) == 1:
        return np.concatenate(arrays)
    return np.concatenate([a.astype(object) for a in arrays])


class WindowProgram(Program):
    """One window query over the fed events; the operators are the reference's (or the gpu's, in a
    subclass)."""

    engine_name = "reference"
    language = "window"

    def __init__(self, q: WindowQuery, method: str = "tree"):
        self.q = q
        self.method = method
        self.pieces: list = []          # aggregate: batches; join: (left, right) pairs
        self.seen = 0                   # filter: events fed so far (positional ids continue)
        self.payload: tuple[str, ...] | None = None

    @property
    def query(self) -> WindowQuery:
        return self.q

    @property
    def layout(self) -> Layout:
        q = self.q
        if self.payload is not None:
            payload = self.payload
        elif q.operator == "aggregate":
            payload = ("ts",) + q.funcs
        else:
            payload = ("ts", "id") if q.operator == "filter" else ("ts", "left_id", "right_id")
        return Layout(VARIABLES[q.operator], payload)

    # ------------------------------------------------------------------ the operators
    def filter_rows(self, batch: EventBatch) -> list[dict]:
        return filter_batch(batch, self.q.condition)

    def aggregate_rows(self, batch: EventBatch) -> list[dict]:
        return [r.as_dict() for r in aggregate_batch(batch, self.q.attr, self.q.window, self.q.funcs, self.method,
                                                      self.q.skip_empty)]

    def join_rows(self, left: EventBatch, right: EventBatch) -> list[dict]:
        return join_batches(left, right, self.q.condition, self.q.window, self.q.right_window, self.q.active)

    # ------------------------------------------------------------------ the contract
    def _feed(self, batch, progress=None):
        q = self.q
        if q.operator == "join":
            pair = to_input(batch) if isinstance(batch, Mapping) else batch
            if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
                raise QueryError("a JOIN program feeds on (left, right) pairs of batches or {'left', 'right'}")
            self.pieces.append(tuple(pair))
            return ()
        if not isinstance(batch, EventBatch):
            raise QueryError(f"a {q.operator.upper()} program feeds on EventBatches, not {type(batch).__name__}")
        if q.operator == "aggregate":
            self.pieces.append(batch)
            return ()
        if batch.positional_ids and self.seen:
            batch = dataclasses.replace(batch, ids=batch.ids + self.seen)
        self.seen += len(batch)
        rows = self.filter_rows(batch)
        if progress is not None:
            progress(len(batch), len(batch))
        return self._matches(rows)

    def _close(self):
        q = self.q
        if q.operator == "filter":
            self.seen = 0      # the program may read a new stream
            return ()
        if q.operator == "aggregate":
            batch = concat(self.pieces)
            self.pieces = []
            return self._matches(self.aggregate_rows(batch) if batch is not None else [])
        left = concat([p[0] for p in self.pieces])
        right = concat([p[1] for p in self.pieces])
        self.pieces = []
        if left is None or right is None:
            return ()
        return self._matches(self.join_rows(left, right))

    def _matches(self, rows: list[dict]) -> list[Match]:
        if rows:
            keys = tuple(rows[0])
            if self.payload is None or len(keys) > len(self.payload):
                self.payload = keys
        op = self.q.operator
        out = []
        for r in rows:
            if op == "filter":
                bindings = (("e", (r["id"],)),)
            elif op == "join":
                bindings = (("left", (r["left_id"],)), ("right", (r["right_id"],)))
            else:
                bindings = ()
            out.append(Match(bindings, r["ts"], tuple(r.items())))
        return out


class WindowEngine(Engine):
    """The reference windowed operators. Option method (AGGREGATE): tree (the aggregate tree, default) or
    naive (recomputation per window)."""

    name = "reference"
    language = "window"
    state_note = ("a window query keeps no partial matches: its state is the events of its open windows, "
                  "bounded by the window size")

    def build(self, q: WindowQuery, method: str = "tree") -> WindowProgram:
        if method not in ("tree", "naive"):
            raise QueryError(f"aggregation method must be 'tree' or 'naive', not {method!r}",
                             expected=["naive", "tree"])
        return WindowProgram(q, method)
