"""AFA+ignore: the ignorable-arc optimization (spec/003 §7.3, App. D) without run compression.

Nodes are objects that know what they derive: `eps` (their ε-children at the same entry) and `next`
(the nodes derived from them by consuming the next entry's event). When a node p consumes an event e
by an ignorable arc (a self-loop with the identity transfer) and the new node c is identical to p
(same StartLE, MinRE, state, register), c is p's *continuation*: everything c derives equals what p
would derive. So

- a late event e inserted after entry x: for each node p at x whose ignorable arc fires on e, the
  continuation c at e takes over p's old derivations (no retraction, no re-insertion); only the
  derivations of the other nodes at x are invalidated (App. D, steps 2-3);
- a retraction of e: a continuation's derivations go back to its parent; only the others are
  invalidated.

Everything else is Algorithm 1. The net output equals the basic operator's after every element; the
output stream has fewer retractions (spec/003 CC14). The paper's anchor + itree representation of runs
(its memory saving) is not reproduced: every node of a run is stored.
"""
from __future__ import annotations

import bisect
from collections import Counter
from typing import Any

from cepkit.front.afa.model import INF, Afa
from cepkit.reference.afa.operator import AfaOperator, ProtocolError
from cepkit.front.afa.stream import Event, Output


class Node:
    """A pmatch node (StartLE s, MinRE m, state q, register r) ending at entry `le`."""

    __slots__ = ("s", "m", "q", "r", "le", "eps", "next", "cont")

    def __init__(self, s: Any, m: Any, q: Any, r: Any, le: Any, cont: bool = False):
        self.s, self.m, self.q, self.r, self.le = s, m, q, r, le
        self.eps: list[Node] = []
        self.next: list[Node] = []
        self.cont = cont  # the continuation of its parent by an ignorable arc

    @property
    def key(self) -> tuple:
        return (self.s, self.m, self.q, self.r)


class IgnorableAfaOperator(AfaOperator):
    """The AFA operator with the ignorable-arc optimization; same interface as AfaOperator."""

    def __init__(self, afa: Afa):
        super().__init__(afa)
        self._undo: list[tuple[Node, list[Node]]] = []

    # ------------------------------------------------------------------ atomicity
    def _snapshot(self) -> tuple:
        self._undo = []  # `next` lists changed by this element, restored on failure
        return super()._snapshot()

    def _restore(self, s: tuple) -> None:
        for node, old in reversed(self._undo):
            node.next = old
        self._undo = []
        super()._restore(s)

    def _set_next(self, node: Node, children: list[Node]) -> None:
        self._undo.append((node, node.next))
        node.next = children

    def entry_view(self):
        return [(k, self.entries[k][0], [n.key for n in self.entries[k][1]]) for k in self.keys]

    # ------------------------------------------------------------------ derivations
    def _close(self, node: Node, e: Event) -> list[Node]:
        """The new node and its ε-descendants (one per path); sets their `eps`."""
        out = [node]
        for a in self._from(node.q, True, e.le):
            if a.fires(None, node.r):
                child = Node(node.s, node.m, a.dst, a.apply(None, node.r), e.le)
                node.eps.append(child)
                out += self._close(child, e)
        return out

    def _children(self, p: Node, e: Event) -> list[Node]:
        """The nodes p derives by consuming e (without their ε-closures); the first identical one made by
        an ignorable arc is marked as p's continuation."""
        if p.m <= e.le:
            return []
        out: list[Node] = []
        has_cont = False
        for a in self._from(p.q, False, e.le):
            if a.fires(e, p.r):
                m = min(p.m, e.re)
                cont = not has_cont and a.ignorable and m == p.m
                has_cont = has_cont or cont
                out.append(Node(p.s, m, a.dst, a.apply(e, p.r), e.le, cont))
        return out

    def _starts(self, e: Event) -> list[Node]:
        """NewTransition: the matches starting at e (closed under ε)."""
        root = Node(e.le, INF, self.afa.start, self.afa.initial, e.le)
        ids = self._close(root, e)
        out: list[Node] = []
        for p in ids:
            for c in self._children(p, e):
                c.cont = False
                out += self._close(c, e)
        return out

    def _emit(self, sign: int, nodes: list[Node]) -> None:
        for n in nodes:
            if n.q in self.finals:
                self._out.append(Output(sign, n.r, n.le, n.m))

    def _drop(self, roots: list[Node]) -> None:
        """Remove the nodes and everything they derive from their entries, retracting final ones."""
        dead: list[Node] = []
        stack = list(roots)
        while stack:
            n = stack.pop()
            dead.append(n)
            stack += n.eps
            stack += n.next
        self._emit(-1, dead)
        ids = {id(n) for n in dead}
        for le in {n.le for n in dead}:
            if le in self.entries:
                ev, nodes = self.entries[le]
                self.entries[le] = (ev, [n for n in nodes if id(n) not in ids])

    def _extend(self, parents: list[Node], i: int) -> None:
        """PropagateInsert: extend `parents` (nodes at entry i with no derivations yet) along the entries."""
        z = parents
        while z and i + 1 < len(self.keys):
            i += 1
            k = self.keys[i]
            ev, nodes = self.entries[k]
            new: list[Node] = []
            for p in z:
                kids = self._children(p, ev)
                self._set_next(p, kids)
                for c in kids:
                    new += self._close(c, ev)
            self._emit(+1, new)
            self.entries[k] = (ev, new + nodes)
            z = new

    # ------------------------------------------------------------------ insert and retract
    def _insert(self, e: Event) -> None:
        self._check_insertion(e)
        i = bisect.bisect_left(self.keys, e.le)
        prev = self.entries[self.keys[i - 1]][1] if i > 0 else []
        at_e: list[Node] = []
        to_extend: list[Node] = []
        for p in prev:
            old = p.next  # p's derivations at the next entry (empty when e is the last event)
            kids = self._children(p, e)
            self._set_next(p, kids)
            cont = next((c for c in kids if c.cont), None)
            if cont is not None:
                cont.next = old  # the continuation takes over p's derivations
            else:
                self._drop(old)
            for c in kids:
                closed = self._close(c, e)
                at_e += closed
                to_extend += closed[1:] if c is cont else closed
        starts = self._starts(e)
        at_e += starts
        to_extend += starts
        self._emit(+1, at_e)
        self.keys.insert(i, e.le)
        self.entries[e.le] = (e, at_e)
        self.max_le = max(self.max_le, e.le)
        self._extend(to_extend, i)

    def _retract(self, e: Event) -> None:
        i = self._retracted_index(e)
        prev = self.entries[self.keys[i - 1]][1] if i > 0 else []
        kept: set[int] = set()
        to_extend: list[Node] = []
        for p in prev:
            cont = next((c for c in p.next if c.cont), None)
            if cont is not None:
                self._set_next(p, cont.next)  # the continuation's derivations go back to p
                kept.add(id(cont))
            else:
                self._set_next(p, [])
                to_extend.append(p)
        nodes = self.entries[e.le][1]
        self._emit(-1, nodes)
        for n in nodes:
            if id(n) not in kept:
                self._drop(n.next)
        del self.keys[i]
        del self.entries[e.le]
        if i > 0:
            self._extend(to_extend, i - 1)

    # ------------------------------------------------------------------ explicit arc lifetimes
    def _rediff(self, i: int, beyond: Any, closed: bool = False) -> None:
        """Rebuild every list from entry i on with the current arcs, emitting the difference of finals."""
        prev = self.entries[self.keys[i - 1]][1] if i > 0 else []
        while i < len(self.keys):
            k = self.keys[i]
            ev, old = self.entries[k]
            new: list[Node] = []
            for p in prev:
                kids = self._children(p, ev)
                self._set_next(p, kids)
                for c in kids:
                    new += self._close(c, ev)
            new += self._starts(ev)
            self._emit_changes(k, Counter((n.r, n.m) for n in old if n.q in self.finals),
                               Counter((n.r, n.m) for n in new if n.q in self.finals))
            self.entries[k] = (ev, new)
            prev = new
            i += 1
