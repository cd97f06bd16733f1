"""The AFA operator over disordered streams: spec/003 §5 (Algorithm 1 with the errata of §5.9) and §6.

State: an index of entries ordered by LE (the paper's rbtree; here a sorted key list), each holding its
event and the list of pmatch nodes ending at it, ordered by StartLE. A node is
(StartLE, MinRE, q, r): MinRE is the smallest RE of the events consumed, so the output lifetime of a
final node at entry y is [y.LE, MinRE) for any lifetimes (spec/003 A3; with a uniform window
MinRE = StartRE). The operator is maximally speculative: after every input element its net output
equals Definition 2 on the net input so far.

Every element is applied atomically: a protocol violation or a failing fence/transfer raises an error
naming the element, and the operator's state and output are left exactly as before.
"""
from __future__ import annotations

import bisect
from collections import Counter
from typing import Any, Iterable

from cepkit.front.afa.model import INF, Afa, Arc, Lifetime, admitted_arc
from cepkit.front.afa.stream import (
    ArcDelete, ArcInsert, ArcPunctuate, Element, Event, Insert, OutPunctuation, Output, Punctuate, Retract,
)
from cepkit.core.errors import EventError, QueryError

Node = tuple  # (start_le, min_re, q, r)


class ProtocolError(EventError):
    """An input element the operator must refuse (spec/003 A9); names the element."""


class AfaOperator:
    """The speculative AFA operator (the ignorable-arc optimization is `ignorable.IgnorableAfaOperator`)."""

    def __init__(self, afa: Afa):
        self.afa = afa
        self.states: set = set(afa.states)
        self.finals: set = set(afa.finals)
        self.arcs: list[Arc] = list(afa.arcs)  # every arc event still stored (deleted ones until cleaned)
        self.live: dict[str, Arc] = {a.name: a for a in afa.arcs}  # arcs not deleted, by name
        # every arc event ever inserted with its resolved lifetime (None once retracted), for the oracle
        self.arc_history: list[Arc | None] = list(afa.arcs)
        self.keys: list = []  # LEs of the entries, ascending
        # LE -> (event or None for the cleaned cover, nodes); entries and node lists are never changed in
        # place, only replaced, so a shallow copy of `entries` is a snapshot
        self.entries: dict[Any, tuple] = {}
        self.t_e: Any = -INF
        self.t_p: Any = -INF
        self.arc_floor: Any = -INF  # latest arc punctuation
        self.max_le: Any = -INF
        self.outputs: list[Output | OutPunctuation] = []
        self.net: Counter = Counter()
        self._out: list = []

    # ------------------------------------------------------------------ public interface
    def feed(self, element: Element) -> list[Output | OutPunctuation]:
        """Apply one input element; returns its output. On any error the state is unchanged."""
        saved = self._snapshot()
        self._out = []
        try:
            if isinstance(element, Insert):
                self._insert(element.event)
            elif isinstance(element, Retract):
                self._retract(element.event)
            elif isinstance(element, Punctuate):
                self._punctuate(element.t)
            elif isinstance(element, ArcInsert):
                self._arc_insert(element.arc, element.lifetime)
            elif isinstance(element, ArcDelete):
                self._arc_delete(element.name, element.explicit)
            elif isinstance(element, ArcPunctuate):
                self.arc_floor = max(self.arc_floor, element.t)
            else:
                raise TypeError(f"not a stream element: {element!r}")
        except BaseException:
            self._restore(saved)
            self._out = []
            raise
        out, self._out = self._out, []
        for o in out:
            self.outputs.append(o)
            if isinstance(o, Output):
                self.net[o.key] += o.sign
                if self.net[o.key] == 0:
                    del self.net[o.key]
        return out

    def feed_all(self, elements: Iterable[Element]) -> list[Output | OutPunctuation]:
        out: list = []
        for x in elements:
            out += self.feed(x)
        return out

    def net_output(self) -> Counter:
        """The net output multiset: (payload, le, re) -> count."""
        return Counter(self.net)

    def entry_view(self) -> list[tuple[Any, Event | None, list[Node]]]:
        """The stored entries in LE order (for tests): (LE, event or None if cleaned, nodes)."""
        return [(k, self.entries[k][0], list(self.entries[k][1])) for k in self.keys]

    def event_set(self) -> list[Event]:
        return [self.entries[k][0] for k in self.keys if self.entries[k][0] is not None]

    @property
    def t_curr(self) -> Any:
        return max(self.t_e, self.max_le)

    # ------------------------------------------------------------------ atomicity
    def _snapshot(self) -> tuple:
        return (set(self.states), set(self.finals), list(self.arcs), dict(self.live), list(self.arc_history),
                list(self.keys), dict(self.entries),
                self.t_e, self.t_p, self.arc_floor, self.max_le)

    def _restore(self, s: tuple) -> None:
        (self.states, self.finals, self.arcs, self.live, self.arc_history, self.keys, self.entries,
         self.t_e, self.t_p, self.arc_floor, self.max_le) = s

    def resolved_arcs(self) -> list[Arc]:
        """Every arc event not retracted, with its resolved lifetime (the arcs Definition 2 sees)."""
        return [a for a in self.arc_history if a is not None]

    # ------------------------------------------------------------------ transitions
    def _from(self, q: Any, epsilon: bool, t: Any) -> list[Arc]:
        return [a for a in self.arcs if a.src == q and a.epsilon == epsilon and a.lifetime.contains(t)]

    def _eps_close(self, node: Node, e: Event) -> list[Node]:
        """The node followed by every node reachable from it by ε-arcs (one per path), depth first."""
        out = [node]
        s, m, q, r = node
        for a in self._from(q, True, e.le):
            if a.fires(None, r):
                out += self._eps_close((s, m, a.dst, a.apply(None, r)), e)
        return out

    def _make_transitions(self, nodes: list[Node], e: Event) -> list[Node]:
        out: list[Node] = []
        for s, m, q, r in nodes:
            if m <= e.le:
                continue  # window: the lifetimes of the match and of e do not intersect
            for a in self._from(q, False, e.le):
                if a.fires(e, r):
                    out += self._eps_close((s, min(m, e.re), a.dst, a.apply(e, r)), e)
        return out

    def _new_transition(self, e: Event) -> list[Node]:
        starts = self._eps_close((e.le, INF, self.afa.start, self.afa.initial), e)
        return self._make_transitions(starts, e)

    def _emit_finals(self, sign: int, nodes: Iterable[Node], le: Any) -> None:
        for s, m, q, r in nodes:
            if q in self.finals:
                self._out.append(Output(sign, r, le, m))

    # ------------------------------------------------------------------ Algorithm 1
    def _check_event(self, e: Event, what: str) -> None:
        if not isinstance(e, Event):
            raise TypeError(f"{what}: not an Event: {e!r}")
        if e.le < self.t_e:
            raise ProtocolError(f"{what} of {e.describe()} below the current punctuation {self.t_e}", column="le")

    def _check_insertion(self, e: Event) -> None:
        """An insertion must be at or above the punctuation, have a non-empty lifetime and a new LE."""
        self._check_event(e, "insertion")
        if not (e.le < e.re):
            raise ProtocolError(f"insertion of {e.describe()}: empty lifetime (LE must be below RE)", column="re")
        if e.le in self.entries:
            raise ProtocolError(f"insertion of {e.describe()}: another event already has LE {e.le} "
                                "(timestamps must be unique, spec/003 A2)", column="le")

    def _insert(self, e: Event) -> None:
        self._check_insertion(e)
        ooo = bool(self.keys) and e.le < self.keys[-1]
        i = bisect.bisect_left(self.keys, e.le)
        if ooo:
            self._remove_invalidated(e.le)
        prev = self.entries[self.keys[i - 1]][1] if i > 0 else []
        nodes = self._make_transitions(prev, e) + self._new_transition(e)
        self._emit_finals(+1, nodes, e.le)
        self.keys.insert(i, e.le)
        self.entries[e.le] = (e, nodes)
        if ooo:
            self._propagate(i)
        self.max_le = max(self.max_le, e.le)

    def _retracted_index(self, e: Event) -> int:
        """The position in `keys` of the stored event a retraction names; ProtocolError if none is stored."""
        self._check_event(e, "retraction")
        stored = self.entries.get(e.le)
        if stored is None or stored[0] != e:
            raise ProtocolError(f"retraction of {e.describe()}, an event never inserted (or already retracted)")
        return self.keys.index(e.le)

    def _retract(self, e: Event) -> None:
        i = self._retracted_index(e)
        self._remove_invalidated(e.le)
        del self.keys[i]
        del self.entries[e.le]
        if i > 0:
            self._propagate(i - 1)

    def _remove_invalidated(self, t: Any) -> None:
        """Drop every node spanning t (StartLE <= t) from the entries at or after t; retract finals."""
        i = bisect.bisect_left(self.keys, t)
        while i < len(self.keys):
            k = self.keys[i]
            nodes = self.entries[k][1]
            n = 0
            while n < len(nodes) and nodes[n][0] <= t:
                n += 1
            if n == 0:
                break  # (Completeness): no later entry holds a node spanning t
            self._emit_finals(-1, nodes[:n], k)
            self.entries[k] = (self.entries[k][0], nodes[n:])
            i += 1

    def _propagate(self, i: int) -> None:
        """PropagateInsert from entry i: extend its nodes along the following entries, emitting finals."""
        z = self.entries[self.keys[i]][1]
        while z and i + 1 < len(self.keys):
            i += 1
            k = self.keys[i]
            z = self._make_transitions(z, self.entries[k][0])
            self._emit_finals(+1, z, k)
            ev, nodes = self.entries[k]
            self.entries[k] = (ev, z + nodes)

    def _rediff(self, i: int, beyond: Any, closed: bool = False) -> None:
        """Recompute the lists from entry i on, emitting only the difference of their final nodes.

        Stops at the first entry past `beyond` (> beyond, or >= when closed is False and equal counts as
        past) whose recomputed list equals the stored one: every later list is then unchanged.
        """
        prev = self.entries[self.keys[i - 1]][1] if i > 0 else []
        while i < len(self.keys):
            k = self.keys[i]
            ev, old = self.entries[k]
            new = self._make_transitions(prev, ev) + self._new_transition(ev)
            past = k > beyond or (k == beyond and not closed)
            if past and new == old:
                return
            self._emit_changes(k, Counter((r, m) for s, m, q, r in old if q in self.finals),
                               Counter((r, m) for s, m, q, r in new if q in self.finals))
            self.entries[k] = (ev, new)
            prev = new
            i += 1

    def _emit_changes(self, k: Any, old_f: Counter, new_f: Counter) -> None:
        """Output the difference of the accepted (register, match) multisets at key k: retractions, then
        insertions."""
        for (r, m), c in (old_f - new_f).items():
            self._out += [Output(-1, r, k, m)] * c
        for (r, m), c in (new_f - old_f).items():
            self._out += [Output(+1, r, k, m)] * c

    # ------------------------------------------------------------------ punctuation (§5.4)
    def _punctuate(self, t: Any) -> None:
        self.t_e = max(self.t_e, t)
        tp = self.t_e  # t_a is the implicit arc punctuation t_curr >= t_e (spec/003 §6, default mode)
        if tp <= self.t_p:
            return
        self.t_p = tp
        c = bisect.bisect_left(self.keys, tp) - 1  # cover(t_p): the latest entry with LE < t_p
        if c >= 0:
            for k in self.keys[:c]:
                del self.entries[k]
            self.keys = self.keys[c:]
            self.entries[self.keys[0]] = (None, self.entries[self.keys[0]][1])  # keep the cover's list only
        self.arcs = [a for a in self.arcs if not a.lifetime.ended_by(tp)]
        self.live = {n: a for n, a in self.live.items() if any(b is a for b in self.arcs)}
        self._out.append(OutPunctuation(tp))

    # ------------------------------------------------------------------ dynamic patterns (§6)
    def _arc_insert(self, arc: Arc, lifetime: Lifetime | None) -> None:
        if not isinstance(arc, Arc):
            raise TypeError(f"arc insertion: not an Arc: {arc!r}")
        arc = admitted_arc(arc, lifetime, self.live, self.states, self.arcs, self.afa.name, self.t_curr,
                           max(self.t_p, self.arc_floor), ProtocolError)
        lifetime = arc.lifetime
        if arc.dst not in self.states:
            self.states.add(arc.dst)
            if arc.is_final:
                self.finals.add(arc.dst)
        self.arcs.append(arc)
        self.live[arc.name] = arc
        self.arc_history.append(arc)
        if not (lifetime.lo_open and lifetime.lo >= self.t_curr):
            self._rediff_lifetime(lifetime)  # default mode (LE > t_curr) touches no stored event

    def _arc_delete(self, name: str, explicit: bool) -> None:
        arc = self.live.get(name)
        if arc is None:
            raise QueryError(f"arc deletion: no active arc named '{name}'")
        old = arc.lifetime
        if explicit:
            if old.lo < max(self.t_p, self.arc_floor):
                raise ProtocolError(f"explicit deletion of arc '{name}' with lifetime {old}: it starts below "
                                    f"the current punctuation {max(self.t_p, self.arc_floor)}")
            self.arcs = [a for a in self.arcs if a is not arc]
            self.arc_history = [None if a is arc else a for a in self.arc_history]
            del self.live[name]
            self._rediff_lifetime(old)
            return
        t = self.t_curr  # default mode: the arc stays valid for LE <= t_curr (spec/003 A13)
        if old.hi < t or (old.hi == t and not old.hi_closed):
            new = old
        else:
            new = Lifetime(old.lo, t, old.lo_open, hi_closed=True)
        resolved = arc.with_lifetime(new)
        self.arcs = [resolved if a is arc else a for a in self.arcs]
        self.arc_history = [resolved if a is arc else a for a in self.arc_history]
        del self.live[name]
        # every stored event has LE <= t_curr, so no stored list changes

    def _rediff_lifetime(self, lt: Lifetime) -> None:
        """Recompute from the first entry the lifetime can affect to the first unchanged one past it."""
        i = bisect.bisect_left(self.keys, lt.lo)
        if i < len(self.keys):
            self._rediff(i, lt.hi, lt.hi_closed)
