"""Cleanse(σ): a pre-operator that bounds speculation by reordering input (spec/003 §5.8).

With t the latest punctuation, an event (insertion or retraction) passes at once only if LE < t + σ;
the others wait, in LE order, and are released when a punctuation t' makes LE < t' + σ, before that
punctuation is forwarded unchanged (spec/003 A11). A retraction of a still-buffered insertion cancels
it. σ = 0 gives the operator ordered input; σ = infinity is maximal speculation.
Dynamic patterns are not supported behind Cleanse (their default lifetimes depend on arrival).
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from cepkit.front.afa.model import INF
from cepkit.reference.afa.operator import AfaOperator, ProtocolError
from cepkit.front.afa.stream import Element, Insert, OutPunctuation, Output, Punctuate, Retract
from cepkit.core.errors import Unsupported


class Cleanse:
    """Cleanse(σ) in front of an operator; `feed` returns the operator's output for the element."""

    def __init__(self, target: AfaOperator, sigma: Any = INF):
        if not sigma >= 0:
            raise ValueError(f"σ must be >= 0, not {sigma}")
        self.target = target
        self.sigma = sigma
        self.t: Any = -INF
        self.buffer: list[Element] = []  # sorted by LE (arrival order among equal LEs)

    @property
    def outputs(self) -> list:
        return self.target.outputs

    def net_output(self) -> Counter:
        return self.target.net_output()

    def _passes(self, le: Any) -> bool:
        return self.sigma == INF or le < self.t + self.sigma

    def feed(self, element: Element) -> list[Output | OutPunctuation]:
        saved = (self.target._snapshot(), len(self.target.outputs), Counter(self.target.net),
                 list(self.buffer), self.t)
        try:
            return self._feed(element)
        except BaseException:
            state, n, net, self.buffer, self.t = saved
            self.target._restore(state)
            del self.target.outputs[n:]
            self.target.net = net
            raise

    def flush(self) -> list[Output | OutPunctuation]:
        """End of input: release every buffered element in LE order (no punctuation is implied)."""
        saved = (self.target._snapshot(), len(self.target.outputs), Counter(self.target.net), list(self.buffer))
        out: list = []
        try:
            while self.buffer:
                out += self.target.feed(self.buffer.pop(0))
        except BaseException:
            state, n, net, self.buffer = saved
            self.target._restore(state)
            del self.target.outputs[n:]
            self.target.net = net
            raise
        return out

    def _feed(self, element: Element) -> list:
        if isinstance(element, (Insert, Retract)):
            e = element.event
            if e.le < self.t:
                what = "insertion" if isinstance(element, Insert) else "retraction"
                raise ProtocolError(f"{what} of {e.describe()} below the current punctuation {self.t}", column="le")
            if isinstance(element, Retract) and Insert(e) in self.buffer:
                self.buffer.remove(Insert(e))
                return []
            if isinstance(element, Insert) and (e.le in self.target.entries
                                                or any(b.event.le == e.le for b in self.buffer)):
                raise ProtocolError(f"insertion of {e.describe()}: another event already has LE {e.le} "
                                    "(timestamps must be unique, spec/003 A2)", column="le")
            if self._passes(e.le):
                return self.target.feed(element)
            if isinstance(element, Retract):
                raise ProtocolError(f"retraction of {e.describe()}, an event never inserted (or already retracted)")
            pos = sum(1 for b in self.buffer if b.event.le <= e.le)
            self.buffer.insert(pos, element)
            return []
        if isinstance(element, Punctuate):
            self.t = max(self.t, element.t)
            out: list = []
            while self.buffer and self._passes(self.buffer[0].event.le):
                out += self.target.feed(self.buffer.pop(0))
            return out + self.target.feed(element)
        raise Unsupported("cleanse", "dynamic patterns")
