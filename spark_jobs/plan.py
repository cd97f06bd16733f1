"""How a query is split for Spark so that the union of the pieces is exactly the single-process answer.

Two plans:
- **by key**: the query has `[attr]` equivalence tests and a strategy whose ignore edge skips every
  event of another key (s2, s3, s4): every run only ever reads events of its own key, negations
  included (their formulas carry the `[attr]` equality), so each key's events can be matched on their
  own. Non-overlap output works too (its partition is the key).
- **by time slice**: any other query with a time window W. Slice j keeps the matches that *start*
  inside it; such a match, its trailing-negation check and its leading-negation check only read
  events with timestamps in [start - W, start + W), so each slice is fed the events of
  [t_j - W, t_{j+1} + W) (docs/spark.md gives the argument).

What neither plan can split exactly is refused by name (QueryError, exit status 2).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from cepkit.front.binding import window_bound
from cepkit.core.errors import QueryError
from cepkit.front.language import ast as A
from cepkit.front.nfab.compile import compile_nfab, is_nfab_query

_KEYED = {A.Strategy.PARTITION_CONTIGUITY, A.Strategy.SKIP_TILL_NEXT_MATCH, A.Strategy.SKIP_TILL_ANY_MATCH}


@dataclass(frozen=True)
class KeyPlan:
    """Match each key's events on their own."""

    keys: tuple[str, ...]


@dataclass(frozen=True)
class SlicePlan:
    """Time slices [t_min + j*length, t_min + (j+1)*length) in `ts_long` units, each with `context`
    (>= the window) on both sides."""

    t_min: int
    length: int
    count: int
    context: int

    def slices_of(self, t: int) -> range:
        """The slices whose extended interval [t_j - context, t_{j+1} + context) holds timestamp t."""
        d = t - self.t_min
        lo = max(0, (d - self.context) // self.length)
        hi = min(self.count - 1, (d + self.context) // self.length)
        return range(lo, hi + 1)

    def bounds(self, j: int) -> tuple[int, int]:
        """[start, stop) of slice j's own timestamps."""
        start = self.t_min + j * self.length
        return start, start + self.length


def _refuse(message: str, node=None) -> QueryError:
    pos = getattr(node, "pos", None)
    return QueryError(f"the Spark job cannot split this query exactly: {message}",
                      (pos.line or None) if pos else None, (pos.column or None) if pos else None)


def choose(q: A.Query, selection: str = "all") -> KeyPlan | None:
    """The by-key plan when it is exact for q, else None (then slicing is the only option).
    Raises QueryError for what the Spark job refuses whatever the plan."""
    if not is_nfab_query(q):
        raise _refuse("it runs flat SASE+ sequences only (AND / OR / nested patterns, ANY and the "
                      "SASE RFID form are not split yet)", q.pattern)
    if q.window is not None and q.window.kind == "events":
        raise _refuse("a count window (WITHIN n EVENTS) counts positions in the whole stream, which no "
                      "piece of the stream knows; use a time window (the stock workload's ts is the "
                      "position, so WITHIN n means the same there)", q.window)
    nfa = compile_nfab(q)
    if nfa.partition_attrs and q.strategy in _KEYED:
        return KeyPlan(tuple(nfa.partition_attrs))
    if q.window is None:
        why = ("strict contiguity reads every event of the stream" if nfa.partition_attrs
               else "it has no [attr] partition key")
        raise _refuse(f"{why} and no WITHIN window bounds it in time", q)
    if selection != "all":
        raise _refuse("the non-overlap output format needs the whole history of a partition, and this "
                      "query has no [attr] key to partition by (s2, s3 or s4)", q)
    return None


def window_in_ts_long(q: A.Query, ts_unit: str | None, ns_per_tick: int = 1) -> int:
    """The window as a whole number of `ts_long` ticks, rounded up (more context is harmless).
    `ns_per_tick` converts stream units (ns for datetimes) to ts_long ticks (Spark microseconds)."""
    bound = window_bound(q.window, ts_unit, q.conventions.window_bound)
    size = Fraction(bound.size) / ns_per_tick
    return max(1, math.ceil(size) + (0 if bound.strict else 1))


def slice_plan(t_min: int, t_max: int, window: int, target_slices: int, length: int | None = None) -> SlicePlan:
    """Slices covering [t_min, t_max]: `length` if given, else about `target_slices` slices, each at least
    four windows long (so that context costs at most half a slice)."""
    span = t_max - t_min + 1
    if length is None:
        length = max(4 * window, -(-span // max(1, target_slices)))
    if length < 1:
        raise ValueError("slice length must be positive")
    return SlicePlan(t_min, length, (span - 1) // length + 1, window)
