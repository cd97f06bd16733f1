"""Running a stream through an AFA operator in one of its flavors, and the net input it has seen.

Flavors (spec/003 §5.7): `basic` (the AFA operator), `ignorable` (AFA+ignore), `seq` (AFA+O) and
`cleanse` (Cleanse(σ) in front of the basic operator). All give the same final net output.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from cepkit.reference.afa.cleanse import Cleanse
from cepkit.reference.afa.ignorable import IgnorableAfaOperator
from cepkit.front.afa.model import INF, Afa
from cepkit.reference.afa.operator import AfaOperator
from cepkit.reference.afa.oracle import oracle
from cepkit.reference.afa.seqop import SeqAfaOperator
from cepkit.front.afa.stream import Element, Insert, Retract

FLAVORS = ("basic", "ignorable", "seq", "cleanse")


def make_operator(afa: Afa, flavor: str = "basic", sigma: Any = INF):
    """An operator of the given flavor (each has `feed`, `outputs`, `net_output`)."""
    if flavor == "basic":
        return AfaOperator(afa)
    if flavor == "ignorable":
        return IgnorableAfaOperator(afa)
    if flavor == "seq":
        return SeqAfaOperator(afa)
    if flavor == "cleanse":
        return Cleanse(AfaOperator(afa), sigma)
    raise ValueError(f"unknown AFA flavor '{flavor}' (expected one of {', '.join(FLAVORS)})")


def core(op) -> AfaOperator:
    """The AFA operator itself (behind Cleanse, its target)."""
    return op.target if isinstance(op, Cleanse) else op


class NetInput:
    """The net input set so far: insertions minus retractions (what Definition 2 is applied to)."""

    def __init__(self) -> None:
        self.events: Counter = Counter()

    def apply(self, element: Element) -> None:
        if isinstance(element, Insert):
            self.events[element.event] += 1
        elif isinstance(element, Retract):
            self.events[element.event] -= 1
            if self.events[element.event] <= 0:
                del self.events[element.event]

    def oracle(self, afa: Afa, op) -> Counter:
        """Definition 2 on the net input, with the arcs (and final states) the operator resolved."""
        c = core(op)
        return oracle(afa, list(self.events), c.resolved_arcs(), c.finals)
