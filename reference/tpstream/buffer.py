"""A situation buffer: one stream's finished situations sorted by ts (= by te), purged by the window,
queried with binary-search ranges per Allen relation (thesis §5.5.2, findMatches)."""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Iterable

from cepkit.front.tpstream import allen
from cepkit.reference.tpstream.situations import Situation


def _index_range(keys: list, r: allen.Range, head: int) -> tuple[int, int]:
    lo = head if r.lo is None else (bisect_right if r.lo_open else bisect_left)(keys, r.lo, head)
    hi = len(keys) if r.hi is None else (bisect_left if r.hi_open else bisect_right)(keys, r.hi, head)
    return lo, hi


class Buffer:
    def __init__(self) -> None:
        self.items: list[Situation] = []
        self.ts: list[int] = []
        self.te: list[int] = []
        self.head = 0

    def add(self, s: Situation) -> None:
        self.items.append(s)
        self.ts.append(s.ts)
        self.te.append(s.te)

    def purge(self, bound) -> None:
        """Forget every situation with ts < bound (a prefix, since ts order is te order)."""
        self.head = max(self.head, bisect_left(self.ts, bound, self.head))
        if self.head > 1024 and self.head * 2 > len(self.items):
            del self.items[:self.head], self.ts[:self.head], self.te[:self.head]
            self.head = 0

    def __len__(self) -> int:
        return len(self.items) - self.head

    def live(self) -> list[Situation]:
        return self.items[self.head:]

    def related(self, relations: Iterable[str], ts, te) -> set[int]:
        """Indices of buffered y with `p R y` for some R, where p = [ts, te): 2 ranges, 4 searches per R."""
        found: set[int] = set()
        for rel in relations:
            ts_range, te_range = allen.partner_ranges(rel, ts, te)
            a, b = _index_range(self.ts, ts_range, self.head)
            c, d = _index_range(self.te, te_range, self.head)
            found.update(range(max(a, c), min(b, d)))
        return found

    def select(self, constraints: list[tuple[frozenset[str], int, int]]) -> list[Situation]:
        """Buffered y satisfying every `(relations, p.ts, p.te)`: union per constraint, intersection across."""
        if not constraints:
            return self.live()
        chosen: set[int] | None = None
        for rels, ts, te in constraints:
            hit = self.related(rels, ts, te)
            chosen = hit if chosen is None else chosen & hit
            if not chosen:
                return []
        return [self.items[i] for i in sorted(chosen)]
