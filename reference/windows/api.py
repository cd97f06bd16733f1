"""The windowed operators over EventBatches (cepkit.core.events), with conditions written as SQL text."""
from __future__ import annotations

from typing import Any, Sequence

from cepkit.core.errors import EventError, QueryError
from cepkit.front.sql import ast as S
from cepkit.front.sql.parse import parse_expression
from cepkit.reference.sql.run import SOURCE_ROW, batch_rows, numeric_uses_of
from cepkit.reference.windows.aggregate import AggRow, aggregate
from cepkit.reference.windows.filter import filter_events
from cepkit.reference.windows.join import join
from cepkit.front.windows.spec import WindowSpec


def _rows(batch):
    return batch_rows(batch, ts_col="ts", id_col="id")


def filter_condition(batch, where: str):
    """The parsed condition of a filter over `batch`, its columns checked (numeric where computed with)."""
    cond = parse_expression(where)
    _require(cond, ["ts", "id", *batch.columns])
    for (_, col), ref in numeric_uses_of([cond]).items():
        if col not in ("ts", "id"):
            batch.require_numeric(col, context=_compared(ref))
    return cond


def output_rows(batch, indices=None) -> list[dict[str, Any]]:
    """Events of `batch` (all, or those at `indices`) as output rows: ts, id and the attributes."""
    _, rows = batch_rows(batch, ts_col="ts", id_col="id", indices=indices)
    return [{k: v for k, v in r.items() if k != SOURCE_ROW} for r in rows]


def filter_batch(batch, where: str) -> list[dict[str, Any]]:
    """The events (as rows with ts, id and attributes) satisfying the condition `where`."""
    cond = filter_condition(batch, where)
    _, rows = _rows(batch)
    return [{k: v for k, v in rows[i].items() if k != SOURCE_ROW} for i in filter_events(rows, cond)]


def check_attribute(batch, attr: str) -> None:
    """The aggregated attribute exists and holds numbers."""
    if attr not in batch.columns:
        raise EventError(f"missing attribute column '{attr}'", column=attr)
    batch.require_numeric(attr, context="the aggregated attribute")


def aggregate_batch(batch, attr: str, spec: WindowSpec, funcs: Sequence[str] = ("sum",), method: str = "tree",
                    skip_empty: bool = False) -> list[AggRow]:
    check_attribute(batch, attr)
    values = [batch.exact_value(attr, i) for i in range(len(batch))]
    ts = [int(t) for t in batch.ts]
    return aggregate(ts, values, spec, funcs, method, skip_empty)


def join_batches(left, right, on: str, left_window: WindowSpec, right_window: WindowSpec,
                 active: str = "strict") -> list[dict[str, Any]]:
    """Join results as rows: ts, left_id, right_id, then left_<attr> and right_<attr> columns."""
    cond = join_condition(left, right, on)
    lcols, lrows = _rows(left)
    rcols, rrows = _rows(right)
    res = join(lrows, [int(t) for t in left.ts], rrows, [int(t) for t in right.ts], cond, left_window,
               right_window, active)
    return join_rows(lcols, lrows, rcols, rrows, [(r.left, r.right, r.ts) for r in res])


def join_condition(left, right, on: str):
    """The parsed join condition, its columns checked against the two streams."""
    cond = parse_expression(on, ("L", "R"))
    for n in cond.walk():
        if isinstance(n, S.ColRef):
            if n.var is None:
                raise QueryError("join conditions qualify every column with L. (first stream) or R. (second)",
                                 n.pos.line, n.pos.column)
            side = left if n.var == "L" else right
            if n.col not in side.columns and n.col not in ("ts", "id"):
                raise EventError(f"missing attribute column '{n.col}' in the "
                                 f"{'first' if n.var == 'L' else 'second'} stream", column=n.col)
    for (var, col), ref in numeric_uses_of([cond]).items():
        if col not in ("ts", "id"):
            (left if var == "L" else right).require_numeric(col, context=_compared(ref))
    return cond


def _compared(ref: S.ColRef) -> str:
    name = f"{ref.var}.{ref.col}" if ref.var else ref.col
    return f" (compared as a number by {name} at line {ref.pos.line}, column {ref.pos.column} of the condition)"


def join_rows(lcols, lrows, rcols, rrows, pairs) -> list[dict[str, Any]]:
    """Output rows of (left position, right position, ts) pairs: ts, left_id, right_id, left_*, right_*."""
    out = []
    for li, ri, ts in pairs:
        row = {"ts": ts, "left_id": lrows[li]["id"], "right_id": rrows[ri]["id"]}
        row.update({f"left_{c}": lrows[li][c] for c in lcols if c not in ("ts", "id")})
        row.update({f"right_{c}": rrows[ri][c] for c in rcols if c not in ("ts", "id")})
        out.append(row)
    return out


def _require(cond, columns) -> None:
    for n in cond.walk():
        if isinstance(n, S.ColRef) and n.col not in columns:
            raise EventError(f"missing attribute column '{n.col}'", column=n.col)
