"""Cost models of spec/004 §3.3.2 (index vs replay for windowed aggregation) and §3.4.3 (index
selection for pattern matching).

Pattern matching: C_query = f(C_PIO) + g(C_SIO) with f(x) = 1.13 x and g(x) = 2.53 x + 12.73 x log2 x,
x in pages (a block of the store is a primary page; a secondary-index page holds 512 entries; the sort
term is counted per page, our instantiation of the thesis' x B log2(x B)). C_PIO = α · blocks with
α = 1 - (1 - extend(μ_c) / T)^{N_I} (Eq 3.5), N_I = N φ_BB1 P(X <= w) (Eq 3.6), μ_c = E(X | X <= w)
(Eq 3.7), X the hypoexponential sum of the waits for the later basic blocks (rates φ_BB / Δt).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

W_PIO, W_SIO, W_SORT = 1.13, 2.53, 12.73
INDEX_PAGE_ENTRIES = 512


# ------------------------------------------------------------------------ windowed aggregation (§3.3.2)
def split_level(slide: int, r: float, B: int, D: int) -> int:
    """l_s = ceil(log_D L), L = slide r / B leaves per slide, clamped at 0 (A22)."""
    L = slide * r / B
    if L <= 0:
        return 0
    return max(0, math.ceil(math.log(L, D) - 1e-12))


def c_index(slide: int, r: float, B: int, D: int, h: int) -> float:
    L = slide * r / B
    ls = split_level(slide, r, B, D)
    at_split = math.ceil(L / D ** (ls - 1) - 1e-12) if ls >= 1 else 0
    return (h - 1 - ls) + min(1, ls) * at_split + max(0, ls - 1) * D + min(1, L) * B


def c_replay(slide: int, r: float) -> float:
    return slide * r


def aggregation_choice(slide: int, r: float, B: int, D: int, h: int) -> str:
    """'index' iff C_index < C_replay; a tie chooses replay (A22)."""
    return "index" if c_index(slide, r, B, D, h) < c_replay(slide, r) else "replay"


# ------------------------------------------------------------------------ pattern matching (§3.4.3)
@dataclass(frozen=True)
class Stats:
    events: int
    span: int          # e_N.t - e_1.t + 1
    blocks: int


def hypoexp_below(rates: Sequence[float], w: float, steps: int = 256) -> tuple[float, float]:
    """P(X <= w) and E(X | X <= w) for X the sum of exponentials with `rates` (numerically)."""
    if not rates:
        return 1.0, 0.0
    if w <= 0:
        return 0.0, 0.0
    h = w / steps
    pmf = None
    for lam in rates:
        lam = max(lam, 1e-12)
        step = [math.exp(-lam * i * h) - math.exp(-lam * (i + 1) * h) for i in range(steps)]
        if pmf is None:
            pmf = step
        else:
            pmf = [sum(pmf[j] * step[i - j] for j in range(i + 1)) for i in range(steps)]
    p = sum(pmf)
    if p <= 0:
        return 0.0, 0.0
    mean = sum((i + 0.5) * h * x for i, x in enumerate(pmf)) / p
    return min(1.0, p), mean


def pio(stats: Stats, bb_selectivities: Sequence[float], case: str, w: int) -> float:
    """Estimated primary-index pages (blocks) read for a configuration whose basic blocks have the
    given selectivities; `case` is 'S1', 'S2', 'S3' or 'base' (§3.4.2)."""
    if not bb_selectivities:
        return float(stats.blocks)
    dt = max(stats.span / max(stats.events, 1), 1e-9)
    rates = [phi / dt for phi in bb_selectivities[1:]]
    p, mu = hypoexp_below(rates, w)
    n_i = stats.events * bb_selectivities[0] * p
    extend = {"S1": w, "S2": mu, "S3": w}.get(case, 2 * max(w - mu, 0)) + 1
    alpha = 1 - (1 - min(1.0, extend / max(stats.span, 1))) ** n_i
    return alpha * stats.blocks


def sio(entries: Sequence[int]) -> float:
    return sum(e / INDEX_PAGE_ENTRIES for e in entries)


def query_cost(c_pio: float, c_sio: float) -> float:
    return W_PIO * c_pio + W_SIO * c_sio + W_SORT * c_sio * math.log2(max(c_sio, 1.0))


def estimator(kinds: Sequence[str], stats: Stats, w: int):
    """cost(config) -> (C_PIO, C_SIO, C_query) for configurations of candidates (objects with
    `position`, `block` and `count`) over the symbol sequence `kinds`; () is a full replay."""
    n = len(kinds)

    def estimate(cfg) -> tuple[float, float, float]:
        if not cfg:
            p = float(stats.blocks)
            return p, 0.0, query_cost(p, 0.0)
        phis: dict[int, float] = {}
        for c in cfg:
            phis[c.block] = phis.get(c.block, 1.0) * (c.count / max(stats.events, 1))
        i1, ik = cfg[0].position, cfg[-1].position
        case = "S1" if i1 == 1 and ik < n else "S2" if i1 == 1 else "S3" if ik == n else "base"
        p = min(pio(stats, [phis[b] for b in sorted(phis)], case, w), float(stats.blocks))
        s = sio([c.count for c in cfg])
        return p, s, query_cost(p, s)

    return estimate
