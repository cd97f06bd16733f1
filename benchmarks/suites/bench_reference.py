"""asv benchmarks of the reference engine on the synthetic stock ticker (spec/000 §7).

The reference is the oracle, not the fast path: these track its cost so that changes to it stay
usable for checking inputs of realistic size. Run with `make bench`.
"""
from __future__ import annotations

from benchmarks.workloads.stock import generate
from cepkit import compile
from cepkit.core.readers import from_pandas
from cepkit.front.language import parse

TEMPLATE = ("PATTERN SEQ(stock+ a[], stock b) WHERE {strategy} AND [symbol] AND a[1].price % 500 = 0 "
            "AND {pa} AND b.volume < 150 WITHIN 500")
PREDICATES = {"p1": "TRUE", "p2": "a[i].price > a[i-1].price", "p3": "a[i].price > min(a[..i-1].price)"}


class ReferenceStock:
    """Query template of the SIGMOD'08 experiments, s2 and s3, over 20,000 events (2 symbols)."""

    params = (["partition-contiguity", "skip-till-next-match"], ["p1", "p2", "p3"])
    param_names = ["strategy", "predicate"]
    events = 20_000

    def setup(self, strategy, predicate):
        self.batch = from_pandas(generate(self.events, seed=1))
        self.text = TEMPLATE.format(strategy=strategy, pa=PREDICATES[predicate])

    def time_run(self, strategy, predicate):
        compile(self.text).run(self.batch)

    def track_matches(self, strategy, predicate):
        return len(compile(self.text).run(self.batch))


class FrontEnd:
    """Parsing and validating a query (the cost every engine pays once per query)."""

    def time_parse_query3(self):
        parse("PATTERN SEQ(Stock+ a[ ], Stock b) WHERE skip_till_next_match(a[ ], b) { [symbol] and "
              "a[1].volume > 1000 and a[i].price > avg(a[..i-1].price) and b.volume < 80%*a[a.LEN].volume } "
              "WITHIN 1 hour")
