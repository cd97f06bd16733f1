"""Stream elements: events with lifetimes [LE, RE), insertions, retractions, punctuations, arc events,
and the operator's output (insertions, retractions, punctuations)."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from cepkit.front.afa.model import Arc, Lifetime


def _payload(values: Mapping[str, Any] | Iterable[tuple[str, Any]] | None) -> tuple:
    items = dict(values or {})
    return tuple(sorted(items.items()))


@dataclass(frozen=True)
class Event:
    """e = <p, c>: payload p (sorted (name, value) pairs) and lifetime [le, re); `seq` only for AFA+O."""

    le: Any
    re: Any
    payload: tuple = ()
    seq: int | None = None

    @staticmethod
    def make(le: Any, re: Any, payload: Mapping[str, Any] | None = None, seq: int | None = None) -> "Event":
        return Event(le, re, _payload(payload), seq)

    def get(self, attr: str) -> Any:
        """An attribute: `le`, `re`, `seq` or a payload field; None when absent (null)."""
        if attr == "le":
            return self.le
        if attr == "re":
            return self.re
        if attr == "seq":
            return self.seq
        for k, v in self.payload:
            if k == attr:
                return v
        return None

    def __getitem__(self, attr: str) -> Any:
        return self.get(attr)

    def describe(self) -> str:
        fields = ", ".join(f"{k}={v}" for k, v in self.payload)
        seq = f" seq {self.seq}" if self.seq is not None else ""
        return f"event{{{fields}}}[{self.le}, {self.re}){seq}"


# ------------------------------------------------------------------ input elements
@dataclass(frozen=True)
class Insert:
    event: Event


@dataclass(frozen=True)
class Retract:
    event: Event


@dataclass(frozen=True)
class Punctuate:
    """A punctuation (CTI) on the event input: no later event has LE < t."""

    t: Any


@dataclass(frozen=True)
class ArcInsert:
    """Insert an arc; lifetime None is the default mode (valid for LE > t_curr, spec/003 §6)."""

    arc: Arc
    lifetime: Lifetime | None = None


@dataclass(frozen=True)
class ArcDelete:
    """Delete the active arc `name`; explicit=False is the default mode (its lifetime ends at t_curr)."""

    name: str
    explicit: bool = False


@dataclass(frozen=True)
class ArcPunctuate:
    """A punctuation on the arc input (explicit-lifetime mode): no later arc event has LE < t."""

    t: Any


Element = Insert | Retract | Punctuate | ArcInsert | ArcDelete | ArcPunctuate


# ------------------------------------------------------------------ output elements
@dataclass(frozen=True)
class Output:
    """An output event (sign +1 insertion, -1 retraction): payload = the final register, lifetime [le, re)."""

    sign: int
    payload: Any
    le: Any
    re: Any

    @property
    def key(self) -> tuple:
        return (self.payload, self.le, self.re)


@dataclass(frozen=True)
class OutPunctuation:
    t: Any


def net(outputs: Iterable[Output | OutPunctuation]) -> Counter:
    """The net output multiset (payload, le, re) -> count; a count below zero is an error of the operator."""
    c: Counter = Counter()
    for o in outputs:
        if isinstance(o, Output):
            c[o.key] += o.sign
            if c[o.key] < 0:
                raise AssertionError(f"output retraction of {o.key} that was never inserted")
    return +c
