"""The AFA of Definition 1: states, start state, final states, arcs with fence and transfer, a register.

A fence is `f(e, r) -> bool` and a transfer `g(e, r) -> r'`; for an ε-arc `e` is the triggering event
(spec/003 §6) and the functions must not depend on it. Registers are immutable, hashable values.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Iterable

from cepkit.core.errors import QueryError

INF = math.inf


@dataclass(frozen=True)
class Lifetime:
    """The timestamps an arc applies to: `lo < t` or `lo <= t`, and `t < hi` or `t <= hi`."""

    lo: Any = -INF
    hi: Any = INF
    lo_open: bool = False
    hi_closed: bool = False

    def contains(self, t: Any) -> bool:
        above = t > self.lo if self.lo_open else t >= self.lo
        below = t <= self.hi if self.hi_closed else t < self.hi
        return above and below

    def ended_by(self, tp: Any) -> bool:
        """True when no timestamp >= tp lies in the lifetime (the arc can be discarded at punctuation tp)."""
        return tp > self.hi if self.hi_closed else tp >= self.hi

    def __str__(self) -> str:
        return f"{'(' if self.lo_open else '['}{self.lo}, {self.hi}{']' if self.hi_closed else ')'}"


ALWAYS = Lifetime()


@dataclass(frozen=True, eq=False)
class Arc:
    """An arc `src -> dst`; fence None means always true, transfer None means the identity."""

    name: str
    src: Hashable
    dst: Hashable
    fence: Callable[[Any, Any], Any] | None = None
    transfer: Callable[[Any, Any], Any] | None = None
    epsilon: bool = False
    lifetime: Lifetime = ALWAYS
    is_final: bool = False  # for dynamic arcs: whether a new dst state is final (spec/003 §6)
    text: dict = field(default_factory=dict, compare=False)  # file arcs: fence/transfer text and line, for messages

    @property
    def ignorable(self) -> bool:
        """A self-loop consuming an event with the identity transfer (spec/003 §7.3)."""
        return self.src == self.dst and self.transfer is None and not self.epsilon

    def with_lifetime(self, lifetime: Lifetime) -> "Arc":
        return Arc(self.name, self.src, self.dst, self.fence, self.transfer, self.epsilon, lifetime,
                   self.is_final, self.text)

    def fires(self, e: Any, r: Any) -> bool:
        """The fence on (e, r); a fence result that is not a boolean is a QueryError naming the arc."""
        if self.fence is None:
            return True
        v = self.fence(e, r)
        if not isinstance(v, bool):
            where = (f" (fence '{self.text['fence']}' at line {self.text['line']})"
                     if "fence" in self.text and "line" in self.text else "")
            raise QueryError(f"the fence of arc '{self.name}' gave {v!r}, not a boolean{where}")
        return v

    def apply(self, e: Any, r: Any) -> Any:
        """The transfer on (e, r); the new register must be hashable (registers are values)."""
        if self.transfer is None:
            return r
        out = self.transfer(e, r)
        try:
            hash(out)
        except TypeError:
            raise QueryError(f"the transfer of arc '{self.name}' gave an unhashable register {out!r}") from None
        return out


@dataclass(frozen=True, eq=False)
class Afa:
    """M = (Q, A, q0, F, Z) plus an optional register schema and default window (spec/003 Definition 1).

    `standby` holds arcs that are defined but not active at the start: dynamic patterns insert them.
    """

    states: tuple
    start: Hashable
    finals: frozenset
    arcs: tuple[Arc, ...]
    initial: Any = None
    schema: tuple[str, ...] | None = None
    window: Any = None
    standby: tuple[Arc, ...] = ()
    name: str = "afa"

    def __post_init__(self) -> None:
        object.__setattr__(self, "states", tuple(self.states))
        object.__setattr__(self, "finals", frozenset(self.finals))
        object.__setattr__(self, "arcs", tuple(self.arcs))
        object.__setattr__(self, "standby", tuple(self.standby))
        known = set(self.states)
        if len(known) != len(self.states):
            raise QueryError(f"AFA '{self.name}': a state is listed twice")
        if self.start not in known:
            raise QueryError(f"AFA '{self.name}': the start state {self.start!r} is not a state")
        for q in self.finals:
            if q not in known:
                raise QueryError(f"AFA '{self.name}': the final state {q!r} is not a state")
        names: set[str] = set()
        for a in self.arcs + self.standby:
            if a.name in names:
                raise QueryError(f"AFA '{self.name}': two arcs are named '{a.name}'")
            names.add(a.name)
            if a in self.arcs:
                check_arc_states(a, known, self.name)
        if self.window is not None and not (self.window > 0):
            raise QueryError(f"AFA '{self.name}': the window must be positive, not {self.window}")
        check_epsilon_acyclic(self.arcs, self.name)

    def arc(self, name: str) -> Arc:
        for a in self.arcs + self.standby:
            if a.name == name:
                return a
        raise QueryError(f"AFA '{self.name}' has no arc named '{name}'")


def check_arc_states(a: Arc, known: set, afa_name: str, allow_new_dst: bool = False) -> None:
    """An arc must join known states (a dynamic arc may lead to a new state)."""
    if a.src not in known:
        raise QueryError(f"AFA '{afa_name}': arc '{a.name}' leaves unknown state {a.src!r}")
    if a.dst not in known and not allow_new_dst:
        raise QueryError(f"AFA '{afa_name}': arc '{a.name}' goes to unknown state {a.dst!r}")


def admitted_arc(arc: Arc, lifetime: "Lifetime | None", active: Iterable[str], states: set, arcs: list[Arc],
                 afa_name: str, t_curr: Any, floor: Any, error: type[Exception]) -> Arc:
    """An inserted arc (spec/003 §6) with its lifetime: by default [t_curr, ∞) open at its start; refused when
    an arc of its name is active (QueryError), when it joins unknown states (a non-ε arc may lead to a new
    one), when its lifetime starts below the punctuation `floor` (`error`), or when it closes an ε-cycle."""
    if arc.name in active:
        raise QueryError(f"arc insertion: an arc named '{arc.name}' is already active")
    check_arc_states(arc, states, afa_name, allow_new_dst=not arc.epsilon)
    if lifetime is None:
        lifetime = Lifetime(t_curr, INF, lo_open=True)
    elif lifetime.lo < floor:
        raise error(f"arc insertion of '{arc.name}' with lifetime {lifetime}: it starts below the current "
                    f"punctuation {floor}")
    arc = arc.with_lifetime(lifetime)
    check_epsilon_acyclic(arcs + [arc], afa_name)
    return arc


def check_epsilon_acyclic(arcs: Iterable[Arc], afa_name: str) -> None:
    """ε-cycles are forbidden (spec/003 A7): every ε-closure must be finite."""
    succ: dict = {}
    for a in arcs:
        if a.epsilon:
            succ.setdefault(a.src, []).append(a)
    done: set = set()
    on_path: set = set()

    def visit(q, via: str | None) -> None:
        if q in on_path:
            raise QueryError(f"AFA '{afa_name}': the ε-arcs form a cycle through state {q!r} (arc '{via}')")
        if q in done:
            return
        on_path.add(q)
        for a in succ.get(q, ()):
            visit(a.dst, a.name)
        on_path.discard(q)
        done.add(q)

    for q in list(succ):
        visit(q, None)
