"""The brute-force Definition 2 oracle (spec/003 §4.1, §4.5), independent of the operator.

For every contiguous run of the LE-ordered event set whose lifetimes intersect, enumerate every
computation path of the AFA over the run (ε-moves anywhere, including before the first event and
after the last); each path ending in a final state gives one output <final register, [EndLE, min RE)>.
Outputs are a bag over paths (spec/003 A5 option a), like the operator.
"""
from __future__ import annotations

from collections import Counter
from typing import Iterable

from cepkit.front.afa.model import Afa, Arc
from cepkit.front.afa.stream import Event


def oracle(afa: Afa, events: Iterable[Event], arcs: Iterable[Arc] | None = None,
           finals: Iterable | None = None) -> Counter:
    """Definition 2 on a set of events: (payload, le, re) -> number of accepting paths.

    `arcs` (with resolved lifetimes) and `finals` default to the AFA's own.
    """
    arcs = list(afa.arcs if arcs is None else arcs)
    finals = set(afa.finals if finals is None else finals)
    ev = sorted(events, key=lambda e: e.le)
    if len({e.le for e in ev}) != len(ev):
        raise ValueError("the oracle needs unique timestamps (spec/003 A2)")
    out: Counter = Counter()

    def paths(q, r, trigger: Event, run: list[Event], k: int, min_re) -> None:
        # state (q, r) after consuming run[:k]; trigger is the event that (indirectly) caused this state
        if k == len(run):
            if q in finals:
                out[(r, run[-1].le, min_re)] += 1
        else:
            e = run[k]
            for a in arcs:
                if a.src == q and not a.epsilon and a.lifetime.contains(e.le) and a.fires(e, r):
                    paths(a.dst, a.apply(e, r), e, run, k + 1, min(min_re, e.re))
        for a in arcs:
            if a.src == q and a.epsilon and a.lifetime.contains(trigger.le) and a.fires(None, r):
                paths(a.dst, a.apply(None, r), trigger, run, k, min_re)

    for i in range(len(ev)):
        min_re = ev[i].re
        for j in range(i, len(ev)):
            min_re = min(min_re, ev[j].re)
            if not ev[j].le < min_re:
                break  # empty intersection; every longer run is empty too
            run = ev[i:j + 1]
            paths(afa.start, afa.initial, ev[i], run, 0, min_re)
    return +out
