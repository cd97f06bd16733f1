"""The SASE 1.0 dialect's runs (docs/semantics.md S1): the behaviour of the SASE 1.0 engine, rebuilt.

A run sits at one component j of the sequence; at a Kleene component it is *open* once it holds an event
there. Each event is checked against the runs of its partition (the first `[attr]`; the whole stream without
one; a later `[attr]` is SASE 1.0's predicate in the edge formulas, S1.6), then may start a run (the first
component's begin formula). With a partition attribute:

- an event of another type than the run's component is of no use to it (SASE 1.0 checks that type first).
- at an open Kleene component, an event that satisfies the next component (its begin formula, with the
  closure's proceed formula) *closes* the closure: it goes to the next component and is not taken into
  the closure. Otherwise the take formula decides. Elsewhere the begin formula decides. So only an event
  of the closure's own type can close it.
- the window, last - first <= W, is checked when an event is begun or taken, not when it closes a closure;
  a run that fails it ends.
- partition-contiguity ends a run on an event of its partition that it cannot use; skip-till-next-match
  skips it; skip-till-any-match keeps, for every used event, the run that skipped it too.

Without a partition attribute an open closure takes events by its take formula, and every take forks the
run: one copy stays in the closure, the other moves on to the next component (SASE 1.0's proceed edge).
"""
from __future__ import annotations

from cepkit.core.errors import Unsupported
from cepkit.front.language import ast as A
from cepkit.front.language.dialects import partition_attrs
from cepkit.core.match import Match
from cepkit.front.nfab.compile import NFAb
from cepkit.reference.nfab.runs import Bindings, NFAbProgram

CLOSE, USE, NONE = 2, 1, 0   # SASE 1.0's check results: proceed, take or begin, no


class Sase1Program(NFAbProgram):
    """A flat SEQ query under the SASE 1.0 dialect; runs are (component, bindings) pairs."""

    def __init__(self, nfa: NFAb, selection: str = "all"):
        q = nfa.query
        if selection != "all":
            raise Unsupported(self.engine_name, "the non-overlap output format in the SASE 1.0 dialect",
                              q.pos.line or None, q.pos.column or None)
        for c in q.pattern.components:
            if c.negated:
                raise Unsupported(self.engine_name, "negation in the SASE 1.0 dialect", c.pos.line or None,
                                  c.pos.column or None)
        super().__init__(nfa, selection)
        attrs = partition_attrs(q)
        self.key_attr = attrs[0] if attrs else None  # a later [attr] is a predicate (dialects.sase1_where)
        self.partitions: dict = {}   # partition value -> its runs (component, bindings), oldest first
        self.live = 0
        self.any_match = q.strategy is A.Strategy.SKIP_TILL_ANY_MATCH
        self.contiguity = q.strategy is A.Strategy.PARTITION_CONTIGUITY

    # ------------------------------------------------------------------ one event
    def _on_event(self, pos: int) -> list[Match]:
        key = self.store.value(pos, self.key_attr) if self.key_attr is not None else None
        runs = self.partitions.get(key, [])
        done: list[Bindings] = []
        keep: list[tuple[int, Bindings]] = []
        step = self._step_partitioned if self.key_attr is not None else self._step_whole
        for run in runs:
            step(run, pos, keep, done)
        start = self._start(pos)
        if start is not None:
            keep.append(start)
        if keep:
            self.partitions[key] = keep
        else:
            self.partitions.pop(key, None)
        self.live += len(keep) - len(runs)
        self.budget.check_state(self.live, self._grown)
        return [self._match(b) for b in done]

    def _start(self, pos: int) -> tuple[int, Bindings] | None:
        """A new run on the event when it satisfies the first component."""
        first = self.nfa.components[0]
        if not self._holds(self.nfa.begin[0], {}, first.var, pos):
            return None
        self.counters.partial_matches += 1
        return (0 if first.kleene else 1, ((pos,),))

    def _check(self, run: tuple[int, Bindings], pos: int) -> int:
        """CLOSE, USE or NONE for the event against the run (SASE 1.0's check with a partition)."""
        nfa = self.nfa
        j, b = run
        comp = nfa.components[j]
        if self.store.types[pos] != self.types[comp.var]:
            return NONE  # SASE 1.0 checks the run's own component's type first, even to close a closure
        bound = self._bound(b)
        if comp.kleene and len(b) == j + 1:  # an open closure: the next component first
            nxt = nfa.components[j + 1]
            if self._holds(nfa.proceed[j], bound, None, None) and self._holds(nfa.begin[j + 1], bound, nxt.var, pos):
                return CLOSE
            return USE if self._holds(nfa.take[j], bound, comp.var, pos) else NONE
        return USE if self._holds(nfa.begin[j], bound, comp.var, pos) else NONE

    def _use(self, run: tuple[int, Bindings], pos: int, keep: list, done: list) -> None:
        """The event begun or taken at the run's component: the run moves on, stays, or completes."""
        j, b = run
        self.counters.partial_matches += 1
        if self.nfa.components[j].kleene:
            nb = b + ((pos,),) if len(b) == j else b[:-1] + (b[-1] + (pos,),)
            keep.append((j, nb))
        elif j == self.nfa.n - 1:
            done.append(b + ((pos,),))
        else:
            keep.append((j + 1, b + ((pos,),)))

    def _step_partitioned(self, run: tuple[int, Bindings], pos: int, keep: list, done: list) -> None:
        j, b = run
        verdict = self._check(run, pos)
        if verdict == NONE:
            if not self.contiguity:
                keep.append(run)  # skipped (partition-contiguity: the run ends)
            return
        if verdict == USE and not self._in_win(b, pos):
            return  # the window has closed on the run
        if self.any_match:
            keep.append(run)  # the run that skips the event
        self._use((j + 1, b) if verdict == CLOSE else run, pos, keep, done)

    def _step_whole(self, run: tuple[int, Bindings], pos: int, keep: list, done: list) -> None:
        """Without a partition attribute: the take formula alone decides at an open closure, and each
        begin or take into a closure forks a copy that moves on to the next component."""
        nfa = self.nfa
        j, b = run
        comp = nfa.components[j]
        bound = self._bound(b)
        f = nfa.take[j] if comp.kleene and len(b) == j + 1 else nfa.begin[j]
        if not self._holds(f, bound, comp.var, pos):
            keep.append(run)
            return
        if not self._in_win(b, pos):
            return
        if self.any_match:
            keep.append(run)
        grown: list = []
        self._use(run, pos, grown, done)
        for nj, nb in grown:
            keep.append((nj, nb))
            if comp.kleene and self._holds(nfa.proceed[j], self._bound(nb), None, None):
                keep.append((j + 1, nb))

    # ------------------------------------------------------------------ end of stream
    def _close(self) -> list[Match]:
        self.partitions, self.live = {}, 0
        return []

    def _grown(self) -> str:
        at = [j for rs in self.partitions.values() for j, _ in rs] or [self.nfa.n - 1]
        return self.vars[max(set(at), key=at.count)]
