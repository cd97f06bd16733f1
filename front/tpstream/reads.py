"""What a TPStream query reads from an event batch (front end, shared by every engine): the attributes
its conditions use, their values, the column checks, the window in timestamp ticks, and the RETURN aggregates."""
from __future__ import annotations

import math
from typing import Any, Callable, Sequence

from cepkit.front.evaluate import aggregate as exact_aggregate
from cepkit.core.events import EventBatch
from cepkit.front.language import ast as A
from cepkit.core.match import plain
from cepkit.front.tpstream.query import Amount, SituationDef

PSEUDO = ("ts", "id")  # readable without a column: the event's timestamp and id


def value_reader(batch: EventBatch) -> Callable[[int, str], Any]:
    """value(pos, attr): the exact value of an attribute of the event at batch position pos."""
    def value(pos: int, attr: str) -> Any:
        if attr in batch.columns:
            return batch.exact_value(attr, pos)
        if attr == "ts":
            return int(batch.ts[pos])
        return plain(batch.ids[pos])
    return value


def condition_attrs(e) -> list[tuple[str, bool]]:
    """(attribute, used numerically) for every attribute reference of a condition."""
    out: list[tuple[str, bool]] = []

    def walk(x, numeric: bool) -> None:
        if isinstance(x, A.AttrRef):
            out.append((x.attr, numeric))
        elif isinstance(x, A.Compare):
            num = x.op in ("<", "<=", ">", ">=")
            walk(x.left, num)
            walk(x.right, num)
        elif isinstance(x, A.BinOp):
            walk(x.left, True)
            walk(x.right, True)
        elif isinstance(x, A.Neg):
            walk(x.operand, True)
        elif isinstance(x, A.Not):
            walk(x.operand, False)
        elif isinstance(x, (A.And, A.Or)):
            for item in x.items:
                walk(item, False)
    walk(e, False)
    return out


def check_columns(batch: EventBatch, defs: Sequence[SituationDef], extra: Sequence[tuple[str, bool, str]] = ()) -> None:
    """EventError for a missing attribute column or non-numeric values in a numerically used one."""
    uses = [(a, num, f"the condition of {d.name}") for d in defs for a, num in condition_attrs(d.condition)]
    for attr, numeric, context in list(uses) + list(extra):
        if attr in PSEUDO and attr not in batch.columns:
            continue
        batch.require_columns([attr], {attr: context})
        if numeric:
            batch.require_numeric(attr, context=context)


def window_ticks(w: Amount, bound: str) -> Amount:
    """The largest span (timestamp ticks, integers) the query's window admits as `span <= result`:
    w itself when the bound is inclusive; under a strict bound (span < w) the integer below w."""
    if bound == "inclusive":
        return w
    return math.ceil(w) - 1


def aggregate(func: str, values: list[Any]) -> Any:
    """FIRST/LAST of the events (nulls included); COUNT/SUM/AVG/MIN/MAX over the non-null values."""
    if func == "first":
        return values[0] if values else None
    if func == "last":
        return values[-1] if values else None
    return exact_aggregate(func, values)
