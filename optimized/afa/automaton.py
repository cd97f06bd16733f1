"""The AFA's arcs as arrays: per state its event arcs and its epsilon-arcs (CSR), each arc's branch of the
generated `fire`, its lifetime (dynamic patterns) and destination, and the bounds the kernels allocate by.

The branches of `fire` are the AFA's arcs (event arcs first, then epsilon-arcs) and then its standby arcs.
The arcs in the CSR are arc *instances*: at first the AFA's arcs, each with the lifetime "always"; a
dynamic pattern (default mode) appends an instance with its lifetime, or ends one's lifetime.
"""
from __future__ import annotations

import math

import numpy as np

from cepkit.optimized.afa.kernel import INF, MINF


def lifetime_row(lt) -> list[int]:
    """A lifetime on integer timestamps: lo, lo_open, hi, hi_closed (exact bounds rounded so that an integer
    t is inside exactly when it is inside the exact lifetime)."""
    def bound(v, up: bool) -> int:
        if v == math.inf:
            return INF
        if v == -math.inf:
            return MINF
        return math.ceil(v) if up else math.floor(v)

    lo = bound(lt.lo, up=not lt.lo_open)     # t > lo: t > floor(lo); t >= lo: t >= ceil(lo)
    hi = bound(lt.hi, up=not lt.hi_closed)   # t < hi: t < ceil(hi); t <= hi: t <= floor(hi)
    return [lo, int(lt.lo_open), hi, int(lt.hi_closed)]


class Automaton:
    def __init__(self, afa):
        self.afa = afa
        self.branches = ([a for a in afa.arcs if not a.epsilon] + [a for a in afa.arcs if a.epsilon]
                         + list(afa.standby))
        self.states = list(afa.states) + [a.dst for a in afa.standby if a.dst not in afa.states]
        self.states = list(dict.fromkeys(self.states))
        self.index = {q: i for i, q in enumerate(self.states)}
        self.start = self.index[afa.start]
        self.final = np.array([q in afa.finals for q in self.states], np.bool_)
        self.instances = [(k, a) for k, a in enumerate(self.branches[:len(afa.arcs)])]
        self.dynamic = False
        nq = len(self.states)
        # bounds over every arc that may ever be active (the AFA's and its standby arcs; an arc has at most
        # one instance alive at a time)
        eps = [[a for a in self.branches if a.epsilon and self.index[a.src] == q] for q in range(nq)]
        paths = [0] * nq
        done = [False] * nq

        def count(q: int) -> int:
            if not done[q]:
                paths[q] = 1 + sum(count(self.index[a.dst]) for a in eps[q])
                done[q] = True
            return paths[q]

        for q in range(nq):
            count(q)
        self.fan = max([sum(paths[self.index[a.dst]] for a in self.branches if not a.epsilon
                            and self.index[a.src] == q) for q in range(nq)] + [1])
        self.closure = max(paths + [1])
        self.build()

    def build(self) -> None:
        """The CSR arrays of the current instances."""
        nq = len(self.states)
        inst = self.instances
        ev = [[i for i, (k, a) in enumerate(inst) if not a.epsilon and self.index[a.src] == q] for q in range(nq)]
        eps = [[i for i, (k, a) in enumerate(inst) if a.epsilon and self.index[a.src] == q] for q in range(nq)]

        def csr(lists):
            ptr = np.zeros(nq + 1, np.int64)
            ptr[1:] = np.cumsum([len(x) for x in lists])
            return ptr, np.array([k for x in lists for k in x], np.int64)

        self.ev_ptr, self.ev_arc = csr(ev)
        self.eps_ptr, self.eps_arc = csr(eps)
        self.dst = np.array([self.index[a.dst] for _, a in inst], np.int64)
        self.branch = np.array([k for k, _ in inst], np.int64)
        self.lifetimes = np.array([lifetime_row(a.lifetime) for _, a in inst], np.int64).reshape(-1, 4)
        self.ignorable = np.array([a.ignorable for _, a in inst], np.bool_)


def automaton(afa) -> Automaton:
    return Automaton(afa)
