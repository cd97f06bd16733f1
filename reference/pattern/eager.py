"""The eager NFA of the lazy-NFA paper (spec/001 §3): every event is applied to every instance, in arrival
order, under skip-till-any-match.

An instance is a partial match (which variables are bound, to which events). An event may be taken by a
variable whose predecessors in the pattern's order are all bound and whose successors are not; a Kleene
variable keeps taking events until a successor is bound. Each instance also survives by ignoring the
event, so every combination is tried; AND patterns get one state per set of bound variables.
"""
from __future__ import annotations

from cepkit.front.pattern.model import BEGIN, Branch, Check, Pattern
from cepkit.reference.pattern.program import Assignment, PatternProgram

Instance = tuple[int, tuple[tuple[str, tuple[int, ...]], ...]]


class EagerProgram(PatternProgram):
    engine_name = "reference-eager"

    def __init__(self, pattern: Pattern):
        super().__init__(pattern)
        self.instances: dict[Instance, None] = {}

    @staticmethod
    def _closed(branch: Branch, m: Assignment) -> set[str]:
        """Kleene variables that can take no more events: a successor is bound."""
        return {v.name for v in branch.positives if v.kleene and v.name in m and branch.succs(v.name) & m.keys()}

    @staticmethod
    def _ready(branch: Branch, ch: Check, m: Assignment, closed: set[str]) -> bool:
        if not ch.needs <= m.keys():
            return False
        open_kleene = {n for n in ch.needs if branch.var(n).kleene and n not in closed}
        return not open_kleene or (ch.kind == BEGIN and open_kleene == {ch.var})

    def live_count(self) -> int:
        return len(self.instances)

    def live_assignments(self):
        return (dict(items) for _, items in self.instances)

    def on_event(self, pos: int):
        out = []
        new: dict[Instance, None] = {}
        for bi in range(len(self.pattern.branches)):
            self._step(bi, {}, pos, new, out)
        for (bi, items) in self.instances:
            m = dict(items)
            first = min(self.positions(m))
            if self.window is not None and not self.window.inside(self.store.ts[first], first, self.store.ts[pos], pos):
                continue  # timeout: no later event fits either
            new[(bi, items)] = None  # ignore
            self._step(bi, m, pos, new, out)
        self.instances = new
        return out

    def _step(self, bi: int, m: Assignment, pos: int, new: dict, out: list) -> None:
        """Every take of the event at pos by the instance m."""
        branch = self.pattern.branches[bi]
        closed_before = self._closed(branch, m)
        for v in branch.positives:
            name = v.name
            if not self.is_type(name, pos):
                continue
            if name in m and (not v.kleene or name in closed_before):
                continue
            if not branch.preds(name) <= m.keys() or branch.succs(name) & m.keys():
                continue
            m2 = dict(m)
            m2[name] = m.get(name, ()) + (pos,)
            if not self.fits(self.positions(m2)):
                continue
            closed = self._closed(branch, m2)
            complete = len(m2) == len(branch.positives)
            ok = True
            for ch in branch.checks:
                was = self._ready(branch, ch, m, closed_before) and name not in ch.needs
                now = self._ready(branch, ch, m2, closed)
                if now and not was and not self.check(branch, ch, m2):
                    ok = False
                    break
            if not ok:
                continue
            if not complete:
                self.counters.partial_matches += 1
            if complete:
                if all(self.check(branch, ch, m2) for ch in branch.checks if not self._ready(branch, ch, m2, closed)):
                    out.append((bi, m2))
                if any(x.kleene for x in branch.positives if x.name not in closed):
                    new[(bi, tuple(sorted(m2.items())))] = None
            else:
                new[(bi, tuple(sorted(m2.items())))] = None
