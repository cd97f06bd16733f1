"""The chain's frequency order: given (cepkit.front.lazy.order parses and resolves it), or estimated from the
first `estimate_prefix` events of the first batch: a variable's rate is the number of those events that
can bind it (its types and its one-event filter), counted in Numba; rarest first, ties by text order,
Kleene variables last (docs/semantics.md L10, the reference's choice: the order is then fixed).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cepkit.optimized.lazy.common import NONE, qualify
from cepkit.front.lazy.order import chain_order


@njit(cache=True)
def rates(start, end, base, E, TM, UN, inb, T):
    """counts[b, v]: events start..end-1 that qualify for variable v of branch b."""
    B, V = UN.shape
    out = np.zeros((B, V), np.int64)
    R = np.zeros((1, 1, 3 + 3 * V), np.int64)
    stk = np.zeros((3, max(64, T[1, 2])), np.int64)
    cnt = np.zeros(2, np.int64)  # the probe's evaluations are not the program's
    one = np.full(V, NONE, np.int64)
    for p in range(start, end):
        for b in range(B):
            q = qualify(b, p, TM, UN, inb, T, E, base, R, stk, cnt, one)
            for v in range(V):
                if q >> v & 1:
                    out[b, v] += 1
    return out


def estimated_orders(pattern, names, counts: np.ndarray, preferred: list[str] | None) -> list[tuple[str, ...]]:
    """Each branch's chain order from per-variable counts (the last branch's count of a shared variable
    wins, as in the reference's estimate)."""
    rate: dict[str, int] = {}
    for b, branch in enumerate(pattern.branches):
        for v in branch.positives:
            rate[v.name] = int(counts[b, names.index(v.name)])
    return [chain_order(b, preferred or [], lambda n: rate.get(n, 0)) for b in pattern.branches]
