"""MATCH_RECOGNIZE `ALL MATCHES` queries with the matching on an OpenCL device.

Parsing, partitioning, ordering, MEASURES and the output table are the reference's (cepkit.reference.sql.run):
the device finds each partition's matches (rows and variables), and the host evaluates the MEASURES of
each match with the reference evaluator (per match, not per event).
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import numpy as np

from cepkit.gpu.columns import device_columns
from cepkit.gpu.pattern import LAUNCH, DevicePatternMatcher
from cepkit.gpu.pattern_plan import PatternPlan, plan
from cepkit.core.errors import EventError
from cepkit.front.sql import ast as S
from cepkit.reference.sql.run import SOURCE_ROW, Table, bind_columns, run_rows as reference_run_rows, within_ticks
from cepkit.gpu.device import runtime
from cepkit.front.sql.parse import parse
from cepkit.front.sql.table import numeric_columns
from cepkit.reference.sql.run import batch_rows

BATCH = 4096   # rows per device batch (one host synchronisation per batch)
_I64 = (-(1 << 63) + 1, (1 << 63) - 1)


def compile_query(q: S.MatchRecognize | str, columns: Sequence[str]) -> tuple[S.MatchRecognize, PatternPlan]:
    """The bound query and its device plan; QueryError / Unsupported (by construct) at compile time."""

    q = bind_columns(parse(q) if isinstance(q, str) else q, list(columns))
    return q, plan(q)


class DeviceAllMatches:
    """The `all_matches` hook of cepkit.reference.sql.run.run_rows: every partition matched on the device. Built
    from a plan (so the query was checked at compile time); the plan is re-derived from the bound query."""

    def __init__(self, p: PatternPlan, device: str | None = None, batch: int = BATCH,
                 caps: tuple[int, int, int] | None = None, launch: str = LAUNCH,
                 state: Callable[[int, Callable[[], str]], None] | None = None, limit: int | None = None):
        """`caps`: initial capacities of the partial-match, node and match arrays (they grow as needed);
        `launch`: "batch" or "event" (DevicePatternMatcher); `state(live, variable)`: Budget.check_state,
        told the partial matches plus the matches held (ResourceLimit past the run's bound); `limit`: only
        the first `limit` matches are wanted (no later partition is matched once they are found)."""
        self.device, self.batch, self.caps, self.launch = device, batch, caps or (), launch
        self.state, self.limit = state, limit
        self.kernel_s = 0.0

    def __call__(self, q: S.MatchRecognize, partitions: Sequence[Sequence[Mapping[str, Any]]],
                 ts_unit: str | None) -> list[list]:

        p = plan(q)  # q as bound to the table by run_rows (exact column names)
        rows = [r for prows in partitions for r in prows]
        names = list(p.columns)
        computed = numeric_columns([d.cond for d in q.define])   # float64 columns arithmetic reads: exact decimals too
        cols = dict(zip(names, device_columns([_raw(rows, c) for c in names], ", ".join(names), "gpu",
                                              [c in computed for c in names]))) if names else {}
        within = within_ticks(q, ts_unit)
        key, keyn = _keys(q, rows) if within is not None else (np.zeros(len(rows), np.int64),
                                                                np.ones(len(rows), np.int8))
        strict = q.conventions.window_bound == "strict"
        matcher = DevicePatternMatcher(runtime(self.device), p, cols,
                                       None if within is None else (within, strict), *self.caps,
                                       launch=self.launch)
        out, start, found = [], 0, 0
        check = None
        if self.state is not None:
            state, grown = self.state, _grown(q.pattern)
            check = lambda live: state(found + live, grown)   # noqa: E731
        for prows in partitions:
            want = None if self.limit is None else self.limit - found
            if want is not None and want <= 0:
                out.append([])
                continue
            idx = np.arange(start, start + len(prows))
            part = {c: dc.take(idx) for c, dc in cols.items()}
            out.append(matcher.run(part, key[idx], keyn[idx], self.batch, check, want))
            found += len(out[-1])
            start += len(prows)
        self.kernel_s += matcher.kernel_s
        return out


def _grown(p: S.Pattern) -> Callable[[], str]:
    """The variable named when the partial matches pass the bound: the first one with `*` or `+` (a
    concatenation of variables is all the device plan takes), else the last."""
    items = p.items if isinstance(p, S.PConcat) else (p,)
    quantified = [i.item.name for i in items if isinstance(i, S.PQuant) and isinstance(i.item, S.PVar)]
    names = quantified or [i.name for i in items if isinstance(i, S.PVar)] or ["?"]
    return lambda: names[0] if quantified else names[-1]


def _raw(rows: Sequence[Mapping[str, Any]], col: str) -> np.ndarray:
    out = np.empty(len(rows), dtype=object)
    out[:] = [r.get(col) for r in rows]
    return out


def _keys(q: S.MatchRecognize, rows: Sequence[Mapping[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    """The first ORDER BY key of every row, negated when descending (ascending in each partition)."""
    col = q.order_by[0].col.col
    sign = -1 if q.order_by[0].descending else 1
    key = np.zeros(len(rows), np.int64)
    keyn = np.zeros(len(rows), np.int8)
    for i, r in enumerate(rows):
        v = r.get(col)
        if v is None:
            keyn[i] = 1
        elif isinstance(v, str):
            raise EventError(f"WITHIN needs a numeric ORDER BY column, '{col}' holds {v!r}", column=col)
        elif isinstance(v, bool) or not isinstance(v, int) or not _I64[0] <= v <= _I64[1]:
            raise EventError(f"the gpu engine needs int64 integer ORDER BY keys for WITHIN, got {v!r}",
                             row=r.get(SOURCE_ROW, i + 1), column=col)
        else:
            key[i] = sign * v
    return key, keyn


def run_rows(q: S.MatchRecognize | str, columns: Sequence[str], rows: Sequence[Mapping[str, Any]],
             ts_unit: str | None = None, device: str | None = None, batch: int = BATCH,
             launch: str = LAUNCH, state: Callable[[int, Callable[[], str]], None] | None = None,
             limit: int | None = None) -> Table:
    """cepkit.reference.sql.run.run_rows with the matching on the device (`device` as for --device; `launch` as
    for DevicePatternMatcher; `state`, `limit` as for DeviceAllMatches)."""
    bound, p = compile_query(q, columns)
    return reference_run_rows(bound, columns, rows, ts_unit, limit=limit,
                              all_matches=DeviceAllMatches(p, device, batch, launch=launch, state=state,
                                                           limit=limit))


def run_query(q: S.MatchRecognize | str, batch, device: str | None = None) -> Table:
    """cepkit.reference.sql.run.run_query on the device: an EventBatch's ts, id and columns are the table."""

    columns, rows = batch_rows(batch)
    return run_rows(q, columns, rows, batch.ts_unit, device)


__all__ = ["DeviceAllMatches", "compile_query", "run_query", "run_rows"]
