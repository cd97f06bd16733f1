"""Situations (half-open intervals [ts, te) with the events inside) and the deriver, Algorithm 5.1."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Sequence

from cepkit.reference.tpstream.bind import Stream


@dataclass(frozen=True)
class Situation:
    """A situation of stream `stream`: te is None while it is ongoing; `events` are batch positions."""

    stream: int
    ts: int
    te: int | None
    events: Sequence[int]


class Prefix(Sequence[int]):
    """The first n events of a run that only grows by appending: an O(1) snapshot of an ongoing run."""

    def __init__(self, events: list[int], n: int):
        self._events, self._n = events, n

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return tuple(self._events[:self._n][i])
        if not -self._n <= i < self._n:
            raise IndexError(i)
        return self._events[i % self._n]

    def __iter__(self) -> Iterator[int]:
        return iter(self._events[:self._n])

    def __eq__(self, other) -> bool:
        return isinstance(other, Sequence) and tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash(tuple(self))


class Deriver:
    """Algorithm 5.1 for one partition: one open run per stream; a run ends at the first event that
    does not satisfy its condition (te = that event's time, the event not included) and is emitted
    when its duration te - ts lies in the stream's inclusive range."""

    def __init__(self, streams: Sequence[Stream]):
        self.streams = tuple(streams)
        self.open: list[tuple[int, list[int]] | None] = [None] * len(self.streams)

    def step(self, pos: int, t: int) -> list[Situation]:
        """Feed the event at batch position `pos` with time `t`; the situations it finishes."""
        finished: list[Situation] = []
        for i, s in enumerate(self.streams):
            run = self.open[i]
            if s.test(pos):
                if run is None:
                    self.open[i] = (t, [pos])
                else:
                    run[1].append(pos)
            elif run is not None:
                if s.duration_ok(t - run[0]):
                    finished.append(Situation(i, run[0], t, tuple(run[1])))
                self.open[i] = None
        return finished

    def ongoing(self, i: int) -> Situation | None:
        """Stream i's open run as an ongoing situation (te None, events so far), or None."""
        run = self.open[i]
        return None if run is None else Situation(i, run[0], None, Prefix(run[1], len(run[1])))
