"""asv: the lazy chain and tree engines (spec/001 §8) against the eager NFA, warm, on the skewed stream (types
A : B : C at 100 : 100 : 1): SEQ(A a, B b, C c) WHERE a.x < b.x WITHIN 20, the chain in the order C, B, A
(rarest first). The reference engines at 10^4 events, the optimized ones at 2*10^5. The history subset is
`LazyEngines` (the chain and the tree, reference and optimized)."""
from __future__ import annotations

from ._kit import Subject, size, skewed

QUERY = "PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x WITHIN 20"
ENGINES = ["reference-eager", "reference-lazy", "reference-tree", "optimized-eager", "optimized-lazy",
           "optimized-tree"]


def options(engine: str) -> dict:
    return {"order": "C,B,A"} if engine == "reference-lazy" else {}


def events(engine: str) -> int:
    return size(10_000 if engine.startswith("reference") else 200_000)


class LazyAll(Subject):
    params = (ENGINES,)
    param_names = ["engine"]

    def case(self, engine):
        return QUERY, engine, skewed(events(engine)), options(engine)


class LazyEngines(Subject):
    params = (["reference-lazy", "reference-tree", "optimized-lazy", "optimized-tree"],)
    param_names = ["engine"]

    def case(self, engine):
        return QUERY, engine, skewed(events(engine)), options(engine)
