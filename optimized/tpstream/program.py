"""The optimized TPStream program (exact and early output): per feed, conditions over the batch in NumPy, situations
derived in one Numba scan in partition order, the new situations matched in Numba against the buffered
ones, and the completed configurations handed over as a MatchTable built from arrays.

Rows are those of reference/tpstream/engine.py (docs/semantics.md T8): each situation's event ids, ts =
detected = the largest end time, then the PARTITION BY values, NAME.start / NAME.end, the RETURN values.
A configuration is final when its last situation ends, so `feed` returns it then; `close` has nothing
left (a run still open at the end of the stream is no situation). Carried across feeds: each
partition's tail of events from its earliest open run, the situations that a later one may still join
(purged by WITHIN), their event ids and RETURN values.

Early output (mode "early", optimized/tpstream/early.py): each feed reports the configurations whose
detection time is one of its events' times (knowledge at t needs no later event), members still open
then taken from the tail as their events up to t with a null NAME.end; `close` has nothing left either.
"""
from __future__ import annotations

import math

import numpy as np
import pyarrow as pa

from cepkit.optimized.tpstream import conditions
from cepkit.optimized.tpstream.aggregates import Column, per_situation
from cepkit.optimized.tpstream.columns import numeric, raw
from cepkit.optimized.tpstream.allen_nb import relation_mask
from cepkit.optimized.tpstream.derive import S_A, S_B, S_PID, S_STREAM, S_TE, S_TS, derive, repeated_time
from cepkit.optimized.tpstream.early import early_match
from cepkit.optimized.tpstream.matcher import Steps, match
from cepkit.optimized.tpstream.partitions import Partitions, latest, stable_order
from cepkit.optimized.tpstream.situations import Situations, spans
from cepkit.core.contract import Program
from cepkit.core.errors import EventError, Unsupported
from cepkit.core.events import EventBatch, exact
from cepkit.core.match import Match, plain
from cepkit.core.match_table import Layout, MatchTable, decode, encode
from cepkit.front.tpstream.detection import triggers
from cepkit.front.tpstream.query import TPQuery
from cepkit.front.tpstream.reads import check_columns, window_ticks

ENGINE = "optimized"
LIMIT = 1 << 62   # durations and windows at or beyond this bound nothing


class OptimizedTPStreamProgram(Program):
    """A TPStream query over EventBatches, matches returned by the feed that completes them."""

    engine_name = ENGINE
    language = "tpstream"

    def __init__(self, query: TPQuery, mode: str = "exact"):
        self.query = query
        self.mode = mode
        self.names = query.streams
        self.defs = [query.definition(n) for n in self.names]
        for d in self.defs:
            conditions.check(d, query.conventions.null_logic)
        index = {n: i for i, n in enumerate(self.names)}
        constraints = [(index[c.left], c.relations, index[c.right]) for c in query.pattern]
        self.steps = Steps(len(self.names), constraints)
        self.constraints = constraints
        self.pattern = np.asarray([(i, relation_mask(r), j) for i, r, j in constraints], np.int64).reshape(-1, 3)
        self.returns = [(r.name, r.func, index[r.situation], r.attr) for r in query.returns]
        self.value_attrs = list(dict.fromkeys(r[3] for r in self.returns))
        payload = list(query.partition_by)
        for n in self.names:
            payload += [f"{n}.start", f"{n}.end"]
        payload += [r.name for r in query.returns]
        self._layout = Layout(variables=tuple(self.names), payload=tuple(payload), detection=True)
        self.parts = Partitions(tuple(query.partition_by))
        self.sits = Situations(len(self.returns))
        self.last_ts = np.zeros(0, np.int64)   # per partition: its latest event time
        self.tail: dict | None = None          # events of runs still open, per partition (working form)
        self.bound = False
        self.ts_unit: str | None = None
        self.prev_ts: int | None = None
        self.events = 0
        self.closed = False
        self.id_values: list[np.ndarray] | None = None   # ids that are no integers, by running number
        self.id_count = 0

    @property
    def layout(self) -> Layout:
        return self._layout

    # ------------------------------------------------------------------ binding to the stream
    def _bind(self, batch: EventBatch) -> None:
        q = self.query
        self.ts_unit = batch.ts_unit
        self.window = _whole(window_ticks(q.within.ticks(batch.ts_unit), q.conventions.window_bound), math.floor)
        self.dmin = np.array([_whole(d.at_least.ticks(batch.ts_unit), math.ceil) if d.at_least is not None else 0
                              for d in self.defs], np.int64)
        self.dmax = np.array([_whole(d.at_most.ticks(batch.ts_unit), math.floor) if d.at_most is not None else LIMIT
                              for d in self.defs], np.int64)
        self.bounded = np.array([d.at_most is not None for d in self.defs], np.bool_)
        on_start, on_end = triggers([int(x) > 0 for x in self.dmin], self.bounded.tolist(), self.constraints)
        self.on_start, self.on_end = np.array(on_start, np.bool_), np.array(on_end, np.bool_)
        self.bound = True

    def _check(self, batch: EventBatch) -> EventBatch:
        if self.closed:
            raise EventError("the TPStream program is closed: feed comes before close")
        if not isinstance(batch, EventBatch):
            raise EventError(f"a TPStream program feeds on EventBatches (cepkit.core.inputs.to_batch), "
                             f"not {type(batch).__name__}")
        if self.bound and self.ts_unit != batch.ts_unit:
            raise EventError(f"the batches' timestamp units differ ({self.ts_unit} then {batch.ts_unit})", column="ts")
        if self.prev_ts is not None and int(batch.ts[0]) < self.prev_ts:
            raise EventError(f"timestamp {int(batch.ts[0])} goes back in time (the previous batch ended at "
                             f"{self.prev_ts})", row=int(batch.source_rows[0]), column="ts")
        if batch.positional_ids and self.events:
            from dataclasses import replace
            batch = replace(batch, ids=batch.ids + self.events, source_rows=batch.source_rows + self.events)
        return batch

    # ------------------------------------------------------------------ one batch
    def _feed(self, batch: EventBatch, progress=None) -> MatchTable:
        if len(batch) == 0 and not self.closed and isinstance(batch, EventBatch):
            return MatchTable.empty(self.layout)
        batch = self._check(batch)
        if not self.bound:
            self._bind(batch)
        q = self.query
        extra = [(r.attr, r.func in ("sum", "avg"), f"{r.func.upper()}({r.situation}.{r.attr})") for r in q.returns]
        extra += [(a, False, "PARTITION BY") for a in q.partition_by]
        check_columns(batch, self.defs, extra)
        pid = self.parts.number(batch)
        parts = len(self.parts)
        if len(self.last_ts) < parts:
            self.last_ts = np.concatenate([self.last_ts, np.full(parts - len(self.last_ts), np.iinfo(np.int64).min)])
        ts = batch.ts.astype(np.int64, copy=False)
        rows = batch.source_rows.astype(np.int64, copy=False)
        old = self.tail if self.tail is not None else {"pid": pid[:0], "ts": ts[:0], "rows": rows[:0],
                                                        "old": np.zeros(0, np.bool_)}
        fresh = np.zeros(len(batch), np.bool_)
        w = {k: np.concatenate([old[k], v]) for k, v in (("pid", pid), ("ts", ts), ("rows", rows), ("old", fresh))}
        order = stable_order(w["pid"], parts)
        self._distinct_times(order, w)   # before conditions are evaluated, as the reference does
        masks = np.empty((len(batch), len(self.defs)), np.uint8)
        for i, d in enumerate(self.defs):
            masks[:, i] = conditions.mask(d, batch, q.conventions.null_logic)
        new = {"ids": self._id_keys(batch), "masks": masks, "values": [_values(batch, a) for a in self.value_attrs]}
        w.update(_concat(self.tail, new) if self.tail is not None else new)
        found, keep = derive(order, w["pid"], w["ts"], w["old"], w["masks"], self.dmin, self.dmax)
        events = order[spans(found[:, S_A], found[:, S_B])]
        first = self.sits.add(found[:, [S_STREAM, S_PID, S_TS, S_TE]], w["ids"][events], found[:, S_B] - found[:, S_A],
                              self._aggregates(found, order, w))
        if self.mode == "early":
            table = self._early(found, first, order, w)
        else:
            table = self._table(self._match(np.arange(first, first + len(found), dtype=np.int64)))
        latest(self.last_ts, pid, ts)
        self.prev_ts = int(batch.ts[-1])
        self.events += len(batch)
        tail = _take(w, order[keep])
        tail["old"] = np.ones(len(tail["ts"]), np.bool_)
        self.tail = tail
        self.sits.purge(self.last_ts, self.window)
        if progress is not None:
            progress(self.events, self.events)
        return table

    def _close(self) -> MatchTable:
        self.closed = True
        self.tail = None
        return MatchTable.empty(self.layout)

    # ------------------------------------------------------------------ pieces
    def _id_keys(self, batch: EventBatch) -> np.ndarray:
        """int64 keys for the batch's ids: the ids themselves when integers, else running numbers."""
        ids = batch.ids
        if ids.dtype.kind in "iu" and self.id_values is None:
            return ids.astype(np.int64, copy=False)
        if self.id_values is None:
            if self.events:
                raise Unsupported(ENGINE, "event ids of several kinds across batches (integers, then text)")
            self.id_values = []
        self.id_values.append(np.asarray([plain(v) for v in ids.tolist()], dtype=object))
        keys = np.arange(self.id_count, self.id_count + len(ids), dtype=np.int64)
        self.id_count += len(ids)
        return keys

    def _distinct_times(self, order: np.ndarray, w: dict) -> None:
        """EventError at an event sharing its timestamp with the previous event of its partition (in this
        batch or the last one of an earlier feed), the first in partition order."""
        i = repeated_time(order, w["pid"], w["ts"], w["old"], self.last_ts)
        if i >= 0:
            key = self.parts.keys[int(w["pid"][i])]
            where = f" in partition {dict(zip(self.query.partition_by, key))}" if self.query.partition_by else ""
            raise EventError(f"two events share timestamp {int(w['ts'][i])}{where}; TPStream needs distinct "
                             "timestamps per partition (a situation needs ts < te)", row=int(w["rows"][i]),
                             column="ts")

    def _aggregates(self, found: np.ndarray, order: np.ndarray, w: dict) -> list[Column]:
        cols = []
        for _name, func, stream, attr in self.returns:
            sel = found[:, S_STREAM] == stream
            a, b = found[sel, S_A], found[sel, S_B]
            part = per_situation(func, w["values"][self.value_attrs.index(attr)], order, a, b, w["rows"])
            cols.append((sel, part))
        return cols

    def _buffers(self):
        """The situations sorted by (stream, partition, ts): (parts, seg, ts, te, index), see matcher.match."""
        s = self.sits
        parts = max(len(self.parts), 1)
        key = s.stream * parts + s.pid
        order = np.lexsort((s.ts, key))
        seg = np.searchsorted(key[order], np.arange(len(self.names) * parts + 1, dtype=np.int64))
        return parts, seg, s.ts[order], s.te[order], order.astype(np.int64)

    def _match(self, new: np.ndarray) -> np.ndarray:
        s = self.sits
        if not len(new):
            return np.zeros((0, len(self.names)), np.int64)
        parts, seg, ts_s, te_s, idx_s = self._buffers()
        return match(new, s.stream, s.pid, s.ts, s.te, seg, ts_s, te_s, idx_s, parts, self.window,
                     self.steps.stream, self.steps.begin, self.steps.end, self.steps.cons, len(self.names))

    def _early(self, found: np.ndarray, first: int, order: np.ndarray, w: dict) -> MatchTable:
        """The early-output rows detected at this feed's events (optimized/tpstream/early.py)."""
        s = self.sits
        parts, seg, ts_s, te_s, idx_s = self._buffers()
        rows, det, pid, rec = early_match(
            order, w["pid"], w["ts"], w["old"], w["masks"], self.dmin, self.bounded, self.on_start, self.on_end,
            self.last_ts, np.ascontiguousarray(found[:, S_B]), np.ascontiguousarray(found[:, S_STREAM]), first,
            s.ts, s.te, seg, ts_s, te_s, idx_s, parts, self.window, self.steps.stream, self.steps.begin,
            self.steps.end, self.steps.cons, self.pattern)
        if not len(rows):
            return MatchTable.empty(self.layout)
        starts = [_pick(rows[:, k] >= 0, rows[:, k], s.ts, rec[:, 3]) for k in reversed(range(len(self.names)))]
        by = np.lexsort(starts + [pid, det])   # the reference's order, as in _table
        rows, det, pid = rows[by], det[by], pid[by]
        length = rec[:, 1] - rec[:, 0]
        pool = np.concatenate([s.pool, w["ids"][order[spans(rec[:, 0], rec[:, 1])]]])
        rec_off = len(s.pool) + np.cumsum(length) - length
        bindings, items = {}, [self._partition_column(pid, k) for k in range(len(self.query.partition_by))]
        ended = rows >= 0
        for k, name in enumerate(self.names):
            fin, code = ended[:, k], rows[:, k]
            n = _pick(fin, code, s.length, length)
            begin = _pick(fin, code, s.off, rec_off)
            offsets = np.zeros(len(rows) + 1, np.int64)
            np.cumsum(n, out=offsets[1:])
            keys = pool[spans(begin, begin + n)]
            bindings[name] = (offsets, keys if self.id_values is None else _objects(self.id_values, keys))
            items += [_pick(fin, code, s.ts, rec[:, 3]), pa.array(_pick(fin, code, s.te, rec[:, 3]), pa.int64(),
                                                                mask=~fin)]
        for j, (_name, func, stream, attr) in enumerate(self.returns):
            sel = rec[:, 2] == stream
            live = per_situation(func, w["values"][self.value_attrs.index(attr)], order, rec[sel, 0], rec[sel, 1],
                                 w["rows"])
            idx = _pick(ended[:, stream], rows[:, stream], np.arange(len(s)), len(s) + np.cumsum(sel) - 1)
            items.append(Column.concat([s.values[j], live]).take(idx).arrow())
        return self._assemble(bindings, det, items)

    def _table(self, rows: np.ndarray) -> MatchTable:
        if not len(rows):
            return MatchTable.empty(self.layout)
        s = self.sits
        # the reference's order (reference/tpstream/run.py): by ts, partition (in order of its first event),
        # then the situations' starts
        keys = [s.ts[rows[:, k]] for k in reversed(range(len(self.names)))]
        rows = rows[np.lexsort(keys + [s.pid[rows[:, 0]], s.te[rows].max(axis=1)])]
        bindings = {}
        for k, name in enumerate(self.names):
            offsets, keys = s.event_keys(rows[:, k])
            bindings[name] = (offsets, keys if self.id_values is None else _objects(self.id_values, keys))
        te = s.te[rows]
        ts = te.max(axis=1)
        pid = s.pid[rows[:, 0]]
        items = [self._partition_column(pid, k) for k in range(len(self.query.partition_by))]
        for k in range(len(self.names)):
            items += [s.ts[rows[:, k]], te[:, k]]
        items += [s.values[j].take(rows[:, stream]).arrow() for j, (_n, _f, stream, _a) in enumerate(self.returns)]
        return self._assemble(bindings, ts, items)

    def _assemble(self, bindings: dict, ts: np.ndarray, items: list) -> MatchTable:
        if len(set(self.layout.payload)) == len(items):
            return MatchTable.from_columns(self.layout, bindings, ts, dict(zip(self.layout.payload, items)), detected=ts)
        # a RETURN name repeats a PARTITION BY attribute: Match rows keep both (Arrow columns need distinct names)
        return MatchTable.from_matches(self.layout, _rows(self.layout, bindings, ts, items))

    def _partition_column(self, pid: np.ndarray, k: int):
        distinct, inverse = np.unique(pid, return_inverse=True)
        arr, kind = encode([self.parts.keys[int(p)][k] for p in distinct])
        if kind is None or kind == "fraction":
            return arr.take(pa.array(inverse.reshape(-1).astype(np.int64)))
        values = [self.parts.keys[int(p)][k] for p in distinct]
        return [values[i] for i in inverse.reshape(-1).tolist()]


def _rows(layout: Layout, bindings: dict, ts: np.ndarray, items: list) -> list[Match]:
    """Match rows from the columns (the payload's names are not distinct)."""
    ids = {v: (off.tolist(), vals.tolist()) for v, (off, vals) in bindings.items()}
    cols = []
    for col in items:
        if isinstance(col, (pa.Array, np.ndarray)):
            arr, kind = encode(col)
            col = decode(arr, kind.encode() if kind else None)
        cols.append(col)
    out = []
    for r, t in enumerate(ts.tolist()):
        b = tuple((v, tuple(vals[off[r]:off[r + 1]])) for v, (off, vals) in ids.items())
        out.append(Match(b, t, tuple((p, cols[j][r]) for j, p in enumerate(layout.payload)), detected=t))
    return out


def _pick(fin: np.ndarray, code: np.ndarray, situation: np.ndarray, run: np.ndarray) -> np.ndarray:
    """Per row: situation[code] where the member ended (fin), else run[r] for open-run record r = -1 - code."""
    out = np.empty(len(code), np.int64)
    out[fin] = situation[code[fin]]
    out[~fin] = run[-1 - code[~fin]]
    return out


def _whole(amount, rounding) -> int:
    """A duration in ticks as a whole number of ticks for integer spans (bounded to LIMIT)."""
    v = rounding(amount)
    return int(max(min(v, LIMIT), -LIMIT))


def _values(batch: EventBatch, attr: str):
    """The working form of a RETURN attribute: (n, d, null) arrays for exact numbers, else exact values."""
    cells = raw(batch, attr)
    v = numeric(cells)
    if v is not None and not v.boolean:
        n = len(cells)
        return (v.n, np.ones(n, np.int64) if v.d is None else v.d,
                np.zeros(n, np.bool_) if v.null is None else v.null)
    if attr not in batch.columns and attr == "id":
        return np.asarray([plain(x) for x in cells.tolist()] + [None], dtype=object)[:-1]
    return np.asarray([exact(x) for x in cells.tolist()] + [None], dtype=object)[:-1]


def _python(values) -> np.ndarray:
    if not isinstance(values, tuple):
        return values
    return np.asarray(Column(*values).python() + [None], dtype=object)[:-1]


def _concat(a: dict, b: dict) -> dict:
    """The carried tail's ids, masks and RETURN values followed by the batch's."""
    out = {k: np.concatenate([a[k], b[k]]) for k in ("ids", "masks")}
    vals = []
    for x, y in zip(a["values"], b["values"]):
        if isinstance(x, tuple) and isinstance(y, tuple):
            vals.append(tuple(np.concatenate([p, q]) for p, q in zip(x, y)))
        else:
            vals.append(np.concatenate([_python(x), _python(y)]))
    out["values"] = vals
    return out


def _take(w: dict, idx: np.ndarray) -> dict:
    out = {k: w[k][idx] for k in ("pid", "ts", "ids", "rows", "masks", "old")}
    out["values"] = [tuple(p[idx] for p in v) if isinstance(v, tuple) else v[idx] for v in w["values"]]
    return out


def _objects(chunks: list[np.ndarray], keys: np.ndarray) -> np.ndarray:
    flat = np.concatenate(chunks) if len(chunks) > 1 else chunks[0]
    if len(chunks) > 1:
        chunks[:] = [flat]
    return flat[keys]

