"""The negation operator NG (spec/002 §3.1, §3.3): a per-candidate check over a history of negated-type events.

A negated component `!(T y)` in gap g of the positive sequence p_0..p_{n-1} forbids, for one candidate
sequence, any event y of one of its types that lies in the gap's interval (by stream position) and
satisfies every clause that mentions y (evaluated with the positives bound and y = that event):
- middle (0 < g < n): strictly between p_{g-1} and p_g;
- leading (g = 0): before p_0 and inside the window that ends at the last positive (no window: any);
- trailing (g = n): after p_{n-1} and inside the window that starts at the first positive (no window:
  any later event). Such a candidate is postponed (§3.3): held until an event arrives that is out of
  the first positive's window (then decided), or until close().
Under the RFID dialect a trailing-negation candidate must also span less than W - 1 among its
positives (spec/002 §7 A4(a): the first positive lies at t - W + 1 and the last before t).

The history keeps, per negated event type, the positions of its events in stream order (a simple form of
§3.3's per-type index: binary search for the interval's ends, bulk removal of the oldest events). An
event is kept while it can still block: inside the window of the current event (leading and middle
negations), or after the last positive of a held candidate (trailing negations), §3.3 retention.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from typing import Callable, Iterator

from cepkit.front.binding import WindowBound
from cepkit.front.evaluate import Env, evaluate, truth
from cepkit.front.language import ast as A
from cepkit.core.counters import Counters

Seq = tuple[int, ...]


@dataclass
class Negation:
    """One negated component in gap `gap` (0 = before the first positive, n = after the last), with the
    clauses that mention its variable; `types` is bound to the stream's type names."""

    component: A.Component
    gap: int
    clauses: tuple[A.Expr, ...]
    types: frozenset[str] = field(default_factory=frozenset)


class History:
    """Stream positions of the events of one type, ascending; the oldest are removed in bulk."""

    def __init__(self) -> None:
        self.pos: list[int] = []
        self.start = 0

    def __len__(self) -> int:
        return len(self.pos) - self.start

    def add(self, pos: int) -> None:
        self.pos.append(pos)

    def between(self, lo: int, hi: int) -> Iterator[int]:
        """Positions p with lo < p < hi, ascending."""
        i = bisect_right(self.pos, lo, self.start)
        j = bisect_left(self.pos, hi, i)
        return iter(self.pos[i:j])

    def before(self, hi: int) -> Iterator[int]:
        """Positions p < hi, most recent first."""
        j = bisect_left(self.pos, hi, self.start)
        for k in range(j - 1, self.start - 1, -1):
            yield self.pos[k]

    def after(self, lo: int) -> Iterator[int]:
        """Positions p > lo, oldest first."""
        i = bisect_right(self.pos, lo, self.start)
        for k in range(i, len(self.pos)):
            yield self.pos[k]

    def prune(self, keep: Callable[[int], bool]) -> None:
        """Drop the oldest positions until the first one to keep (keep is monotone in the position)."""
        while self.start < len(self.pos) and not keep(self.pos[self.start]):
            self.start += 1
        if self.start > 64 and self.start * 2 > len(self.pos):
            del self.pos[:self.start]
            self.start = 0


class NegationOperator:
    """NG for every negated component of a query, with the postponed trailing-negation candidates."""

    def __init__(self, negations: list[Negation], n: int, vars_: list[str], *, ts: list[int],
                 types: list[str], value: Callable[[int, str], object], counters: Counters,
                 missing_true: bool = False, rfid: bool = False, null_logic: str = "two_valued"):
        self.negations = negations
        self.n = n
        self.vars = vars_
        self.ts, self.types, self.value = ts, types, value
        self.counters = counters
        self.missing_true = missing_true
        self.null_logic = null_logic   # the query's Conventions.null_logic
        self.rfid = rfid
        self.window: WindowBound | None = None
        self.hist: dict[str, History] = {}
        self.pending: list[Seq] = []
        self.trailing = [g for g in negations if g.gap == n]
        self.early = [g for g in negations if g.gap < n]

    def bind(self, window: WindowBound | None) -> None:
        self.window = window
        for neg in self.negations:
            for t in neg.types:
                self.hist.setdefault(t, History())

    # ------------------------------------------------------------------ stream
    def observe(self, pos: int) -> None:
        """Record the event if it is of a negated type (before SSC handles it, §4.6)."""
        h = self.hist.get(self.types[pos])
        if h is not None:
            h.add(pos)

    def emit(self, seq: Seq) -> bool:
        """A sequence that passed σ (and WD): True when it is a result now; False when it is blocked or
        held for a trailing negation (then `release` or `close` gives it later)."""
        if not self.negations:
            return True
        if self.trailing and self.rfid and self.window is not None:
            w = self.window
            if not WindowBound(w.size - 1, w.by, w.strict).inside(self.ts[seq[0]], seq[0], self.ts[seq[-1]], seq[-1]):
                return False  # A4(a): last positive before t = first + W - 1
        if any(self._blocked(neg, seq) for neg in self.early):
            return False
        if self.trailing:
            self.pending.append(seq)
            return False
        return True

    def release(self, now: int) -> list[Seq]:
        """Held candidates whose window closed with the event at `now`, unblocked ones in holding order."""
        if not self.pending or self.window is None:
            return []
        out, keep = [], []
        w = self.window
        for seq in self.pending:
            if w.inside(self.ts[seq[0]], seq[0], self.ts[now], now):
                keep.append(seq)
            elif not any(self._blocked(neg, seq) for neg in self.trailing):
                out.append(seq)
        self.pending = keep
        return out

    def close(self) -> list[Seq]:
        """End of stream: every held candidate is decided over the events seen."""
        done, self.pending = self.pending, []
        return [seq for seq in done if not any(self._blocked(neg, seq) for neg in self.trailing)]

    def prune(self, now: int) -> None:
        """Forget negated-type events that can block nothing any more (only after `release`)."""
        if not self.hist:
            return
        w = self.window
        held = min((seq[-1] for seq in self.pending), default=None)
        if w is None and self.early:
            return  # leading or middle negation without a window: any earlier event may block

        def keep(p: int) -> bool:
            if held is not None and p > held:
                return True
            return bool(self.early) and w is not None and w.inside_back(self.ts[now], now, self.ts[p], p)

        for h in self.hist.values():
            h.prune(keep)

    # ------------------------------------------------------------------ the check
    def _candidates(self, neg: Negation, seq: Seq) -> Iterator[int]:
        """Negated-type events in the negation's interval for this candidate."""
        w = self.window
        first, last = seq[0], seq[-1]
        for t in neg.types:
            h = self.hist.get(t)
            if h is None:
                continue
            if 0 < neg.gap < self.n:
                yield from h.between(seq[neg.gap - 1], seq[neg.gap])
            elif neg.gap == 0:
                for p in h.before(first):
                    if w is not None and not w.inside_back(self.ts[last], last, self.ts[p], p):
                        break
                    yield p
            else:
                for p in h.after(last):
                    if w is not None and not w.inside(self.ts[first], first, self.ts[p], p):
                        break
                    yield p

    def _blocked(self, neg: Negation, seq: Seq) -> bool:
        bound = {v: (p,) for v, p in zip(self.vars, seq)}
        for y in self._candidates(neg, seq):
            env = Env(bound, self.value, neg.component.var, y, self.missing_true, self.null_logic)
            if all(self._clause(c, env) for c in neg.clauses):
                return True
        return False

    def _clause(self, clause: A.Expr, env: Env) -> bool:
        self.counters.predicate_evaluations += 1
        return truth(evaluate(clause, env))
