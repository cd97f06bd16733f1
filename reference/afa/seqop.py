"""AFA+O: the AFA operator with source sequence numbers (spec/003 §5.8, §7.1).

Events carry consecutive sequence numbers. Transitions are applied only across events whose sequence
numbers are adjacent, so output is never speculative and never retracted; events are indexed by
sequence number (a hash table) instead of LE. When every sequence number up to the last has arrived,
the net output equals Definition 2 on the events (spec/003 §9 harness rule).
Choices (spec/003 A17): sequence order must agree with LE order (else an error naming the event);
input retractions and dynamic patterns are not supported (an error).
"""
from __future__ import annotations

import bisect
from typing import Any

from cepkit.front.afa.model import Afa
from cepkit.reference.afa.operator import AfaOperator, ProtocolError
from cepkit.front.afa.stream import Event, OutPunctuation
from cepkit.core.errors import Unsupported


class SeqAfaOperator(AfaOperator):
    """AFA+O; `entries` maps a sequence number to (event or None for the cleaned cover, nodes)."""

    def __init__(self, afa: Afa):
        super().__init__(afa)
        self.by_le: list[tuple[Any, int]] = []  # (LE, seq) ascending, for order checks and cover

    def _snapshot(self) -> tuple:
        return super()._snapshot() + (list(self.by_le),)

    def _restore(self, s: tuple) -> None:
        super()._restore(s[:-1])
        self.by_le = s[-1]

    def _insert(self, e: Event) -> None:
        self._check_event(e, "insertion")
        if not (e.le < e.re):
            raise ProtocolError(f"insertion of {e.describe()}: empty lifetime (LE must be below RE)", column="re")
        if e.seq is None:
            raise ProtocolError(f"insertion of {e.describe()}: AFA+O needs a sequence number", column="seq")
        if e.seq in self.entries:
            raise ProtocolError(f"insertion of {e.describe()}: sequence number {e.seq} is already used",
                                column="seq")
        i = bisect.bisect_left(self.by_le, (e.le,))
        if i < len(self.by_le) and self.by_le[i][0] == e.le:
            raise ProtocolError(f"insertion of {e.describe()}: another event already has LE {e.le} "
                                "(timestamps must be unique, spec/003 A2)", column="le")
        if (i > 0 and self.by_le[i - 1][1] > e.seq) or (i < len(self.by_le) and self.by_le[i][1] < e.seq):
            raise ProtocolError(f"insertion of {e.describe()}: its sequence number disagrees with the LE order "
                                "of the events received (spec/003 A17)", column="seq")
        prev = self.entries.get(e.seq - 1)
        nodes = (self._make_transitions(prev[1], e) if prev else []) + self._new_transition(e)
        self._emit_finals(+1, nodes, e.le)
        self.entries[e.seq] = (e, nodes)
        self.by_le.insert(i, (e.le, e.seq))
        self.max_le = max(self.max_le, e.le)
        z, y = nodes, e.seq + 1
        while z and y in self.entries:
            z = self._make_transitions(z, self.entries[y][0])
            self._emit_finals(+1, z, self.entries[y][0].le)
            self.entries[y] = (self.entries[y][0], self.entries[y][1] + z)
            y += 1

    def _retract(self, e: Event) -> None:
        raise Unsupported("afa+o", "input retractions (sequence numbers cannot be renumbered, spec/003 A17)")

    def _punctuate(self, t: Any) -> None:
        self.t_e = max(self.t_e, t)
        if self.t_e <= self.t_p:
            return
        self.t_p = self.t_e
        c = bisect.bisect_left(self.by_le, (self.t_p,)) - 1  # cover: the latest event with LE < t_p
        if c >= 0:
            cover_seq = self.by_le[c][1]
            for le, s in self.by_le[:c]:
                del self.entries[s]
            self.by_le = self.by_le[c:]
            self.entries[cover_seq] = (None, self.entries[cover_seq][1])
        self._out.append(OutPunctuation(self.t_p))

    def _arc_insert(self, arc, lifetime) -> None:
        raise Unsupported("afa+o", "dynamic patterns")

    def _arc_delete(self, name, explicit) -> None:
        raise Unsupported("afa+o", "dynamic patterns")

    def event_set(self) -> list[Event]:
        return [self.entries[s][0] for _, s in self.by_le if self.entries[s][0] is not None]

    def entry_view(self):
        return [(le, self.entries[s][0], list(self.entries[s][1])) for le, s in self.by_le]
