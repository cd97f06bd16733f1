"""Sequence scan and construction, SSC (spec/002 §3.2, §4.1–4.3, the verified pseudo-code of §4.6).

Sequence scan (SS→) runs the NFA of the positive components over the stream and records, per state, the
events that fired the transition into it on an Active Instance Stack, each with its RIP. Sequence
construction (SC←) runs, for each new instance of the accepting state, a depth-first search back along
RIPs; every root-to-leaf path is one sequence (a tuple of stream positions, one per positive component).

Pushed down into SSC, as the plan options say:
- PAIS on one equivalence test: stacks partitioned by the attribute; transition filtering drops an event
  whose partition is empty at the previous state; construction stays inside one partition.
- Dynamic Filtering: the other equivalence tests are checked during the DFS, cutting a branch at the
  first instance that disagrees with the root (SASE+ dialect: a missing value never agrees); under the
  RFID dialect's missing-attribute rule the test is a star on the first component, so it is decided at
  the leaf (a component without the attribute agrees with anything).
- Multi-PAIS (alternative to DF): the further tests filter transitions in SS by intersecting per-attribute
  stacks; construction in the first PAIS is lossy, so σ keeps those tests.
- Simple predicates: an event that fails a component's one-variable predicates makes no transition.
- Windows in SS (stacks pruned of instances that left the window; an event whose previous stack is empty
  after pruning is dropped) and in SC (the DFS stops at the first instance out of the root's window).
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable, Hashable

from cepkit.front.binding import WindowBound
from cepkit.front.evaluate import compare_values
from cepkit.core.counters import Counters
from cepkit.reference.rfid.stacks import ALL, MultiIndex, PartitionedStacks

_SKIP = object()


def norm(v: object) -> Hashable:
    """A hashable form of a value under which Python equality is the evaluator's `=` (a quoted number
    equals that number wherever the evaluator says so), for partition keys and Dynamic Filtering."""
    if isinstance(v, str):
        try:
            n = Fraction(v.strip())
        except (ValueError, ZeroDivisionError):
            return v
        return n if compare_values("=", v, n) else v
    return v


class SSC:
    """The SSC operator for positive components 0..n-1 (`accepts[i]`: the event types of component i)."""

    def __init__(self, n: int, *, ts: list[int], types: list[str], value: Callable[[int, str], object],
                 admit: Callable[[int, int], bool], counters: Counters, partition: str | None = None,
                 df: tuple[str, ...] = (), multi: tuple[str, ...] = (), window_in_scan: bool = True,
                 window_in_construction: bool = True, missing_true: bool = False):
        self.n = n
        self.ts, self.types, self.value = ts, types, value
        self.admit = admit                      # simple predicates pushed into the scan: admit(i, pos)
        self.counters = counters
        self.partition = partition if n > 1 else None
        self.df = tuple(df) if n > 1 else ()
        self.multi = tuple(multi) if n > 1 and partition else ()
        self.push_window = (window_in_scan, window_in_construction)
        self.window: WindowBound | None = None
        self.window_in_scan = self.window_in_construction = False
        self.missing_true = missing_true
        self.accepts: list[frozenset[str]] = [frozenset() for _ in range(n)]
        self.stacks = PartitionedStacks(n)
        self.multi_index = MultiIndex(n, (self.partition,) + self.multi) if self.multi else None
        self.sequences_constructed = 0
        self.merged = False                     # PAIS given up (RFID: an event without the attribute)

    def bind(self, accepts: list[frozenset[str]], window: WindowBound | None) -> None:
        """The event types each state accepts (names as in the stream) and the window in stream terms."""
        self.accepts = list(accepts)
        self.window = window
        self.window_in_scan = self.push_window[0] and window is not None
        self.window_in_construction = self.push_window[1] and window is not None

    # ------------------------------------------------------------------ window
    def _inside(self, first: int, last: int) -> bool:
        w = self.window
        return w.inside(self.ts[first], first, self.ts[last], last)

    # ------------------------------------------------------------------ scan
    def _key(self, pos: int) -> Hashable:
        """The event's partition, ALL without PAIS, or _SKIP when it cannot be in any match."""
        if self.partition is None:
            return ALL
        attrs = (self.partition,) + self.multi
        if any(self.value(pos, a) is None for a in attrs):
            if not self.missing_true:
                return _SKIP  # SASE+: a comparison with a missing value is false, so no match has it
            self._give_up_partitioning()  # RFID: the event agrees with every partition (A10)
            return ALL
        return norm(self.value(pos, self.partition))

    def _give_up_partitioning(self) -> None:
        """Merge PAIS into one AIS and move the PAIS attributes into Dynamic Filtering. Exact: every
        earlier event had the attribute, so the partitions were exactly its equivalence classes."""
        self.stacks.merge()
        self.df = (self.partition,) + self.multi + self.df
        self.partition, self.multi, self.multi_index = None, (), None
        self.merged = True

    def on_event(self, pos: int) -> list[tuple[int, ...]]:
        """Feed the event at pos; return the sequences whose accepting instance it is (DFS order)."""
        out: list[tuple[int, ...]] = []
        t = self.types[pos]
        alive = (lambda p: self._inside(p, pos)) if self.window_in_scan else None
        for i in range(self.n - 1, -1, -1):  # descending: an event never precedes itself (A13)
            if t not in self.accepts[i] or not self.admit(i, pos):
                continue
            if self.n == 1:
                self.sequences_constructed += 1
                out.append((pos,))
                continue
            key = self._key(pos)
            if key is _SKIP:
                continue
            if i == 0:
                self._push(0, key, pos, None)
                continue
            prev = self.stacks.get(i - 1, key)
            if prev is None:
                continue                              # PAIS transition filtering
            if alive:
                prev.prune(alive)                     # window in SS
            if not len(prev):
                continue
            if self.multi_index is not None:          # Multi-PAIS cross-attribute filtering
                values = {a: norm(self.value(pos, a)) for a in self.multi_index.attrs}
                if not self.multi_index.candidates(i - 1, values, alive):
                    continue
            rip = prev.top
            self._push(i, key, pos, rip)
            if i == self.n - 1:
                self._construct(pos, key, rip, out)
        return out

    def _push(self, i: int, key: Hashable, pos: int, rip: int | None) -> None:
        st = self.stacks.stack(i, key)
        if self.window_in_scan:
            st.prune(lambda p: self._inside(p, pos))
        st.push(pos, rip)
        self.counters.partial_matches += 1
        if self.multi_index is not None:
            values = {a: norm(self.value(pos, a)) for a in self.multi_index.attrs}
            alive = (lambda p: self._inside(p, pos)) if self.window_in_scan else None
            # the PAIS push above is the first attribute's; count the further attributes' pushes
            self.counters.partial_matches += self.multi_index.push(i, values, pos, alive) - 1

    # ------------------------------------------------------------------ construction
    def _construct(self, root: int, key: Hashable, rip: int, out: list[tuple[int, ...]]) -> None:
        path = [0] * self.n
        path[-1] = root
        if self.df and not self.missing_true:
            if any(self.value(root, a) is None for a in self.df):
                return
        self._dfs(self.n - 2, rip, key, root, path, out)

    def _dfs(self, i: int, rip: int, key: Hashable, root: int, path: list[int], out: list) -> None:
        st = self.stacks.get(i, key)
        if st is None:
            return
        for pos, r in st.down_from(rip):
            if self.window_in_construction and not self._inside(pos, root):
                break                                  # window in SC: older instances are out too
            if self.df and not self.missing_true and not self._agrees(pos, root):
                continue                               # Dynamic Filtering: cut at the first mismatch
            path[i] = pos
            if i == 0:
                if self.df and self.missing_true and not self._star(path):
                    continue
                self.sequences_constructed += 1
                out.append(tuple(path))
            else:
                self._dfs(i - 1, r, key, root, path, out)

    def _agrees(self, pos: int, root: int) -> bool:
        """SASE+ DF: the instance has every DF attribute, equal to the root's (transitivity does the rest)."""
        for a in self.df:
            self.counters.predicate_evaluations += 1
            v = self.value(pos, a)
            if v is None or norm(v) != norm(self.value(root, a)):
                return False
        return True

    def _star(self, path: list[int]) -> bool:
        """RFID DF at the leaf: [a] is `p_j.a = p_0.a` for every j, true when either value is missing."""
        for a in self.df:
            self.counters.predicate_evaluations += 1
            v0 = self.value(path[0], a)
            if v0 is None:
                continue
            v0 = norm(v0)
            for p in path[1:]:
                v = self.value(p, a)
                if v is not None and norm(v) != v0:
                    return False
        return True

    # ------------------------------------------------------------------ introspection
    def snapshot(self) -> list[dict[Hashable, list[tuple[int, int | None]]]]:
        return self.stacks.snapshot()
