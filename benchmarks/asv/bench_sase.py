"""asv: SASE+ (spec/000) on the synthetic stock ticker, warm: the reference and the optimized engine under the
four event selection strategies, the Kleene template of the SIGMOD'08 experiments (spec/000 §7) with
`a[i].price > a[i-1].price`; skip-till-any-match on a two-event sequence (its Kleene form is exponential).
Timed: `program.run(batch)` only (compiled, input read and kernels loaded in setup); tracked: events/s and
the run's peak memory. `SasePlusEngines` is the history subset (make bench-history)."""
from __future__ import annotations

from ._kit import Subject, size, stock

KLEENE = ("PATTERN SEQ(stock+ a[], stock b) WHERE {strategy} {{ [symbol] and a[1].price % 500 = 0 and "
          "a[i].price > a[i-1].price and b.volume < 150 }} WITHIN 500")
ANY = ("PATTERN SEQ(stock a, stock b) WHERE skip_till_any_match {{ [symbol] and a.price % 100 = 0 and "
       "b.price > a.price and b.volume < 10 }} WITHIN 200")
STRATEGIES = ["strict_contiguity", "partition_contiguity", "skip_till_next_match", "skip_till_any_match"]
EVENTS = {"reference": 20_000, "optimized": 400_000}


def query(strategy: str) -> str:
    return (ANY if strategy == "skip_till_any_match" else KLEENE).format(strategy=strategy)


class SasePlusStrategies(Subject):
    params = (["reference", "optimized"], STRATEGIES)
    param_names = ["engine", "strategy"]

    def case(self, engine, strategy):
        return query(strategy), engine, stock(size(EVENTS[engine])), {}


class SasePlusEngines(Subject):
    """skip-till-next-match, one per engine (the history subset)."""

    params = (["reference", "optimized"],)
    param_names = ["engine"]

    def case(self, engine):
        return query("skip_till_next_match"), engine, stock(size(EVENTS[engine])), {}
