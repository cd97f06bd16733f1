"""Index selection (spec/004 §3.4.3): greedy (k lowest-selectivity symbols, best k), the Pareto
divide-and-conquer over basic blocks of Algorithm 3.2, and the exhaustive optimum (2^m configurations,
for checking the others); each returns the configuration of lowest estimated C_query (the empty
configuration is a full replay). Under our estimator a configuration's cost is not a function of its
halves' costs, so the Pareto search is a heuristic here: it can miss the optimum (rarely; see
tests/replay/test_selection.py)."""
from __future__ import annotations

from itertools import combinations

from dataclasses import dataclass
from typing import Callable, Sequence
from cepkit.core.errors import QueryError


@dataclass(frozen=True)
class Candidate:
    position: int        # 1-based position of the BS in the symbol sequence
    var: str | None
    attr: str
    range_text: str
    count: int           # entries of the index range query
    block: int           # basic block number

    @property
    def label(self) -> str:
        return f"{self.var or 'true'}@{self.position}"


Config = tuple[Candidate, ...]


def greedy(cands: Sequence[Candidate], cost: Callable[[Config], tuple[float, float, float]]) -> Config:
    ranked = sorted(cands, key=lambda c: (c.count, c.position))
    options = [tuple(sorted(ranked[:k], key=lambda c: c.position)) for k in range(len(ranked) + 1)]
    return min(options, key=lambda cfg: (cost(cfg)[2], len(cfg)))


def _pareto(configs: list[Config], cost) -> list[Config]:
    scored = sorted({cfg: cost(cfg) for cfg in configs}.items(), key=lambda kv: (kv[1][0], kv[1][1], len(kv[0])))
    out, best_sio = [], float("inf")
    for cfg, (p, s, _) in scored:
        if s < best_sio:
            out.append(cfg)
            best_sio = s
    return out


def _select(blocks: list[list[Candidate]], m: int, cost) -> list[list[Config]]:
    if len(blocks) == 1:
        ranked = sorted(blocks[0], key=lambda c: (c.count, c.position))
        return [[tuple(sorted(ranked[:k], key=lambda c: c.position))] if k <= len(ranked) else []
                for k in range(m + 1)]
    half = len(blocks) // 2
    left, right = _select(blocks[:half], m, cost), _select(blocks[half:], m, cost)
    res = []
    for k in range(m + 1):
        combos = [lc + rc for i in range(k + 1) for lc in left[i] for rc in right[k - i]]
        res.append(_pareto(combos, cost) if combos else [])
    return res


def pareto(cands: Sequence[Candidate], cost: Callable[[Config], tuple[float, float, float]]) -> Config:
    if not cands:
        return ()
    by_block: dict[int, list[Candidate]] = {}
    for c in cands:
        by_block.setdefault(c.block, []).append(c)
    blocks = [by_block[b] for b in sorted(by_block)]
    fronts = _select(blocks, len(cands), cost)
    options = [cfg for front in fronts for cfg in front] + [()]
    return min(options, key=lambda cfg: (cost(cfg)[2], len(cfg)))


def optimal(cands: Sequence[Candidate], cost: Callable[[Config], tuple[float, float, float]],
            limit: int = 14) -> Config:
    """The exhaustive argmin over every subset (refused beyond `limit` candidates)."""
    if len(cands) > limit:
        raise QueryError(f"exhaustive index selection over {len(cands)} candidates is too large (limit {limit})")
    ordered = sorted(cands, key=lambda c: c.position)
    options = [tuple(cfg) for r in range(len(ordered) + 1) for cfg in combinations(ordered, r)]
    return min(options, key=lambda cfg: (cost(cfg)[2], len(cfg)))
