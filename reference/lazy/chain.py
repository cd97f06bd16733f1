"""The lazy Chain NFA (spec/001 §4, physical form of §4.10), one chain per OR alternative (Multi-Chain, §4.7).

States q_0..q_n follow the frequency order. Every event is first offered to the instances waiting at each
state, then stored in the buffer of each variable it can bind (after processing, so an event is never
found twice). Entering state i searches variable i's buffer between the ordering filters prec / succ
(the bound pattern-predecessors and -successors, by binary search); an instance whose successor filter
is unbounded also waits at state i for variable i to arrive from the stream. A Kleene state enumerates
every non-empty subset of the candidates (from the stream: only subsets whose last event is the new one).

Negation: post-processing (PP, checked at the accepting state, or held until the window closes) or
first-chance (FC, checked on entering the first state where every variable it depends on is bound;
spec/001 §4.5.2 with the §10 A4 fix: a window-bounded leading negation depends on every positive).
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter
from itertools import combinations

from cepkit.core.errors import QueryError
from cepkit.core.events import EventBatch
from cepkit.front.lazy.order import DEFAULT_PREFIX, chain_order, parse_order, resolve_names
from cepkit.front.pattern.model import BEGIN, Branch, Check, Pattern
from cepkit.reference.pattern.program import INF, Assignment, PatternProgram

NEGATION_STRATEGIES = {"post-processing": "pp", "pp": "pp", "post_processing": "pp",
                       "first-chance": "fc", "fc": "fc", "first_chance": "fc"}


class _Chain:
    """The static part of one alternative's chain: order, ordering filters, checks and FC negations per state."""

    def __init__(self, branch: Branch, order: tuple[str, ...], negation: str):
        self.branch = branch
        self.order = order
        n = len(order)
        self.lo_vars = [[u for u in order[:i] if u in branch.preds(order[i])] for i in range(n)]
        self.hi_vars = [[u for u in order[:i] if u in branch.succs(order[i])] for i in range(n)]
        self.checks: list[list[Check]] = [[] for _ in range(n)]
        for ch in branch.checks:
            i = max(order.index(v) for v in ch.needs)
            self.checks[i].append(ch)
        self.fc_at: list[list[str]] = [[] for _ in range(n + 1)]
        self.pp: list[str] = []
        for neg in branch.negations:
            if negation == "fc":
                dep = self._dependencies(neg.name)
                self.fc_at[max((order.index(v) + 1 for v in dep), default=0)].append(neg.name)
            else:
                self.pp.append(neg.name)

    def _dependencies(self, neg: str) -> set[str]:
        b = self.branch
        if not b.succs(neg):
            raise QueryError(f"first-chance negation cannot check !{neg}: no positive event follows it, so its "
                             f"absence is known only when the window closes; use post-processing "
                             f"(spec/001 §4.5.1)", b.var(neg).pos.line or None, b.var(neg).pos.column or None)
        dep = set(b.preds(neg)) | set(b.succs(neg)) | set(b.neg_checks[neg].needs)
        if not b.preds(neg):
            dep |= set(b.names)  # window-bounded leading negation (spec/001 §10 A4)
        return dep


class LazyChainProgram(PatternProgram):
    engine_name = "reference-lazy"

    def __init__(self, pattern: Pattern, order=None, negation: str = "post-processing",
                 estimate_prefix: int = DEFAULT_PREFIX):
        super().__init__(pattern)
        if negation not in NEGATION_STRATEGIES:
            raise QueryError(f"unknown negation strategy '{negation}'", expected=["post-processing", "first-chance"])
        self.negation = NEGATION_STRATEGIES[negation]
        names = parse_order(order)
        self.preferred = resolve_names(pattern, names) if names is not None else None
        if not isinstance(estimate_prefix, int) or estimate_prefix < 1:
            raise QueryError(f"estimate_prefix must be a positive number of events, got {estimate_prefix!r}")
        self.estimate_prefix = estimate_prefix
        self.chains: list[_Chain] | None = None
        for b in pattern.branches:  # refuse at compile time what FC cannot express
            _Chain(b, tuple(v.name for v in b.positives), self.negation)
        self.buffers: dict[str, list[int]] = {}
        self._qualified: dict = {}
        self.waiting: list[list[list[Assignment]]] = []
        if self.preferred is not None:
            self._build(lambda name: 0)

    # ------------------------------------------------------------------ construction
    def _build(self, rate) -> None:
        self.chains = [_Chain(b, chain_order(b, self.preferred or [], rate), self.negation)
                       for b in self.pattern.branches]
        self.waiting = [[[] for _ in c.order] for c in self.chains]

    @property
    def orders(self) -> list[tuple[str, ...]]:
        """The frequency order of each alternative's chain (after the first batch when estimated)."""
        return [c.order for c in self.chains or ()]

    def _feed(self, batch: EventBatch, progress=None):
        if self.chains is None:
            self._bind(batch)
            self._build(self._estimate(batch))
        return super()._feed(batch, progress)

    def _estimate(self, batch: EventBatch):
        """Rates per variable from the first events: events of its types that pass its one-event filters."""
        k = min(len(batch), self.estimate_prefix)
        probe = PatternProgram(self.pattern)
        probe._bind(batch.slice(0, k))
        probe.store.add(batch.slice(0, k))
        counts: Counter = Counter()
        for b in self.pattern.branches:
            for v in b.positives:
                counts[v.name] = sum(1 for p in range(k) if probe.is_type(v.name, p) and probe.passes_unary(b, v.name, p))
        return lambda name: counts[name]

    # ------------------------------------------------------------------ per event
    def qualifies(self, branch: Branch, name: str, pos: int) -> bool:
        """Whether the event at pos can bind `name` (its type, and its one-event filters; cached per event)."""
        key = (id(branch), name, pos)
        if key not in self._qualified:
            self._qualified[key] = self.is_type(name, pos) and (
                branch.var(name).kleene or self.passes_unary(branch, name, pos))
        return self._qualified[key]

    def _evict(self, pos: int) -> None:
        for buf in self.buffers.values():
            self.evict(buf, pos)

    def live_count(self) -> int:
        return sum(len(ms) for w in self.waiting for ms in w)

    def live_assignments(self):
        return (m for w in self.waiting for ms in w for m in ms)

    def on_event(self, pos: int):
        self._qualified = {}
        self._evict(pos)
        # the matches this event may complete before the budget is checked inside it (_hold)
        self._live_before = self.live_count() + len(self.pending)
        self._held = 0
        cap = self.budget.max_state
        # the event's matches alone (the rest: after the event), where a Kleene state can enumerate subsets
        kleene = any(v.kleene for c in self.chains for v in c.branch.positives)
        self._room = cap if cap is not None and kleene else INF
        out: list = []
        for bi, chain in enumerate(self.chains):
            alive = [(i, m) for i, ms in enumerate(self.waiting[bi]) for m in ms if self._alive(m, pos)]
            self.waiting[bi] = [[] for _ in chain.order]
            for i, m in alive:
                self.waiting[bi][i].append(m)
            if self.qualifies(chain.branch, chain.order[0], pos):
                self._take(bi, 0, {}, pos, out)
            for i, m in alive:  # instances created by this event are not offered it again
                if self.qualifies(chain.branch, chain.order[i], pos):
                    self._take(bi, i, m, pos, out)
        for bi, chain in enumerate(self.chains):
            for v in chain.branch.positives + chain.branch.negations:
                if (v.negated and self.is_type(v.name, pos)) or (not v.negated and self.qualifies(chain.branch, v.name, pos)):
                    buf = self.buffers.setdefault(self._key(bi, v.name), [])
                    if not buf or buf[-1] != pos:
                        buf.append(pos)
        return out

    def _alive(self, m: Assignment, pos: int) -> bool:
        """False once the event at pos no longer fits in a window with m's first event (timeout)."""
        if self.window is None:
            return True
        first = min(self.positions(m))
        return self.window.inside(self.store.ts[first], first, self.store.ts[pos], pos)

    def _key(self, bi: int, name: str) -> str:
        return f"{bi}:{name}"

    def _take(self, bi: int, i: int, m: Assignment, pos: int, out: list) -> None:
        """The stream event at pos taken at state i (a Kleene state: with every subset of earlier candidates)."""
        chain = self.chains[bi]
        name = chain.order[i]
        lo, _ = self._filters(chain, i, m)
        if not lo < pos:
            return
        if chain.branch.var(name).kleene:
            earlier = self._candidates(bi, chain, i, m, hi=pos)
            self._subsets(len(earlier), name)
            for k in range(0, len(earlier) + 1):
                for subset in combinations(earlier, k):
                    self._bind_and_advance(bi, i, m, subset + (pos,), out)
        else:
            self._bind_and_advance(bi, i, m, (pos,), out)

    def _filters(self, chain: _Chain, i: int, m: Assignment) -> tuple[int, float]:
        lo = max((m[u][-1] for u in chain.lo_vars[i]), default=-1)
        hi = min((m[u][0] for u in chain.hi_vars[i]), default=INF)
        return lo, hi

    def _candidates(self, bi: int, chain: _Chain, i: int, m: Assignment, hi: float | None = None) -> list[int]:
        lo, h = self._filters(chain, i, m)
        hi = h if hi is None else min(h, hi)
        buf = self.buffers.get(self._key(bi, chain.order[i]), [])
        a = bisect_right(buf, lo)
        b = len(buf) if hi == INF else bisect_left(buf, hi)
        used = set(self.positions(m))
        return [p for p in buf[a:b] if p not in used]

    def _bind_and_advance(self, bi: int, i: int, m: Assignment, ps: tuple[int, ...], out: list) -> None:
        chain = self.chains[bi]
        m2 = dict(m)
        m2[chain.order[i]] = ps
        if not self.fits(self.positions(m2)):
            return
        if all(self.check(chain.branch, ch, m2) for ch in chain.checks[i] if not self._is_unary(chain, ch)):
            self._advance(bi, i + 1, m2, out)

    @staticmethod
    def _is_unary(chain: _Chain, ch: Check) -> bool:
        """One-event filters of a non-Kleene variable were applied when its events were buffered."""
        return ch.kind == BEGIN and ch.needs == {ch.var} and not chain.branch.var(ch.var).kleene

    def _advance(self, bi: int, i: int, m: Assignment, out: list) -> None:
        """Enter state i with the partial match m."""
        chain = self.chains[bi]
        if i < len(chain.order):
            self.counters.partial_matches += 1
        for neg in chain.fc_at[i]:
            if any(self.blocks(chain.branch, neg, m, y) for y in self.buffers.get(self._key(bi, neg), [])):
                return
        if i == len(chain.order):
            out.append((bi, m))
            self._hold()
            return
        name = chain.order[i]
        cands = self._candidates(bi, chain, i, m)
        if chain.branch.var(name).kleene:
            self._subsets(len(cands), name)
            for k in range(1, len(cands) + 1):
                for subset in combinations(cands, k):
                    self._bind_and_advance(bi, i, m, subset, out)
        else:
            for y in cands:
                self._bind_and_advance(bi, i, m, (y,), out)
        if not chain.hi_vars[i]:
            self.waiting[bi][i].append(m)

    def _subsets(self, c: int, name: str) -> None:
        """A Kleene state's c buffered candidates stand for their 2^c subsets, each an instance to check:
        past max_state they are the bound's ResourceLimit naming the variable, before any is enumerated."""
        cap = self.budget.max_state
        if cap is not None and c >= cap.bit_length():   # 2^c > cap
            self.budget.check_state(max(1 << min(c, 62), self._live_before), lambda: name)

    def _hold(self) -> None:
        """One more match completed and held during this event: a Kleene state enumerates the subsets of its
        candidates, so one event's matches can pass max_state; checked here (the instances that wait are
        checked after the event, as on the other engines)."""
        self._held += 1
        if self._held > self._room:
            self.budget.check_state(self._held + self._live_before, self._grown)

    def accept(self, bi: int, m: Assignment, negs=None):
        """PP negations are decided here; FC ones were checked on the way."""
        return super().accept(bi, m, self.chains[bi].pp if negs is None else negs)

    def on_close(self):
        self.waiting = [[[] for _ in c.order] for c in self.chains or ()]
        return ()
