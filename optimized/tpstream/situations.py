"""The situation buffers of the optimized TPStream engine: every situation a later one may still join, as
arrays (stream, partition, ts, te), the ids of its events in one pool, and its RETURN values; purged by
WITHIN after each feed."""
from __future__ import annotations

import numpy as np
from numba import njit

from cepkit.optimized.tpstream.aggregates import Column


@njit(cache=True)
def spans(a, b):
    """The positions a[k]..b[k]-1 of every k, concatenated."""
    total = 0
    for k in range(a.shape[0]):
        total += b[k] - a[k]
    out = np.empty(total, np.int64)
    m = 0
    for k in range(a.shape[0]):
        for x in range(a[k], b[k]):
            out[m] = x
            m += 1
    return out


def _filled(col: Column, sel: np.ndarray, m: int) -> Column:
    """A column over m situations holding col's values where sel is set."""
    if col.values is not None:
        values = [None] * m
        for k, v in zip(np.flatnonzero(sel).tolist(), col.values):
            values[k] = v
        return Column(values=values)
    n, d, null = np.zeros(m, np.int64), np.ones(m, np.int64), np.ones(m, np.bool_)
    n[sel], d[sel], null[sel] = col.n, col.d, col.null
    return Column(n, d, null)


class Situations:
    def __init__(self, items: int):
        empty = np.zeros(0, np.int64)
        self.stream, self.pid, self.ts, self.te = empty, empty, empty, empty
        self.off, self.length = empty, empty
        self.pool = empty
        self.values = [Column(empty, empty, np.zeros(0, np.bool_)) for _ in range(items)]

    def __len__(self) -> int:
        return len(self.ts)

    def add(self, meta: np.ndarray, keys: np.ndarray, length: np.ndarray, items: list) -> int:
        """Append situations (rows stream, partition, ts, te) with their event ids (`keys`, `length[k]` of them
        per situation, in order) and RETURN values `(selected situations, Column)` per item; returns the index
        of the first."""
        first = len(self)
        m = len(meta)
        self.stream = np.concatenate([self.stream, meta[:, 0]])
        self.pid = np.concatenate([self.pid, meta[:, 1]])
        self.ts = np.concatenate([self.ts, meta[:, 2]])
        self.te = np.concatenate([self.te, meta[:, 3]])
        length = length.astype(np.int64)
        self.off = np.concatenate([self.off, len(self.pool) + np.cumsum(length) - length])
        self.length = np.concatenate([self.length, length])
        self.pool = np.concatenate([self.pool, keys])
        self.values = [Column.concat([old, _filled(col, sel, m)]) for old, (sel, col) in zip(self.values, items)]
        return first

    def event_keys(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(offsets, event keys) of the situations idx: a list column's parts."""
        length = self.length[idx]
        offsets = np.zeros(len(idx) + 1, np.int64)
        np.cumsum(length, out=offsets[1:])
        start = self.off[idx]
        return offsets, self.pool[spans(start, start + length)]

    def purge(self, last_ts: np.ndarray, window: int) -> None:
        """Forget the situations no later one can join: ts < (partition's latest time) - WITHIN."""
        if not len(self):
            return
        keep = np.flatnonzero(self.ts >= last_ts[self.pid] - window)
        if len(keep) == len(self):
            return
        self.stream, self.pid, self.ts, self.te = (x[keep] for x in (self.stream, self.pid, self.ts, self.te))
        self.values = [c.take(keep) for c in self.values]
        off, length = self.off[keep], self.length[keep]
        if length.sum() * 2 < len(self.pool):   # compact the pool when most of it is dead
            self.pool = self.pool[spans(off, off + length)]
            off = np.cumsum(length) - length
        self.off, self.length = off, length
