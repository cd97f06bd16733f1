"""The Tree NFA (spec/001 §5): the evaluation order is chosen per instance from its buffer counts.

Every instance keeps its own buffer of the events of the variables it has not bound yet. After an event
is stored, each instance whose buffer holds at least one event of every unbound variable (NE) takes its
currently rarest variable (fewest buffered events; ties by text order): it searches that buffer within
the ordering filters, spawns a child per event that passes (the child inherits the buffer without the
taken event and is evaluated at once), and then drops that variable's buffer, since none of it can be
taken by this instance again. This is the corrected reading of §5 (search on every step, remove what
was searched) that gives each match exactly once.

Kleene closure in a Tree NFA is not defined by the paper (§5, §10 A11): the engine refuses it.
Negation is checked after acceptance (post-processing).
"""
from __future__ import annotations

from cepkit.core.errors import Unsupported
from cepkit.front.pattern.model import Branch, Pattern
from cepkit.reference.pattern.program import INF, Assignment, PatternProgram


class _Instance:
    __slots__ = ("m", "buf")

    def __init__(self, m: Assignment, buf: dict[str, list[int]]):
        self.m = m
        self.buf = buf


class TreeProgram(PatternProgram):
    engine_name = "reference-tree"

    def __init__(self, pattern: Pattern):
        super().__init__(pattern)
        for b in pattern.branches:
            for v in b.positives:
                if v.kleene:
                    raise Unsupported(self.engine_name, "Kleene closure (iteration is not defined for the Tree "
                                      "NFA, spec/001 §5)", v.pos.line or None, v.pos.column or None)
        self.instances: list[list[_Instance]] = [
            [_Instance({}, {v.name: [] for v in b.positives})] for b in pattern.branches]

    def _alive(self, inst: _Instance, pos: int) -> bool:
        if self.window is None or not inst.m:
            return True
        first = min(self.positions(inst.m))
        return self.window.inside(self.store.ts[first], first, self.store.ts[pos], pos)

    def live_count(self) -> int:
        return sum(len(x) for x in self.instances)

    def live_assignments(self):
        return (inst.m for x in self.instances for inst in x)

    def on_event(self, pos: int):
        out: list = []
        for bi, branch in enumerate(self.pattern.branches):
            qualifying = [v.name for v in branch.positives
                          if self.is_type(v.name, pos) and self.passes_unary(branch, v.name, pos)]
            alive = []
            for inst in self.instances[bi]:
                if not self._alive(inst, pos):
                    continue
                self._evict(inst, pos)
                for name in qualifying:  # store first (spec/001 §10 A11)
                    if name in inst.buf:
                        inst.buf[name].append(pos)
                alive.append(inst)
            self.instances[bi] = []
            for inst in alive:
                self._evaluate(bi, branch, inst, out)
        return out

    def _evict(self, inst: _Instance, pos: int) -> None:
        for buf in inst.buf.values():
            self.evict(buf, pos)

    def _evaluate(self, bi: int, branch: Branch, inst: _Instance, out: list) -> None:
        """One evaluation step of an instance (and, recursively, of the children it spawns)."""
        self.instances[bi].append(inst)
        if any(not events for events in inst.buf.values()):
            return  # not NE: some unbound variable has no buffered event yet
        rarest = min(inst.buf, key=lambda n: (len(inst.buf[n]), branch.var(n).text_index))
        m = inst.m
        lo = max((m[u][-1] for u in branch.preds(rarest) if u in m), default=-1)
        hi = min((m[u][0] for u in branch.succs(rarest) if u in m), default=INF)
        used = set(self.positions(m))
        checks = [ch for ch in branch.checks if rarest in ch.needs and ch.needs <= m.keys() | {rarest}
                  and not (ch.needs == {rarest} and ch.kind == "begin")]  # one-event filters ran at store time
        searched, inst.buf[rarest] = inst.buf[rarest], []  # none of these can be taken by inst again
        for y in searched:
            if not lo < y < hi or y in used:
                continue
            m2 = dict(m)
            m2[rarest] = (y,)
            if not self.fits(self.positions(m2)) or not all(self.check(branch, ch, m2) for ch in checks):
                continue
            rest = {n: [p for p in events if p != y] for n, events in inst.buf.items() if n != rarest}
            if not rest:
                out.append((bi, m2))
                continue
            self.counters.partial_matches += 1
            self._evaluate(bi, branch, _Instance(m2, rest), out)
