"""A balanced tree of partial aggregates over the last `capacity` slices (one leaf per slice).

Pushing a slice overwrites the oldest leaf and recombines its path to the root (O(log n)); the root
holds the aggregate of the whole window (O(1)). The combine is associative and commutative, so the
leaves can sit in ring order.
"""
from __future__ import annotations

from cepkit.reference.windows.partial import EMPTY, Partial


class AggregateTree:
    def __init__(self, capacity: int):
        size = 1
        while size < capacity:
            size *= 2
        self.capacity = capacity
        self.size = size
        self.nodes: list[Partial] = [EMPTY] * (2 * size)
        self.next = 0          # ring position of the oldest leaf
        self.merges = 0        # partial-aggregate merges done (for the cost model)

    def push(self, p: Partial) -> None:
        i = self.size + self.next
        self.nodes[i] = p
        self.next = (self.next + 1) % self.capacity
        i //= 2
        while i:
            self.nodes[i] = self.nodes[2 * i] + self.nodes[2 * i + 1]
            self.merges += 1
            i //= 2

    def root(self) -> Partial:
        return self.nodes[1]
