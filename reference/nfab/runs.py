"""The reference NFA^b run engine (spec/000 §4.3–4.5): runs, splits, Step-6 proceed, negation.

A run is `(j, phase, bindings)`: waiting at component j's first state (FIRST: a singleton `s` or `p[1]`)
or inside its Kleene loop (ITER: `p[i]`), with `bindings[k]` the stream positions selected for
positive component k. Runs equal in (state, bindings) are one run (set semantics, §9 A2).
"""
from __future__ import annotations

from typing import Callable

from cepkit.front.binding import PSEUDO_ATTRIBUTES, WindowBound, attribute_uses, bind_batch, resolve_type
from cepkit.front.evaluate import Env, evaluate, truth
from cepkit.core.events import EventBatch
from cepkit.front.language import ast as A
from cepkit.core.contract import Budget, Program
from cepkit.core.match import Match
from cepkit.core.match_table import Layout
from cepkit.front.nfab.compile import Formula, NFAb, check_selection
from cepkit.core.counters import Counters

FIRST, ITER = 0, 1
Bindings = tuple[tuple[int, ...], ...]
Run = tuple[int, int, Bindings]

def drive(positions: range, step: Callable[[int], list], progress: Callable[[int, int], None] | None,
          budget: Budget | None = None) -> list:
    """Run `step` on each new stream position, collecting its output and reporting progress; stop after the
    event that brings the output to the budget's limit (the later events are never looked at)."""
    out: list = []
    total = len(positions)
    for k, pos in enumerate(positions):
        out.extend(step(pos))
        if budget is not None:
            if not budget.wanted(len(out)):
                break
            budget.batch_matches = len(out)
        if progress is not None and (k % 1024 == 0 or budget is not None and budget.live >= 10_000):
            progress(k, total)  # every event once the live state is large (each takes long then)
    if progress is not None:
        progress(total, total)
    return out


class EventStore:
    """The stream seen so far, by global position, with exact attribute values."""

    def __init__(self, attrs: list[str]):
        self.attrs = attrs
        self.types: list[str] = []
        self.ts: list[int] = []
        self.ids: list = []
        self.rows: list[dict] = []

    def add(self, batch: EventBatch) -> range:
        start = len(self.ts)
        names = batch.type_names
        offset = start if batch.positional_ids else 0  # made-up row ids continue across batches
        for i in range(len(batch)):
            self.types.append(names[int(batch.type_codes[i])])
            self.ts.append(int(batch.ts[i]))
            ident = batch.ids[i]
            ident = ident.item() if hasattr(ident, "item") else ident
            self.ids.append(ident + offset if offset else ident)
            row = {a: batch.exact_value(a, i) for a in self.attrs if a in batch.columns}
            for a in PSEUDO_ATTRIBUTES.intersection(self.attrs).difference(batch.columns):
                row[a] = self.ids[-1] if a == "id" else self.ts[-1]
            self.rows.append(row)
        return range(start, len(self.ts))

    def value(self, pos: int, attr: str):
        return self.rows[pos].get(attr)


class NFAbProgram(Program):
    """A compiled query ready to consume a stream: `feed(batch)` then `close()`."""

    engine_name = "reference"
    language = "sase"

    def __init__(self, nfa: NFAb, selection: str = "all"):
        check_selection(nfa, selection, self.engine_name)
        self.nfa = nfa
        self.selection = selection
        self.store = EventStore(sorted(attribute_uses(nfa.query)))
        self.null_logic = nfa.query.conventions.null_logic   # read once: every Env evaluates under it
        self.runs: list[Run] = []
        self.pending: list[Bindings] = []  # matches waiting for a trailing negation's window to close
        self.types: dict[str, str] | None = None
        self.ts_unit: str | None = None
        self.window: WindowBound | None = None
        self.vars = [c.var for c in nfa.components]
        self.partitions_seen = 0
        self.counters = Counters()

    # ------------------------------------------------------------------ stream interface
    def _feed(self, batch: EventBatch, progress: Callable[[int, int], None] | None = None) -> list[Match]:
        """Consume a batch; return the matches it completes, in completion order."""
        self._bind(batch)
        return drive(self.store.add(batch), self._on_event, progress, self.budget)

    def _close(self) -> list[Match]:
        """End of stream: release matches that were waiting for a trailing negation."""
        done, self.pending = self.pending, []
        self.runs = []
        return [self._match(b) for b in done]

    @property
    def layout(self) -> Layout:
        """Positive variables in pattern order, then the RETURN items."""
        return Layout(tuple(self.variables), tuple(r.name for r in self.query.returns))

    @property
    def variables(self) -> list[str]:
        return self.vars

    @property
    def query(self):
        return self.nfa.query

    # ------------------------------------------------------------------ binding
    def _bind(self, batch: EventBatch) -> None:
        q = self.nfa.query
        types = {c.var: resolve_type(c.event_type, batch.type_names, c.pos) for c in q.pattern.components}
        bind_batch(self, q, batch, types, self.store.ts[-1] if self.store.ts else None)

    # ------------------------------------------------------------------ formulas
    def _bound(self, b: Bindings) -> dict[str, tuple[int, ...]]:
        return dict(zip(self.vars, b))

    def _holds(self, f: Formula, bound: dict, var: str | None, pos: int | None) -> bool:
        if f.event_type is not None and self.store.types[pos] != self.types[var]:
            return False
        env = Env(bound, self.store.value, var, pos, null_logic=self.null_logic)
        for c in f.clauses:
            self.counters.predicate_evaluations += 1
            if not truth(evaluate(c, env)):
                return False
        return True

    def _in_win(self, b: Bindings, pos: int) -> bool:
        if self.window is None or not b:
            return True
        first = b[0][0]
        return self.window.inside(self.store.ts[first], first, self.store.ts[pos], pos)

    def _partition(self, b: Bindings, pos: int) -> bool:
        anchor = b[0][0]
        for attr in self.nfa.partition_attrs:
            v = self.store.value(pos, attr)
            if v is None or v != self.store.value(anchor, attr):
                return False
        return True

    def _ignore(self, run: Run, bound: dict, pos: int) -> bool:
        j, phase, b = run
        s = self.nfa.strategy
        if s is A.Strategy.STRICT_CONTIGUITY:
            g = False
        elif s is A.Strategy.PARTITION_CONTIGUITY:
            g = not self._partition(b, pos)
        elif s is A.Strategy.SKIP_TILL_NEXT_MATCH:
            f = self.nfa.take[j] if phase == ITER else self.nfa.begin[j]
            g = not self._holds(f, bound, self.vars[j], pos)
        else:
            g = True
        return g and self._in_win(b, pos)

    # ------------------------------------------------------------------ one event
    def _advance(self, run: Run, pos: int, runs: dict[Run, None], done: list[Bindings]) -> None:
        """All moves of one run on the event at pos (spec/000 §4.4). `runs` collects the event's new runs
        as a set in creation order (§9 A2): a run created twice is one run, and a trailing closure's run
        is checked for a match once (the optimized engine's work counters are the same)."""
        nfa = self.nfa
        j, phase, b = run
        comp, last = nfa.components[j], j == nfa.n - 1
        bound = self._bound(b)
        if phase == FIRST:
            if self._holds(nfa.begin[j], bound, comp.var, pos) and self._in_win(b, pos):
                nb = b + ((pos,),)
                self.counters.partial_matches += 0 if last and not comp.kleene else 1
                if comp.kleene:
                    new = (j, ITER, nb) not in runs
                    runs[(j, ITER, nb)] = None
                    if last and new:
                        self._emit_trailing(nb, done)
                elif last:
                    done.append(nb)
                else:
                    runs[(j + 1, FIRST, nb)] = None
            if j > 0 and self._ignore(run, bound, pos):
                runs[run] = None
            return
        t = self._holds(nfa.take[j], bound, comp.var, pos) and self._in_win(b, pos)
        g = self._ignore(run, bound, pos)
        if t:
            nb = b[:-1] + (b[-1] + (pos,),)
            self.counters.partial_matches += 1
            new = (j, ITER, nb) not in runs
            runs[(j, ITER, nb)] = None
            if last and new:
                self._emit_trailing(nb, done)
        if g:
            runs[run] = None
        if not last and self._holds(nfa.proceed[j], bound, None, None):
            nxt = nfa.components[j + 1]
            peek = self._holds(nfa.begin[j + 1], bound, nxt.var, pos) and self._in_win(b, pos)
            if peek or (not t and not g):  # Step 6: peek, or the opportunistic proceed
                self._advance((j + 1, FIRST, b), pos, runs, done)

    def _emit_trailing(self, b: Bindings, done: list[Bindings]) -> None:
        """A begin/take into a trailing closure is a match when the closure's proceed formula holds (§9 A3)."""
        if self._holds(self.nfa.proceed[-1], self._bound(b), None, None):
            done.append(b)

    def _on_event(self, pos: int) -> list[Match]:
        released = self._check_pending(pos)
        runs: dict[Run, None] = {}
        done: list[Bindings] = []
        cap = self.budget.max_state
        for run in self.runs:
            self._advance(run, pos, runs, done)
            if cap is not None and len(runs) > cap:  # checked as the runs grow: memory stays near the bound
                self.runs = list(runs)
                self.budget.check_state(len(runs), self._grown)
        self._advance((0, FIRST, ()), pos, runs, done)  # every event may start a run (§9 A15)
        self.runs = list(runs)
        self.budget.check_state(len(self.runs) + len(self.pending), self._grown)
        confirmed = []
        for b in dict.fromkeys(done):
            verdict = self._negations_pass(b)
            if verdict == "wait":
                self.pending.append(b)
            elif verdict:
                confirmed.append(b)
        if self.selection == "non_overlap":
            confirmed = self._non_overlap(confirmed)
        out = released + sorted(confirmed)
        if out and self.budget.max_state is not None:   # the events they bind, held until the feed returns
            self.budget.check_held(0, sum(len(c) for b in out for c in b))
        return [self._match(b) for b in out]

    def _grown(self) -> str:
        """The variable most live runs are at (the one whose partial matches grew)."""
        at = [j for j, _, _ in self.runs] or [self.nfa.n - 1]
        return self.vars[max(set(at), key=at.count)]

    # ------------------------------------------------------------------ negation
    def _blocks(self, neg, b: Bindings, pos: int) -> bool:
        """Whether the event at pos is a forbidden event of negation neg for the match b."""
        return self._holds(neg.formula, self._bound(b), neg.component.var, pos)

    def _negations_pass(self, b: Bindings):
        """True, False, or 'wait' when a trailing negation can only be decided by later events."""
        wait = False
        ts = self.store.ts
        for neg in self.nfa.negations:
            if neg.gap == self.nfa.n:
                wait = True
                continue
            if neg.gap == 0:
                first, lastp = b[0][0], b[-1][-1]
                p = first - 1
                while p >= 0:
                    if self.window is not None and not self.window.inside_back(ts[lastp], lastp, ts[p], p):
                        break
                    if self._blocks(neg, b, p):
                        return False
                    p -= 1
            else:
                for p in range(b[neg.gap - 1][-1] + 1, b[neg.gap][0]):
                    if self._blocks(neg, b, p):
                        return False
        return "wait" if wait else True

    def _check_pending(self, pos: int) -> list[Bindings]:
        """Let the event at pos block pending matches inside its window; release those whose window closed."""
        if not self.pending:
            return []
        keep, released = [], []
        ts = self.store.ts
        for b in self.pending:
            first = b[0][0]
            if self.window is not None and not self.window.inside(ts[first], first, ts[pos], pos):
                released.append(b)
            elif not any(self._blocks(neg, b, pos) for neg in self.nfa.negations if neg.gap == self.nfa.n):
                keep.append(b)
        self.pending = keep
        return released

    # ------------------------------------------------------------------ output
    def _key(self, pos: int) -> tuple:
        return tuple(self.store.value(pos, a) for a in self.nfa.partition_attrs)

    def _non_overlap(self, done: list[Bindings]) -> list[Bindings]:
        """One match per partition: the latest start ("shortest", §9 A9); then that partition's runs end."""
        chosen: dict[tuple, Bindings] = {}
        for b in sorted(done):
            key = self._key(b[0][0])
            if key not in chosen or self._preference(b) > self._preference(chosen[key]):
                chosen[key] = b
        if chosen:
            self.runs = [r for r in self.runs if not r[2] or self._key(r[2][0][0]) not in chosen]
        return list(chosen.values())

    @staticmethod
    def _preference(b: Bindings) -> tuple:
        """Among matches completing together in one partition, the greatest wins: latest start, then
        fewest events (ties keep the first in canonical order)."""
        return (b[0][0], -sum(map(len, b)))

    def _match(self, b: Bindings) -> Match:
        ids = self.store.ids
        bindings = {var: tuple(ids[p] for p in ps) for var, ps in zip(self.vars, b)}
        payload = {}
        if self.nfa.query.returns:
            env = Env(self._bound(b), self.store.value, null_logic=self.null_logic)
            payload = {r.name: evaluate(r.expr, env) for r in self.nfa.query.returns}
        return Match.make(bindings, self.store.ts[b[-1][-1]], payload)
