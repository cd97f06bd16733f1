"""A TPStream query bound to an event batch: condition tests, durations in ticks, attribute values, partitions."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from cepkit.core.errors import EventError, QueryError
from cepkit.front.evaluate import Env, evaluate, truth
from cepkit.core.events import EventBatch
from cepkit.front.language.ast import TPSTREAM_CONVENTIONS
from cepkit.front.tpstream.order import towards
from cepkit.front.tpstream.query import Amount, SituationDef, TPQuery
from cepkit.front.tpstream.reads import check_columns, value_reader, window_ticks


@dataclass(frozen=True)
class Stream:
    """One compiled situation definition: its condition per event and its inclusive duration range."""

    name: str
    test: Callable[[int], bool]
    dmin: Amount = 0
    dmax: Amount | None = None

    def duration_ok(self, d: Amount) -> bool:
        return d >= self.dmin and (self.dmax is None or d <= self.dmax)


@dataclass(frozen=True)
class Plan:
    """The pattern over streams 0..n-1 (PATTERN order): constraints `(i, relations, j)` meaning S_i R S_j."""

    streams: tuple[Stream, ...]
    constraints: tuple[tuple[int, frozenset[str], int], ...]
    window: Amount
    value: Callable[[int, str], Any]
    returns: tuple[tuple[str, str, int, str], ...]  # (output name, func, stream, attr)

    def towards(self, known: int, other: int) -> list[frozenset[str]]:
        """Every constraint between two streams, as relation sets R with `S_known R S_other`."""
        return towards(self.constraints, known, other)


def compile_stream(d: SituationDef, batch: EventBatch, value: Callable[[int, str], Any],
                   null_logic: str = TPSTREAM_CONVENTIONS.null_logic) -> Stream:
    cond, name = d.condition, d.name

    def test(pos: int) -> bool:
        return truth(evaluate(cond, Env({"": (pos,), name: (pos,)}, value, null_logic=null_logic)))

    dmin = d.at_least.ticks(batch.ts_unit) if d.at_least is not None else 0
    dmax = d.at_most.ticks(batch.ts_unit) if d.at_most is not None else None
    return Stream(name, test, dmin, dmax)


def compile_plan(q: TPQuery, batch: EventBatch) -> Plan:
    """Bind the query to the batch's columns and timestamp unit (QueryError / EventError on mismatch)."""
    try:
        window = window_ticks(q.within.ticks(batch.ts_unit), q.conventions.window_bound)
    except QueryError:
        if len(batch) or batch.ts_unit is not None:
            raise
        window = 0  # no events (a header-only file): no duration to bind, nothing to match (issue 14)
    names = q.streams
    defs = [q.definition(n) for n in names]
    extra = [(r.attr, r.func in ("sum", "avg"), f"{r.func.upper()}({r.situation}.{r.attr})") for r in q.returns]
    extra += [(a, False, "PARTITION BY") for a in q.partition_by]
    check_columns(batch, defs, extra)
    value = value_reader(batch)
    streams = tuple(compile_stream(d, batch, value, q.conventions.null_logic) for d in defs)
    index = {n: i for i, n in enumerate(names)}
    constraints = tuple((index[c.left], c.relations, index[c.right]) for c in q.pattern)
    returns = tuple((r.name, r.func, index[r.situation], r.attr) for r in q.returns)
    return Plan(streams, constraints, window, value, returns)


def partitions(batch: EventBatch, attrs: Sequence[str]) -> list[tuple[tuple, np.ndarray]]:
    """(key, batch positions) per partition in order of first event; EventError on a repeated timestamp."""
    value = value_reader(batch)
    groups: dict[tuple, list[int]] = {}
    for pos in range(len(batch)):
        key = tuple(value(pos, a) for a in attrs)
        groups.setdefault(key, []).append(pos)
    out = []
    for key, positions in groups.items():
        arr = np.asarray(positions, dtype=np.int64)
        ts = batch.ts[arr]
        same = np.flatnonzero(ts[1:] == ts[:-1])
        if same.size:
            i = int(arr[same[0] + 1])
            where = f" in partition {dict(zip(attrs, key))}" if attrs else ""
            raise EventError(f"two events share timestamp {int(batch.ts[i])}{where}; TPStream needs distinct "
                             "timestamps per partition (a situation needs ts < te)",
                             row=int(batch.source_rows[i]), column="ts")
        out.append((key, arr))
    return out
