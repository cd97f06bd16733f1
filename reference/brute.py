"""The declarative meaning of a SASE+ query (spec/000 §3.2), by exhaustive enumeration.

A match is a choice of stream positions p1 < ... < pk, each labelled with a component, such that the
components appear in order, every event satisfies its begin/take formula against the bindings made
before it, the whole match lies in the window, every event skipped between two selections satisfies
the strategy's constraint for the state the match was waiting in, and no forbidden event of a negated
component lies in its gap. Exponential: for tiny inputs and for checking the NFA^b engine.
"""
from __future__ import annotations

from cepkit.core.events import EventBatch
from cepkit.core.errors import ResourceLimit
from cepkit.front.language import ast as A
from cepkit.core.match import Match
from cepkit.front.nfab.compile import Formula, NFAb
from cepkit.reference.nfab.runs import NFAbProgram

Bindings = tuple[tuple[int, ...], ...]

MAX_EVENTS = 200  # enumeration is exponential in the stream length


class TooLarge(ResourceLimit):
    """The brute-force engine was given more events than it can enumerate (a resource limit: exit 4)."""


class BruteForceProgram(NFAbProgram):
    """Whole-stream evaluation by enumeration; reuses only the binding and output plumbing."""

    engine_name = "brute"

    def _feed(self, batch: EventBatch, progress=None) -> list[Match]:
        if len(self.store.ts) + len(batch) > MAX_EVENTS:
            raise TooLarge(f"the brute-force engine enumerates every candidate match and takes at most "
                           f"{MAX_EVENTS} events; use --engine reference for this input")
        self._bind(batch)
        self.store.add(batch)
        return []

    def _close(self) -> list[Match]:
        budget = self.budget
        if budget.limit is None:
            matches = sorted(self._all_matches(), key=lambda b: (b[-1][-1], b))
            if self.selection == "non_overlap":
                matches = self._select_non_overlap(matches)
            return [self._match(b) for b in matches]
        # --limit: the matches in output order, one end event at a time, until the first `want` are known
        # (the output is sorted by end event, so those ending later come after them)
        want = budget.limit - budget.matches
        found: list[Bindings] = []
        matches = []
        for end in range(len(self.store.ts)):
            found += sorted(self._all_matches(end))
            matches = self._select_non_overlap(found) if self.selection == "non_overlap" else found
            if len(matches) >= want:
                break
        return [self._match(b) for b in matches[:want]]

    # ------------------------------------------------------------------ formulas
    def _ok(self, f: Formula, b: Bindings, var: str | None, pos: int | None) -> bool:
        return self._holds(f, self._bound(b), var, pos)

    def _skippable(self, z: int, b: Bindings, in_kleene: bool) -> bool:
        """May event z be skipped while waiting after bindings b (§3.2 rule 4)?"""
        s = self.nfa.strategy
        if s is A.Strategy.SKIP_TILL_ANY_MATCH:
            return True
        if s is A.Strategy.STRICT_CONTIGUITY:
            return False
        if s is A.Strategy.PARTITION_CONTIGUITY:
            anchor = b[0][0]
            return any(self.store.value(z, a) is None or self.store.value(z, a) != self.store.value(anchor, a)
                       for a in self.nfa.partition_attrs)
        j = len(b) - 1
        if in_kleene:
            return not self._ok(self.nfa.take[j], b, self.vars[j], z)
        return not self._ok(self.nfa.begin[j + 1], b, self.vars[j + 1], z)

    # ------------------------------------------------------------------ enumeration
    def _all_matches(self, end: int | None = None) -> set[Bindings]:
        """Every match; with `end`, those whose last event is event `end` (nothing after it is visited)."""
        nfa: NFAb = self.nfa
        n, total = nfa.n, len(self.store.ts) if end is None else end + 1
        found: set[Bindings] = set()

        budget = self.budget

        def complete(b: Bindings) -> None:
            if (end is None or b[-1][-1] == end) and self._negations_hold(b):
                found.add(b)
                if len(found) > (budget.max_state or len(found)):   # the matches held before output (issue 30)
                    budget.check_held(len(found))

        def after(b: Bindings, in_kleene: bool) -> None:
            """Extend a partial match whose last selection was at b[-1][-1]."""
            j = len(b) - 1
            last = b[-1][-1]
            for p in range(last + 1, total):
                if not self._in_win(b, p):
                    break
                if in_kleene and self._ok(nfa.take[j], b, self.vars[j], p):
                    select(b[:-1] + (b[-1] + (p,),), j, kleene_open=True)
                proceeds = not in_kleene or self._ok(nfa.proceed[j], b, None, None)
                if j + 1 < n and proceeds and self._ok(nfa.begin[j + 1], b, self.vars[j + 1], p):
                    select(b + ((p,),), j + 1, kleene_open=nfa.components[j + 1].kleene)
                if not self._skippable(p, b, in_kleene):
                    break

        def select(b: Bindings, j: int, kleene_open: bool) -> None:
            if j == n - 1:
                if not kleene_open:
                    complete(b)
                    return
                if self._ok(nfa.proceed[j], b, None, None):
                    complete(b)
            after(b, kleene_open)

        for p in range(total):
            if self._ok(nfa.begin[0], (), self.vars[0], p):
                select(((p,),), 0, kleene_open=nfa.components[0].kleene)
        return found

    # ------------------------------------------------------------------ negation and selection
    def _negations_hold(self, b: Bindings) -> bool:
        ts, n = self.store.ts, self.nfa.n
        first, last = b[0][0], b[-1][-1]
        for neg in self.nfa.negations:
            if neg.gap == 0:
                gap = [z for z in range(first)
                       if self.window is None or self.window.inside_back(ts[last], last, ts[z], z)]
            elif neg.gap == n:
                gap = [z for z in range(last + 1, len(ts)) if self._in_win(b, z)]
            else:
                gap = range(b[neg.gap - 1][-1] + 1, b[neg.gap][0])
            if any(self._blocks(neg, b, z) for z in gap):
                return False
        return True

    def _select_non_overlap(self, matches: list[Bindings]) -> list[Bindings]:
        """Per partition, a match counts only if it starts after the previous output match completed;
        among those completing together, the latest start (then fewest events) wins."""
        done_at: dict[tuple, int] = {}
        out: list[Bindings] = []
        by_end: dict[int, list[Bindings]] = {}
        for b in matches:
            by_end.setdefault(b[-1][-1], []).append(b)
        for end in sorted(by_end):
            best: dict[tuple, Bindings] = {}
            for b in sorted(by_end[end]):
                key = self._key(b[0][0])
                if key in done_at and b[0][0] <= done_at[key]:
                    continue
                if key not in best or self._preference(b) > self._preference(best[key]):
                    best[key] = b
            for key, b in best.items():
                done_at[key] = end
                out.append(b)
        return out
