"""The declarative meaning of a pattern (spec/001 §2.7), by enumeration over the whole stream.

A match of an alternative assigns each positive variable one event (a non-empty set for a Kleene
variable) of its types, all events distinct, such that u's events precede v's for every ordered pair,
all events fit in the window, every WHERE clause holds, and no negated variable has a forbidden event.
Exponential; it is the oracle the eager, lazy and tree engines are tested against.
"""
from __future__ import annotations

from itertools import combinations

from cepkit.reference.brute import MAX_EVENTS, TooLarge
from cepkit.core.events import EventBatch
from cepkit.core.match import Match
from cepkit.front.pattern.model import Pattern
from cepkit.reference.pattern.program import Assignment, PatternProgram

MAX_KLEENE_CANDIDATES = 14  # 2^14 subsets per Kleene variable


class PatternBruteProgram(PatternProgram):
    engine_name = "brute"

    def __init__(self, pattern: Pattern):
        super().__init__(pattern)

    def _feed(self, batch: EventBatch, progress=None) -> list[Match]:
        if len(self.store.ts) + len(batch) > MAX_EVENTS:
            raise TooLarge(f"the brute-force engine enumerates every candidate match and takes at most "
                           f"{MAX_EVENTS} events; use --engine reference for this input")
        return super()._feed(batch, progress)

    def live_count(self) -> int:
        return 0  # nothing is held between events: on_close enumerates

    def live_assignments(self):
        return ()

    def on_event(self, pos: int):
        return ()

    def on_close(self):
        found = []
        n = len(self.store.ts)
        for bi, branch in enumerate(self.pattern.branches):
            choices = []
            for v in branch.positives:
                cands = [p for p in range(n) if self.is_type(v.name, p)]
                if v.kleene:
                    if len(cands) > MAX_KLEENE_CANDIDATES:
                        raise TooLarge(f"the brute-force engine enumerates every subset of {v.name}'s "
                                       f"{len(cands)} candidate events (at most {MAX_KLEENE_CANDIDATES})")
                    choices.append([c for k in range(1, len(cands) + 1) for c in combinations(cands, k)])
                else:
                    choices.append([(p,) for p in cands])

            def extend(j: int, m: Assignment) -> None:
                if j == len(branch.positives):
                    if self.checks_hold(branch, m, lambda ch: True):
                        found.append((bi, dict(m)))
                    return
                name = branch.positives[j].name
                used = set(self.positions(m))
                for ps in choices[j]:
                    if used.intersection(ps):
                        continue
                    m[name] = ps
                    if self.order_ok(branch, m) and self.fits(self.positions(m)):
                        extend(j + 1, m)
                    del m[name]

            extend(0, {})
        return found
