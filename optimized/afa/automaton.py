"""The AFA's arcs as arrays: per state, its event arcs and its epsilon-arcs (CSR), and the fan-out bound."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Automaton:
    """States are numbered in the AFA's order; arc k of `arcs` is branch k of the generated `fire`."""

    arcs: list            # event arcs first, then epsilon-arcs (the order of `fire`'s branches)
    start: int
    final: np.ndarray     # bool[state]
    dst: np.ndarray       # int64[arc]
    ev_ptr: np.ndarray    # event arcs of state q: ev_arc[ev_ptr[q]:ev_ptr[q + 1]]
    ev_arc: np.ndarray
    eps_ptr: np.ndarray
    eps_arc: np.ndarray
    fan: int              # at most this many nodes are derived from one node by one event (with closures)
    closure: int          # at most this many nodes in one epsilon-closure
    ignorable: np.ndarray  # bool[arc]: a self-loop with the identity transfer (spec/003 §7.3)


def automaton(afa) -> Automaton:
    states = list(afa.states)
    index = {q: i for i, q in enumerate(states)}
    arcs = [a for a in afa.arcs if not a.epsilon] + [a for a in afa.arcs if a.epsilon]
    nq = len(states)
    ev = [[k for k, a in enumerate(arcs) if not a.epsilon and index[a.src] == q] for q in range(nq)]
    eps = [[k for k, a in enumerate(arcs) if a.epsilon and index[a.src] == q] for q in range(nq)]
    dst = np.array([index[a.dst] for a in arcs], np.int64)
    paths = [0] * nq   # nodes of the epsilon-closure of a node at q (one per path; epsilon-arcs are acyclic)
    done = [False] * nq

    def count(q: int) -> int:
        if not done[q]:
            paths[q] = 1 + sum(count(int(dst[k])) for k in eps[q])
            done[q] = True
        return paths[q]

    for q in range(nq):
        count(q)
    fan = max([sum(paths[int(dst[k])] for k in ev[q]) for q in range(nq)] + [1])

    def csr(lists):
        ptr = np.zeros(nq + 1, np.int64)
        ptr[1:] = np.cumsum([len(x) for x in lists])
        return ptr, np.array([k for x in lists for k in x], np.int64)

    ev_ptr, ev_arc = csr(ev)
    eps_ptr, eps_arc = csr(eps)
    final = np.array([q in afa.finals for q in states], np.bool_)
    ignorable = np.array([a.ignorable for a in arcs], np.bool_)
    return Automaton(arcs, index[afa.start], final, dst, ev_ptr, ev_arc, eps_ptr, eps_arc, fan, max(paths + [1]),
                     ignorable)
