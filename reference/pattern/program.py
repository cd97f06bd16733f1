"""What every engine over the pattern model shares: binding to batches, clause evaluation, window and order
tests, the negation test, held matches, and output. Engines only decide which assignments to try.

An assignment `m` maps each positive variable to the tuple of stream positions bound to it (one position,
or a Kleene closure's positions in stream order).
"""
from __future__ import annotations

from collections import Counter
from typing import Callable, Iterable

from cepkit.front.binding import WindowBound, attribute_uses, bind_batch, resolve_type
from cepkit.core.errors import QueryError
from cepkit.front.evaluate import Env, evaluate, truth
from cepkit.core.events import EventBatch
from cepkit.front.language import ast as A
from cepkit.core.contract import Program
from cepkit.core.match import Match
from cepkit.core.match_table import Layout
from cepkit.reference.nfab.runs import EventStore, drive
from cepkit.core.counters import Counters
from cepkit.front.pattern.model import BEGIN, NEG, PROCEED, TAKE, Branch, Check, Pattern

Assignment = dict  # var -> tuple[int, ...]
INF = float("inf")


class PatternProgram(Program):
    """Base of the engines that run the pattern model (eager, brute force, lazy chain, tree)."""

    engine_name = "pattern"
    language = "sase"

    def __init__(self, pattern: Pattern):
        self.pattern = pattern
        self.query = pattern.query
        self.store = EventStore(sorted(attribute_uses(self.query)))
        self.counters = Counters()
        self.window: WindowBound | None = None
        self.ts_unit: str | None = None
        self.types: dict | None = None
        self.type_of_var: dict[str, frozenset[str]] = {}
        self.pending: list[tuple[int, Assignment]] = []
        self.emitted: set = set()  # canonical keys of matches, kept for OR patterns only (spec/001 §10 A6 b)
        self.missing_true = self.query.dialect == "rfid"
        self.null_logic = self.query.conventions.null_logic   # read once: every Env evaluates under it

    @property
    def variables(self) -> list[str]:
        """Every positive variable, in text order (the output columns)."""
        return list(self.pattern.variables)

    # ------------------------------------------------------------------ stream interface
    def _feed(self, batch: EventBatch, progress: Callable[[int, int], None] | None = None) -> list[Match]:
        """Consume a batch; return the matches it completes."""
        self._bind(batch)
        return drive(self.store.add(batch), self._step_event, progress, self.budget)

    def _step_event(self, pos: int) -> list[Match]:
        out = self._release(pos) + self._emit(self.on_event(pos))
        self.budget.check_state(self.live_count() + len(self.pending), self._grown)
        return out

    def _close(self) -> list[Match]:
        """End of stream: whatever the engine still holds, then matches held for a negation."""
        out = self._emit(self.on_close())
        held, self.pending = self.pending, []
        return out + self._output(held)

    @property
    def layout(self) -> Layout:
        """Positive variables in pattern order, then the RETURN items."""
        return Layout(tuple(self.variables), tuple(r.name for r in self.query.returns))

    # ------------------------------------------------------------------ engine hooks
    def live_count(self) -> int:
        """How many partial matches (instances) the engine holds after the last event (Budget.max_state)."""
        raise NotImplementedError

    def live_assignments(self) -> Iterable[Assignment]:
        """The partial matches the engine holds (read only to name the variable when max_state is passed)."""
        raise NotImplementedError

    def _grown(self) -> str:
        """The variable most live partial matches bound last (the one whose partial matches grew)."""
        last = Counter(max(m, key=lambda v: m[v][-1]) for m in self.live_assignments() if m)
        return last.most_common(1)[0][0] if last else self.variables[0]

    def on_event(self, pos: int) -> Iterable[tuple[int, Assignment]]:
        """Candidate matches (branch index, assignment) that the event at pos completes."""
        raise NotImplementedError

    def on_close(self) -> Iterable[tuple[int, Assignment]]:
        return ()

    # ------------------------------------------------------------------ binding
    def _bind(self, batch: EventBatch) -> None:
        leaves = A.leaves(self.query.pattern)
        types = {c.var: tuple(resolve_type(t, batch.type_names, c.pos) for t in c.types) for c in leaves}
        if bind_batch(self, self.query, batch, types, self.store.ts[-1] if self.store.ts else None):
            self.type_of_var = {v: frozenset(ts) for v, ts in self.types.items()}

    def evict(self, buf: list[int], pos: int) -> None:
        """Drop from a position-sorted buffer the events that cannot share a window with the event at pos."""
        if self.window is None:
            return
        ts, now = self.store.ts, self.store.ts[pos]
        k = 0
        while k < len(buf) and not self.window.inside(ts[buf[k]], buf[k], now, pos):
            k += 1
        if k:
            del buf[:k]

    def is_type(self, var: str, pos: int) -> bool:
        return self.store.types[pos] in self.type_of_var[var]

    # ------------------------------------------------------------------ clauses
    def check(self, branch: Branch, ch: Check, m: Assignment) -> bool:
        """Whether a positive check holds on m (its variables bound); evaluated as NFA^b would."""
        j = branch.var(ch.var).text_index
        earlier = {v.name: m[v.name] for v in branch.positives if v.text_index < j and v.name in m}
        own = m[ch.var]
        if ch.kind == BEGIN:
            envs = [Env(earlier, self.store.value, ch.var, own[0], self.missing_true, self.null_logic)]
        elif ch.kind == TAKE:
            envs = [Env({**earlier, ch.var: own[:i]}, self.store.value, ch.var, own[i], self.missing_true,
                        self.null_logic)
                    for i in range(1, len(own))]
        else:
            envs = [Env({**earlier, ch.var: own}, self.store.value, None, None, self.missing_true, self.null_logic)]
        for env in envs:
            for clause in ch.clauses:
                self.counters.predicate_evaluations += 1
                if not truth(evaluate(clause, env)):
                    return False
        return True

    def passes_unary(self, branch: Branch, name: str, pos: int) -> bool:
        """Whether the event at pos passes the clauses that test one event of non-Kleene `name` alone."""
        m = {name: (pos,)}
        return all(self.check(branch, ch, m) for ch in branch.checks
                   if ch.kind == BEGIN and ch.var == name and ch.needs == {name})

    def neg_holds(self, ch: Check, m: Assignment, y: int) -> bool:
        env = Env(m, self.store.value, ch.var, y, self.missing_true, self.null_logic)
        for clause in ch.clauses:
            self.counters.predicate_evaluations += 1
            if not truth(evaluate(clause, env)):
                return False
        return True

    def checks_hold(self, branch: Branch, m: Assignment, ready: Callable[[Check], bool]) -> bool:
        return all(self.check(branch, ch, m) for ch in branch.checks if ready(ch))

    # ------------------------------------------------------------------ window and order
    def fits(self, positions: Iterable[int]) -> bool:
        """Whether events at these positions lie in one window (span < W)."""
        if self.window is None:
            return True
        ps = list(positions)
        lo, hi = min(ps), max(ps)
        return self.window.inside(self.store.ts[lo], lo, self.store.ts[hi], hi)

    def order_ok(self, branch: Branch, m: Assignment) -> bool:
        for u, v in branch.before:
            if u in m and v in m and m[u][-1] >= m[v][0]:
                return False
        return True

    @staticmethod
    def positions(m: Assignment) -> list[int]:
        return [p for ps in m.values() for p in ps]

    # ------------------------------------------------------------------ negation
    def bounds(self, branch: Branch, neg: str, m: Assignment) -> tuple[int, float]:
        """Positions strictly between which a blocking event of `neg` may lie (by the bound positives)."""
        lo = max((m[u][-1] for u in branch.preds(neg) if u in m), default=-1)
        hi = min((m[v][0] for v in branch.succs(neg) if v in m), default=INF)
        return lo, hi

    def blocks(self, branch: Branch, neg: str, m: Assignment, y: int) -> bool:
        """Whether the event at y is a forbidden event of negated `neg` for the (partial) match m."""
        if not self.is_type(neg, y):
            return False
        lo, hi = self.bounds(branch, neg, m)
        mine = self.positions(m)
        if not lo < y < hi or y in mine or not self.fits(mine + [y]):
            return False
        return self.neg_holds(branch.neg_checks[neg], m, y)

    def open_ended(self, branch: Branch, neg: str) -> bool:
        """A negation with no positive after it: later events can still block."""
        return not branch.succs(neg)

    def verdict(self, bi: int, m: Assignment, negs: Iterable[str] | None = None):
        """True, False, or 'wait' (a negation that later events may still violate)."""
        branch = self.pattern.branches[bi]
        names = [n.name for n in branch.negations] if negs is None else list(negs)
        if self.missing_true and self.window is not None and any(self.open_ended(branch, n) for n in names):
            first, last = min(self.positions(m)), max(self.positions(m))
            span = (self.store.ts[last] - self.store.ts[first]) if self.window.by == "ts" else last - first
            if not span < self.window.size - 1:  # SASE RFID negated end: t1m < t11 + T - 1 (spec/002 §7 A4a)
                return False
        now = len(self.store.ts)
        wait = False
        for n in names:
            lo, hi = self.bounds(branch, n, m)
            for y in range(int(lo) + 1, int(min(hi, now))):
                if self.blocks(branch, n, m, y):
                    return False
            wait = wait or self.open_ended(branch, n)
        return "wait" if wait else True

    def _release(self, pos: int) -> list[Match]:
        """The event at pos may block held matches; those whose window it leaves are released."""
        if not self.pending:
            return []
        keep, released = [], []
        for bi, m in self.pending:
            first = min(self.positions(m))
            branch = self.pattern.branches[bi]
            if self.window is not None and not self.window.inside(self.store.ts[first], first, self.store.ts[pos], pos):
                released.append((bi, m))
            elif not any(self.blocks(branch, n.name, m, pos) for n in branch.negations if self.open_ended(branch, n.name)):
                keep.append((bi, m))
        self.pending = keep
        return self._output(released)

    # ------------------------------------------------------------------ output
    def accept(self, bi: int, m: Assignment, negs: Iterable[str] | None = None) -> list[tuple[int, Assignment]]:
        """Decide a candidate match's negations now, or hold it; return it if it is confirmed now."""
        v = self.verdict(bi, m, negs)
        if v == "wait":
            self.pending.append((bi, m))
            return []
        return [(bi, m)] if v else []

    def _emit(self, found: Iterable[tuple[int, Assignment]]) -> list[Match]:
        confirmed: list[tuple[int, Assignment]] = []
        for bi, m in found:
            confirmed.extend(self.accept(bi, m))
        return self._output(confirmed)

    def _output(self, items: list[tuple[int, Assignment]]) -> list[Match]:
        out = []
        for bi, m in sorted(items, key=lambda it: (max(self.positions(it[1])), sorted(it[1].items()))):
            match = self._match(m)
            if len(self.pattern.branches) > 1:  # OR: one assignment found by two alternatives is one match
                key = match.key()
                if key in self.emitted:
                    continue
                self.emitted.add(key)
            out.append(match)
        return out

    def _match(self, m: Assignment) -> Match:
        ids = self.store.ids
        bindings = {var: tuple(ids[p] for p in m[var]) for var in self.pattern.variables if var in m}
        payload = {}
        if self.query.returns:
            env = Env(m, self.store.value, missing_true=False, null_logic=self.null_logic)
            payload = {r.name: evaluate(r.expr, env) for r in self.query.returns}
        return Match.make(bindings, self.store.ts[max(self.positions(m))], payload)


def unsupported_options(engine: str, options: dict, known: tuple[str, ...]) -> None:
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise QueryError(f"engine {engine} has no option {', '.join(unknown)}", expected=list(known))
