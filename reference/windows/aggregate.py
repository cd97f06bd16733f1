"""Windowed aggregation α_{W,γ} (Def 2.11): one row per window with sum, count, min, max, avg.

`method='naive'` recomputes every window from its events; `method='tree'` keeps one partial aggregate
per slice (§3.3.3 slices) in a balanced tree and reads each window from the root (§3.3). Both give
identical results. Empty windows give sum 0, count 0 and null avg/min/max (A10 a), or are skipped.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from cepkit.core.errors import QueryError
from cepkit.reference.windows.partial import Partial, finalize, of_values
from cepkit.front.windows.spec import Window, WindowSpec, slices, windows
from cepkit.reference.windows.tree import AggregateTree

FUNCS = ("sum", "count", "min", "max", "avg")


@dataclass(frozen=True)
class AggRow:
    ts: int
    values: tuple[tuple[str, Any], ...]   # (func, value) in the order asked

    def as_dict(self) -> dict[str, Any]:
        return {"ts": self.ts, **dict(self.values)}


def check_functions(funcs: Sequence[str]) -> None:
    for f in funcs:
        if f not in FUNCS:
            raise QueryError(f"unknown aggregate '{f}'", expected=list(FUNCS))


def aggregate(ts: Sequence[int], values: Sequence[Any], spec: WindowSpec, funcs: Sequence[str] = ("sum",),
              method: str = "tree", skip_empty: bool = False,
              slice_partial: Callable[[int, int], Partial] | None = None) -> list[AggRow]:
    """Aggregate `values` (exact numbers or None) over the windows of a stream with timestamps `ts`.

    `slice_partial(a, b)`, with method 'tree', supplies the partial aggregate of a slice from elsewhere
    (an index): timestamps [a, b) for time windows, positions [a, b) for count windows."""
    check_functions(funcs)
    if method not in ("tree", "naive"):
        raise QueryError(f"aggregation method must be 'tree' or 'naive', not {method!r}")
    wins = windows(ts, spec)
    if method == "naive":
        parts = [of_values(values[w.start:w.stop]) for w in wins]
    else:
        parts = _tree_partials(ts, values, spec, wins, slice_partial)
    out = []
    for w, p in zip(wins, parts):
        if skip_empty and p.count == 0:
            continue
        out.append(AggRow(w.ts, tuple((f, finalize(p, f)) for f in funcs)))
    return out


def _tree_partials(ts, values, spec: WindowSpec, wins: list[Window], slice_partial) -> list[Partial]:
    if not wins:
        return []
    if slice_partial is not None:
        part = slice_partial
        origin = wins[0].start if spec.kind == "count" else wins[0].lo
    elif spec.kind == "count":
        def part(a: int, b: int) -> Partial:
            return of_values(values[a:b])
        origin = wins[0].start
    else:
        import bisect

        def part(a: int, b: int) -> Partial:
            return of_values(values[bisect.bisect_left(ts, a):bisect.bisect_left(ts, b)])
        origin = wins[0].lo
    if spec.size // spec.slide > 2 * len(wins) + 1024:
        # the tree would hold size / slide slices, nearly all empty (TIME 2^63 - 1 SLIDE 1): one partial
        # per window instead, the same values
        return [part(w.start, w.stop) if spec.kind == "count" else part(w.lo, w.hi) for w in wins]
    first, step = slices(spec.size, spec.slide)
    tree = AggregateTree(len(first))
    edge = origin
    for length in first:
        tree.push(part(edge, edge + length))
        edge += length
    out = [tree.root()]
    for _ in wins[1:]:
        for length in step:
            tree.push(part(edge, edge + length))   # evicts the oldest slice
            edge += length
        out.append(tree.root())
    return out


def aggregate_windows(wins: list[Window], spec: WindowSpec, funcs: Sequence[str], skip_empty: bool,
                      slice_partial: Callable[[int, int], Partial]) -> list[AggRow]:
    """Tree aggregation over given windows, every slice's partial supplied by `slice_partial`."""
    check_functions(funcs)
    parts = _tree_partials(None, None, spec, wins, slice_partial)
    return [AggRow(w.ts, tuple((f, finalize(p, f)) for f in funcs))
            for w, p in zip(wins, parts) if not (skip_empty and p.count == 0)]


__all__ = ["aggregate", "aggregate_windows", "AggRow", "FUNCS"]
