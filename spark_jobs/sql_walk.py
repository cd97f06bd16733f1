"""MATCH_RECOGNIZE (ONE ROW / ALL ROWS PER MATCH) with WITHIN and no PARTITION BY, by time slices: AFTER MATCH
SKIP's walk over the match at every start row, split into slices (docs/spark.md "MATCH_RECOGNIZE by time
slices"). Plain NumPy, testable without Spark.

- Phase 1 (`transfers`, per slice): the matches at the slice's start rows (cepkit.front.sql.starts.Starts,
  from rows of the slice and WITHIN after it); for each match a walk can enter the slice by (those starting
  in the first WITHIN of the slice, and the first one after), where the walk leaves the slice, how many
  matches it outputs there and how far they cover.
- The driver (`entries`): walks the slices in order over those tables: each slice's entry match, the number
  of matches before it and the rows covered before it.
- Phase 2 (`slice_walk`, per slice): the walk from that entry, numbered from there, with the unmatched rows.

A position is a key (tick, k): the row's first ORDER BY key as a tick and its rank among the rows of that
tick in the query's order. Rows of one tick are in the same slices, so every task ranks them alike.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from cepkit.front.sql.starts import Starts, Walk, raise_skip

NO_ERROR = 0
# phase 1's rows: per entry match of a slice, its position, where the walk leaves, matches, cover, error
TRANSFER = pa.schema([("slice", pa.int64()), ("start_t", pa.int64()), ("start_k", pa.int64()),
                      ("exit_t", pa.int64()), ("exit_k", pa.int64()), ("count", pa.int64()),
                      ("cover_t", pa.int64()), ("cover_k", pa.int64()), ("error", pa.int64())])
FIRST = (np.iinfo(np.int64).min, 0)   # before every row


@dataclass(frozen=True)
class Entry:
    """Where the walk enters a slice: its first match (a key, None: none in this slice), the number of
    matches before it, and the key up to which earlier matches cover the rows."""

    start: tuple[int, int] | None
    before: int
    cover: tuple[int, int]


class Rows:
    """The slice's rows in the query's order, by tick: keys of positions and positions of keys."""

    def __init__(self, ticks: np.ndarray):
        self.ticks = np.asarray(ticks, np.int64)
        if len(self.ticks) > 1 and (np.diff(self.ticks) < 0).any():
            raise AssertionError("the query's order is not by the first ORDER BY key")
        self.left = np.searchsorted(self.ticks, self.ticks, "left")

    def __len__(self) -> int:
        return len(self.ticks)

    def keys(self, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(tick, k) of positions; one past the last row is the first key of the next tick."""
        pos = np.asarray(pos, np.int64)
        n = len(self.ticks)
        inside = pos < n
        at = np.minimum(pos, max(n - 1, 0))
        last = self.ticks[-1] + 1 if n else 0
        t = np.where(inside, self.ticks[at] if n else 0, last)
        k = np.where(inside, pos - (self.left[at] if n else 0), 0)
        return t, k

    def position(self, key: tuple[int, int]) -> int:
        """The first row at or after `key`."""
        t, k = key
        lo = int(np.searchsorted(self.ticks, t, "left"))
        hi = int(np.searchsorted(self.ticks, t, "right"))
        return lo + min(int(k), hi - lo)

    def span(self, lo_tick: int, hi_tick: int) -> tuple[int, int]:
        """The positions of ticks [lo_tick, hi_tick)."""
        return (int(np.searchsorted(self.ticks, lo_tick, "left")), int(np.searchsorted(self.ticks, hi_tick, "left")))


def steps(starts: Starts, first: int, stop: int) -> np.ndarray:
    """For each match c in [first, stop), as an offset from `first`: the match the walk goes to after it (the
    first at or after its AFTER MATCH SKIP target), or m = stop - first where the walk leaves the range or c's
    target is an error; one more entry, m itself, so that m is a fixed point."""
    m = stop - first
    target = starts.target[first:stop]
    nxt = np.searchsorted(starts.start, np.maximum(target, 0), "left")
    return np.append(np.where((target >= 0) & (nxt < stop), nxt - first, m), m)


def chains(starts: Starts, first: int, stop: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each match c in [first, stop) (indices into starts): the last match of the walk from c before it
    leaves [first, stop) or meets an error, the number of matches it outputs, and the largest end among them
    (pointer doubling: NumPy, no loop per match)."""
    step = steps(starts, first, stop)
    m = stop - first
    goes = step[:m] < m
    g = np.where(goes, step[:m], np.arange(m))
    d = goes.astype(np.int64)
    end = starts.end[first:stop]
    mx = end.copy()   # the largest end from c up to g(c), g(c) excluded
    while len(g) and not np.array_equal(g[g], g):
        d, mx, g = d + d[g], np.maximum(mx, mx[g]), g[g]
    return g + first, d + 1, np.maximum(mx, end[g]) if len(g) else mx


def path(starts: Starts, first: int, stop: int) -> np.ndarray:
    """The matches (indices into starts, increasing) the walk from match `first` outputs before `stop`: first,
    then the match at its AFTER MATCH SKIP target, and so on; a match whose target is an error ends it. Path
    doubling: each round adds the matches 2**k steps further and squares the step (NumPy, no loop per match)."""
    if first >= stop:
        return np.zeros(0, np.int64)
    m, step = stop - first, steps(starts, first, stop)
    reached = np.zeros(1, np.int64)
    while True:
        grown = np.union1d(reached, step[reached])
        if len(grown) == len(reached):
            return reached[reached < m] + first
        reached, step = grown, step[step]


def transfers(starts: Starts, rows: Rows, slice_index: int, lo_tick: int, hi_tick: int, context: int) -> pa.RecordBatch:
    """Phase 1: a TRANSFER row per match a walk can enter the slice [lo_tick, hi_tick) by (walks leave a
    match's rows within `context` ticks of its start)."""
    own_lo, own_hi = rows.span(lo_tick, hi_tick)
    first = int(np.searchsorted(starts.start, own_lo, "left"))
    stop = int(np.searchsorted(starts.start, own_hi, "left"))
    reach = int(np.searchsorted(starts.start, rows.span(lo_tick, lo_tick + context)[1], "left"))
    entries = min(reach + 1, stop) - first
    last, count, cover = (a[:entries] for a in chains(starts, first, stop))
    start_t, start_k = rows.keys(starts.start[first:first + entries])
    tgt = starts.target[last]
    exit_t, exit_k = rows.keys(np.maximum(tgt, 0))
    cover_t, cover_k = rows.keys(cover)
    cols = [np.full(entries, slice_index, np.int64), start_t, start_k, exit_t, exit_k, count, cover_t, cover_k,
            np.where(tgt < 0, tgt, NO_ERROR)]
    return pa.RecordBatch.from_arrays([pa.array(c, pa.int64()) for c in cols], schema=TRANSFER)


def entries(q, table: pa.Table, count: int) -> list[Entry]:
    """The driver's walk over the slices' TRANSFER rows: each slice's Entry; the QueryError of AFTER MATCH SKIP
    where the walk meets a match whose target is an error (as the single process)."""
    cols = {c: table.column(c).to_numpy() for c in TRANSFER.names}
    order = np.lexsort((cols["start_k"], cols["start_t"], cols["slice"]))
    cols = {c: v[order] for c, v in cols.items()}
    bounds = np.searchsorted(cols["slice"], np.arange(count + 1), "left")
    pos, cover, before = FIRST, FIRST, 0
    out = []
    for j in range(count):
        lo, hi = int(bounds[j]), int(bounds[j + 1])
        t, k = cols["start_t"][lo:hi], cols["start_k"][lo:hi]
        # the first entry at or after pos: keys compare as (tick, k)
        at = lo + int(np.searchsorted(t, pos[0], "left"))
        while at < hi and cols["start_t"][at] == pos[0] and cols["start_k"][at] < pos[1]:
            at += 1
        if at >= hi:
            out.append(Entry(None, before, cover))
            continue
        out.append(Entry((int(t[at - lo]), int(k[at - lo])), before, cover))
        if cols["error"][at] != NO_ERROR:
            raise_skip(q, int(cols["error"][at]))
        before += int(cols["count"][at])
        pos = (int(cols["exit_t"][at]), int(cols["exit_k"][at]))
        cover = max(cover, (int(cols["cover_t"][at]), int(cols["cover_k"][at])))
    return out


def slice_walk(q, starts: Starts, rows: Rows, entry: Entry, lo_tick: int, hi_tick: int, unmatched: bool) -> Walk:
    """Phase 2: the matches the walk outputs in the slice [lo_tick, hi_tick) from `entry`, numbered after
    entry.before, and (`unmatched`) the slice's rows that no match covers and none starts at."""
    own_lo, own_hi = rows.span(lo_tick, hi_tick)
    stop = int(np.searchsorted(starts.start, own_hi, "left"))
    matches = np.zeros(0, np.int64)
    if entry.start is not None:
        matches = path(starts, int(np.searchsorted(starts.start, rows.position(entry.start), "left")), stop)
        errors = starts.target[matches]
        if len(matches) and errors[-1] < 0:   # the walk met a match whose AFTER MATCH SKIP target is an error
            raise_skip(q, int(errors[-1]))
    numbers = entry.before + 1 + np.arange(len(matches), dtype=np.int64)
    free = np.zeros(0, np.int64)
    if unmatched and own_hi > own_lo:
        depth = np.zeros(own_hi - own_lo + 1, np.int64)
        cover = min(max(rows.position(entry.cover), own_lo), own_hi)
        depth[0] += 1
        depth[cover - own_lo] -= 1
        s = np.clip(starts.start[matches], own_lo, own_hi) - own_lo
        e = np.clip(starts.end[matches], own_lo, own_hi) - own_lo
        np.add.at(depth, s, 1)
        np.add.at(depth, e, -1)
        covered = np.cumsum(depth[:-1]) > 0
        has_start = np.zeros(own_hi - own_lo, np.bool_)
        own = starts.start[(starts.start >= own_lo) & (starts.start < own_hi)]
        has_start[own - own_lo] = True
        free = np.flatnonzero(~covered & ~has_start) + own_lo
    return Walk(matches, numbers, free.astype(np.int64))


def whole_walk(q, starts: Starts, n: int, unmatched: bool) -> Walk:
    """The single process's walk over one partition of n rows (the definition the slices are checked
    against): from the first row, the first match at or after the position, then its AFTER MATCH SKIP target."""
    rows = Rows(np.zeros(n, np.int64))
    return slice_walk(q, starts, rows, Entry(FIRST, 0, FIRST), 0, 1, unmatched)
