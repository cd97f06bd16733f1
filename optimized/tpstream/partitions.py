"""PARTITION BY as arrays: a program-wide partition number per event (keys are the exact attribute
values, numbered in order of first appearance across feeds) and the stable partition order of a batch."""
from __future__ import annotations

import numpy as np
import pandas as pd
from numba import njit

from cepkit.optimized.tpstream.columns import raw
from cepkit.core.events import EventBatch, exact


class Partitions:
    """The partitions seen so far: `keys[p]` is partition p's tuple of exact attribute values."""

    def __init__(self, attrs: tuple[str, ...]):
        self.attrs = attrs
        self.keys: list[tuple] = []
        self._index: dict[tuple, int] = {}

    def __len__(self) -> int:
        return len(self.keys)

    def number(self, batch: EventBatch) -> np.ndarray:
        """The partition number of each event (int64): one hash pass per attribute, Python per distinct key."""
        n = len(batch)
        if not self.attrs:
            if not self.keys:
                self._add(())
            return np.zeros(n, np.int64)
        codes, uniques = [], []
        for a in self.attrs:
            c, u = pd.factorize(pd.Series(raw(batch, a)), use_na_sentinel=False)
            codes.append(c.astype(np.int64))
            uniques.append(np.asarray(u, dtype=object))
        if len(codes) == 1:   # factorize numbers values in order of first appearance
            local = codes[0]
            distinct = [(exact(v),) for v in uniques[0]]
        else:
            rows, first, local = np.unique(np.stack(codes, axis=1), axis=0, return_index=True, return_inverse=True)
            local = local.reshape(-1)
            distinct = [tuple(exact(uniques[k][int(r[k])]) for k in range(len(codes))) for r in rows]
            rank = np.empty(len(first), np.int64)
            rank[np.argsort(first, kind="stable")] = np.arange(len(first))
            distinct = [distinct[k] for k in np.argsort(rank)]
            local = rank[local]
        mapping = np.asarray([self._add(key) for key in distinct], np.int64)
        return mapping[local]

    def _add(self, key: tuple) -> int:
        p = self._index.get(key)
        if p is None:
            p = self._index[key] = len(self.keys)
            self.keys.append(key)
        return p


@njit(cache=True)
def stable_order(pid, parts):
    """The positions sorted by partition number, stream order kept within a partition (a counting sort)."""
    count = np.zeros(parts + 1, np.int64)
    for i in range(pid.shape[0]):
        count[pid[i] + 1] += 1
    for p in range(parts):
        count[p + 1] += count[p]
    out = np.empty(pid.shape[0], np.int64)
    for i in range(pid.shape[0]):
        out[count[pid[i]]] = i
        count[pid[i]] += 1
    return out


@njit(cache=True)
def latest(last, pid, ts):
    """last[p] = the time of partition p's last event in ts (events in time order)."""
    for i in range(pid.shape[0]):
        last[pid[i]] = ts[i]
