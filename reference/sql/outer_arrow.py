"""The outer query over an engine's match table, column by column (docs/semantics.md SQ-F6): WHERE as a
mask, ORDER BY as a lexicographic sort of ranks, computed items as arrays, by the columnar evaluator
(front/sql/columnar.py); no Python work per row but where a column holds exact fractions or mixed
values (decoded to Python values). `applies` says when the step can run this way (+ - * only)."""
from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from cepkit.core.errors import EventError
from cepkit.front.language import ast as A
from cepkit.core.match_table import KIND, ROLE, Layout, MatchTable, decode, encode
from cepkit.front.sql import ast as S
from cepkit.front.sql import columnar
from cepkit.front.sql.outer import Step
def applies(step: Step) -> bool:
    """Whether every expression of the step is one the columnar evaluator runs."""
    exprs = [e for _, e in step.items if not isinstance(e, str)]
    exprs += [step.outer.where] if step.outer.where is not None else []
    exprs += [what for (kind, what), _ in step.keys if kind == "expr"]
    return all(not (isinstance(n, A.BinOp) and n.op not in ("+", "-", "*")) for e in exprs for n in e.walk())


def apply(step: Step, table: MatchTable, layout: Layout) -> MatchTable:
    """The match table after the outer query (the rows kept, in order; the outer SELECT's payload)."""
    arrow = table.to_arrow()
    names = table.layout.payload_columns()
    n = arrow.num_rows
    cache: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def values(k: int) -> tuple[np.ndarray, np.ndarray]:
        if k not in cache:
            cache[k] = _numpy(arrow.column(names[k]).combine_chunks(), arrow.schema.field(names[k]))
        return cache[k]

    def column(ref: S.ColRef) -> tuple[np.ndarray, np.ndarray]:
        return values(step.source[step.resolve(ref)])

    def evaluate(e: Any, rows: int, clause: str) -> tuple[np.ndarray, np.ndarray]:
        return columnar.evaluate(e, column, rows, clause)

    index = np.arange(n)
    if step.outer.where is not None:
        v, null = evaluate(step.outer.where, n, "the outer WHERE")
        if v.dtype != np.bool_:
            raise EventError("the outer WHERE is not a condition")
        index = np.flatnonzero(v & ~null)
    computed = {k: evaluate(e, n, "the outer SELECT") for k, (_, e) in enumerate(step.items) if not isinstance(e, str)}
    if step.keys:
        ranks = []
        for (kind, what), desc in step.keys:
            if kind == "output":
                _, e = step.items[what]
                v, null = values(step.source[e]) if isinstance(e, str) else computed[what]
            else:
                v, null = evaluate(what, n, "the outer ORDER BY")
            ranks.append(_rank(v[index], null[index], desc))
        index = index[np.lexsort([np.arange(len(index))] + ranks[::-1])]
    head = list(table.layout.variables) + ["ts"]
    cols = [arrow.column(c).take(index) for c in head]
    fields = [arrow.schema.field(c) for c in head]
    for k, ((_, e), column_name) in enumerate(zip(step.items, layout.payload_columns())):
        if isinstance(e, str):
            src = names[step.source[e]]
            cols.append(arrow.column(src).take(index))
            fields.append(arrow.schema.field(src).with_name(column_name))
            continue
        v, null = computed[k]
        arr, kind = encode(_exact(v[index], null[index]))
        meta = {ROLE: b"payload"} | ({KIND: kind.encode()} if kind else {})
        cols.append(arr)
        fields.append(pa.field(column_name, arr.type, metadata=meta))
    return MatchTable(layout, arrow=pa.Table.from_arrays(cols, schema=pa.schema(fields)))


def _numpy(arr: pa.Array, field: pa.Field) -> tuple[np.ndarray, np.ndarray]:
    """(values, null) of a payload column: int64, bool and text as NumPy arrays, anything else exact."""
    null = np.asarray(arr.is_null().to_numpy(zero_copy_only=False), np.bool_)
    kind = (field.metadata or {}).get(KIND)
    t = arr.type
    if kind is None and (pa.types.is_integer(t) or pa.types.is_boolean(t)):
        filled = arr.fill_null(False if pa.types.is_boolean(t) else 0)
        return np.asarray(filled.to_numpy(zero_copy_only=False)), null
    if kind is None and (pa.types.is_string(t) or pa.types.is_large_string(t)):
        return np.asarray(arr.to_numpy(zero_copy_only=False), object), null
    out = np.empty(len(arr), object)
    out[:] = decode(arr, kind)
    return out, null


def _exact(v: np.ndarray, null: np.ndarray) -> Any:
    """A computed column as `encode` takes it: a NumPy array without nulls, else exact Python values."""
    if not null.any() and v.dtype.kind in "iub":
        return v
    out = v.astype(object)
    out[null] = None
    return out.tolist()


def _rank(v: np.ndarray, null: np.ndarray, desc: bool) -> np.ndarray:
    """Sort ranks of a key: equal values equal ranks, nulls last whatever the direction."""
    present = v[~null]
    try:
        _, inverse = np.unique(present, return_inverse=True)
    except TypeError:
        raise EventError("the outer ORDER BY compares text with numbers") from None
    rank = np.full(len(v), len(present) + 1, np.int64)   # nulls
    rank[~null] = -inverse if desc else inverse
    return rank
