"""asv: the SASE 1.0 dialect (spec/002) on the reference (Sase1Program) and the optimized engine, warm, on the
stock ticker: examples/sase1_stock.query (partition-contiguity Kleene) and a three-type
skip-till-any-match sequence with [price]. The history subset is `Sase1Engines`."""
from __future__ import annotations

from ._kit import Subject, example, size, stock

QUERIES = {
    "stock": example("sase1_stock.query").strip(),
    "seq3any": "PATTERN SEQ(stock1 a, stock2 b, stock3 c) WHERE skip-till-any-match AND [price] WITHIN 200",
}
EVENTS = {"reference": 20_000, "optimized": 400_000}


def frame(query: str, n: int):
    if query == "seq3any":   # types stock1..stock3 (the symbol as the type), prices in a narrow band
        f = stock(n, symbols=3).copy()
        f["type"] = "stock" + f["symbol"].astype(str)
        f["price"] = f["price"] % 50
        return f
    return stock(n)


class Sase1Queries(Subject):
    params = (["reference", "optimized"], list(QUERIES))
    param_names = ["engine", "query"]

    def case(self, engine, query):
        n = size(EVENTS[engine] // (10 if query == "seq3any" else 1))
        return QUERIES[query], engine, frame(query, n), {"dialect": "sase1"}


class Sase1Engines(Subject):
    params = (["reference", "optimized"],)
    param_names = ["engine"]

    def case(self, engine):
        return QUERIES["stock"], engine, frame("stock", size(EVENTS[engine])), {"dialect": "sase1"}
