"""Active Instance Stacks (spec/002 §4.1) and their partitioned form PAIS (§4.2.1), plus the per-attribute
position stacks of Multi-PAIS (§4.2.2).

A stack holds the instances of one NFA state (one positive component) in stream order. An instance is
`(pos, rip)`: the stream position of the event that fired the transition into the state, and its RIP,
the *absolute index* of the most recent instance of the previous state's stack (same partition) when the
event arrived; every instance of that stack at or below RIP can precede it. Absolute indexes survive
pruning: a stack keeps a `base` (the absolute index of its bottom instance) that grows as the bottom is
cut off (windows in SS, §4.3), so a RIP below `base` simply points at instances that left the window.
"""
from __future__ import annotations

from typing import Callable, Hashable, Iterator

ALL = ("<all>",)  # the key of the single stack of a state when the stacks are not partitioned


class Stack:
    """The instances `(pos, rip)` of one state (and one partition), bottom first."""

    __slots__ = ("base", "_items", "_start")

    def __init__(self) -> None:
        self.base = 0          # absolute index of the bottom instance
        self._items: list[tuple[int, int | None]] = []
        self._start = 0        # list index of the bottom instance (a cut prefix is compacted lazily)

    def __len__(self) -> int:
        return len(self._items) - self._start

    @property
    def top(self) -> int:
        """Absolute index of the top instance (base - 1 when empty): the RIP a new successor gets."""
        return self.base + len(self) - 1

    def push(self, pos: int, rip: int | None) -> None:
        self._items.append((pos, rip))

    def get(self, j: int) -> tuple[int, int | None]:
        """The instance at absolute index j (base <= j <= top)."""
        return self._items[self._start + j - self.base]

    def down_from(self, rip: int) -> Iterator[tuple[int, int | None]]:
        """Instances from absolute index `rip` down to the bottom (most recent first)."""
        lo = self._start
        for k in range(self._start + min(rip, self.top) - self.base, lo - 1, -1):
            yield self._items[k]

    def prune(self, alive: Callable[[int], bool]) -> int:
        """Cut the bottom instances whose event is no longer alive (stream order makes it a prefix)."""
        n = 0
        while self._start < len(self._items) and not alive(self._items[self._start][0]):
            self._start += 1
            n += 1
        self.base += n
        if self._start > 64 and self._start * 2 > len(self._items):
            del self._items[:self._start]
            self._start = 0
        return n

    def positions(self) -> list[int]:
        return [p for p, _ in self._items[self._start:]]

    def instances(self) -> list[tuple[int, int | None]]:
        """(pos, rip) bottom first, with each RIP as an absolute index."""
        return list(self._items[self._start:])


class PartitionedStacks:
    """AIS for states 0..n-1; with a partition attribute, one AIS per (state, value): PAIS.

    `key(pos)` is the partition of an event: its value of the partition attribute, or ALL when the
    stacks are not partitioned. An instance's RIP points into the *same partition* of the previous state.
    """

    def __init__(self, n: int):
        self.n = n
        self.stacks: list[dict[Hashable, Stack]] = [{} for _ in range(n)]

    def get(self, i: int, key: Hashable) -> Stack | None:
        return self.stacks[i].get(key)

    def stack(self, i: int, key: Hashable) -> Stack:
        st = self.stacks[i].get(key)
        if st is None:
            st = self.stacks[i][key] = Stack()
        return st

    def merge(self) -> None:
        """Turn PAIS into one unpartitioned AIS (every partition of a state in one stack, stream order),
        recomputing each RIP as the top of the previous state's merged stack when the event arrived
        (the last instance before it in stream order)."""
        merged: list[list[tuple[int, int | None]]] = []
        for i in range(self.n):
            items = sorted(((p, r) for st in self.stacks[i].values() for p, r in st.instances()),
                           key=lambda x: x[0])
            merged.append(items)
        new: list[dict[Hashable, Stack]] = []
        for i, items in enumerate(merged):
            st = Stack()
            prev = [p for p, _ in merged[i - 1]] if i else []
            k = 0
            for p, _ in items:
                if i == 0:
                    st.push(p, None)
                    continue
                while k < len(prev) and prev[k] < p:
                    k += 1
                st.push(p, k - 1)
            new.append({ALL: st})
        self.stacks = new

    def snapshot(self) -> list[dict[Hashable, list[tuple[int, int | None]]]]:
        """Per state, per partition: the instances (pos, rip_pos) bottom first; rip_pos is the stream
        position of the RIP instance (None for the start state or when it has left the window)."""
        out = []
        for i in range(self.n):
            states = {}
            for key, st in self.stacks[i].items():
                rows = []
                for p, r in st.instances():
                    rp = None
                    if i and r is not None:
                        prev = self.stacks[i - 1].get(key)
                        if prev is not None and prev.base <= r <= prev.top:
                            rp = prev.get(r)[0]
                    rows.append((p, rp))
                states[key] = rows
            out.append(states)
        return out


class MultiIndex:
    """Multi-PAIS (§4.2.2, eager filtering in SS): for each further equivalence attribute, per state and
    value, the positions of the state's instances. A transition into state i fires only if, for every
    attribute, the previous state has instances with the event's value, and the intersection of those
    instance sets is not empty (some earlier instance agrees with the event on every attribute)."""

    def __init__(self, n: int, attrs: tuple[str, ...]):
        self.attrs = attrs
        self.index: dict[str, list[dict[Hashable, Stack]]] = {a: [{} for _ in range(n)] for a in attrs}

    def candidates(self, i: int, values: dict[str, Hashable], alive: Callable[[int], bool] | None) -> set[int]:
        """Positions of state-i instances that agree with `values` on every attribute."""
        common: set[int] | None = None
        for a in self.attrs:
            st = self.index[a][i].get(values[a])
            if st is None:
                return set()
            if alive is not None:
                st.prune(alive)
            here = set(st.positions())
            common = here if common is None else common & here
            if not common:
                return set()
        return common or set()

    def push(self, i: int, values: dict[str, Hashable], pos: int, alive: Callable[[int], bool] | None) -> int:
        """Record the instance in every attribute's stack; returns the number of pushes."""
        for a in self.attrs:
            st = self.index[a][i].setdefault(values[a], Stack())
            if alive is not None:
                st.prune(alive)
            st.push(pos, None)
        return len(self.attrs)
