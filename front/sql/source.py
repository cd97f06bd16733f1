"""The input forms of a MATCH_RECOGNIZE query (docs/semantics.md SQ-F): an inline VALUES table, and
subqueries that keep the rows their WHERE holds for and pick or rename columns with their SELECT. Every
engine gets them from here: the table reader builds the VALUES table (cepkit.reference.sql.engine.to_table) and
the outer step (front/sql/outer.py) applies the subqueries to each fed EventBatch, column by column."""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from cepkit.core.errors import QueryError
from cepkit.core.events import EventBatch
from cepkit.front.sql import ast as S
from cepkit.front.sql import columnar, kinds
from cepkit.front.sql.table import TICK, query_error, resolve_column


def base(q: S.MatchRecognize) -> S.Values | str:
    """What the query's rows come from at the bottom of its subqueries: its VALUES, or the table name."""
    source: Any = q.source if q.source is not None else q.table
    while isinstance(source, S.Subquery):
        source = source.input
    return source


def carries_rows(q: S.MatchRecognize) -> bool:
    """Whether the query brings its own rows (VALUES), so that it runs without an events file."""
    return isinstance(base(q), S.Values)


def subqueries(q: S.MatchRecognize) -> list[S.Subquery]:
    """The query's subqueries, innermost first (the order they apply in)."""
    out, source = [], q.source
    while isinstance(source, S.Subquery):
        out.append(source)
        source = source.input
    return out[::-1]


def leaves_out_id(q: S.MatchRecognize) -> bool:
    """Whether the last subquery's SELECT list leaves out `id` (the table it gives has no id column)."""
    subs = subqueries(q)
    return bool(subs) and subs[-1].items is not None and all(item.name != "id" for item in subs[-1].items)


def input_column(q: S.MatchRecognize, name: str) -> str:
    """The column of the base table that the matched table's column `name` comes from (through renames)."""
    for sub in reversed(subqueries(q)):
        if sub.items is None:
            continue
        item = next((i for i in sub.items if i.name.lower() == name.lower()), None)
        if item is None:
            return name
        name = item.col
    return name


def values_frame(v: S.Values) -> pd.DataFrame:
    """The VALUES rows as a DataFrame: a column of integers as int64, any other as exact Python values."""
    data: dict[str, Any] = {}
    for k, name in enumerate(v.columns):
        col = [row[k] for row in v.rows]
        if all(isinstance(x, int) and not isinstance(x, bool) and -(1 << 63) <= x < (1 << 63) for x in col):
            data[name] = pd.Series(col, dtype=np.int64)
        else:
            data[name] = pd.Series(col, dtype=object)
    if len(set(c.lower() for c in v.columns)) != len(v.columns):
        dup = next(c for c in v.columns if [x.lower() for x in v.columns].count(c.lower()) > 1)
        raise query_error(f"the VALUES table names column '{dup}' twice", v.pos)
    return pd.DataFrame(data)


def check(q: S.MatchRecognize) -> None:
    """Static checks of the subqueries (QueryError with position)."""
    for sub in subqueries(q):
        if sub.where is not None:
            columnar.check(sub.where, "a subquery's WHERE")
        if sub.items is not None:
            seen: set[str] = set()
            for item in sub.items:
                if item.name.lower() in seen:
                    raise query_error(f"the subquery outputs column '{item.name}' twice", item.pos)
                seen.add(item.name.lower())


def apply(q: S.MatchRecognize, batch: EventBatch) -> EventBatch:
    """The batch after the query's subqueries: rows their WHERE keeps, columns their SELECT names."""
    for sub in subqueries(q):
        batch = _subquery(sub, batch)
    return batch


def visible_columns(batch: EventBatch) -> list[str]:
    """The columns a query sees in a batch: its timestamp column (unless it is the hidden row tick), id,
    and the attributes."""
    names = [] if batch.ts_col == TICK else [batch.ts_col]
    return names + ["id"] + [c for c in batch.columns if c not in names and c != "id"]


def _column(batch: EventBatch, name: str) -> np.ndarray:
    if name == batch.ts_col:
        return np.asarray(batch.ts)
    if name == "id" and "id" not in batch.columns:
        return np.asarray(batch.ids)
    return batch.columns[name]


def _subquery(sub: S.Subquery, batch: EventBatch) -> EventBatch:
    names = visible_columns(batch)
    if sub.where is not None:
        def column(ref: S.ColRef) -> np.ndarray:
            return _column(batch, resolve_column(ref.col, names, ref.pos))

        if kinds.text_comparisons([sub.where]):   # a number compared with a text literal: a QueryError
            table = kinds.batch_kinds(batch)
            kinds.check_comparisons([sub.where], lambda ref: table.get(resolve_column(ref.col, names, ref.pos)))
        values, null = columnar.evaluate(sub.where, column, len(batch), "the subquery's WHERE")
        if values.dtype != np.bool_:
            raise query_error("the subquery's WHERE is not a condition", sub.pos)
        batch = take(batch, np.flatnonzero(values & ~null))
    if sub.items is None:
        return batch
    columns: dict[str, np.ndarray] = {}
    ts_col = TICK
    for item in sub.items:
        col = resolve_column(item.col, names, item.pos)
        if col == batch.ts_col:
            ts_col = item.name
        elif col == "id" and "id" not in batch.columns:
            if item.name != "id":
                raise QueryError("a subquery cannot rename the event id column 'id'", item.pos.line or None,
                                 item.pos.column or None)
        else:
            columns[item.name] = batch.columns[col]
    return EventBatch(columns=columns, type_codes=batch.type_codes, type_names=batch.type_names, ts=batch.ts,
                      ids=batch.ids, ts_unit=batch.ts_unit, source_rows=batch.source_rows,
                      positional_ids=batch.positional_ids, ts_col=ts_col, ts_datetime=batch.ts_datetime,
                      ts_tz=batch.ts_tz)


def take(batch: EventBatch, index: np.ndarray) -> EventBatch:
    """The batch's rows at `index` (in that order), ids and source rows kept."""
    return EventBatch(columns={k: v[index] for k, v in batch.columns.items()}, type_codes=batch.type_codes[index],
                      type_names=batch.type_names, ts=batch.ts[index], ids=batch.ids[index], ts_unit=batch.ts_unit,
                      source_rows=batch.source_rows[index], positional_ids=False, ts_col=batch.ts_col,
                      ts_datetime=batch.ts_datetime, ts_tz=batch.ts_tz)


def numbered_from(batch: EventBatch, n: int) -> EventBatch:
    """A batch whose ids are row numbers made up by the reader, numbered on from n (fixed from then on, so
    that a subquery's WHERE keeps ids unique across the batches of a stream)."""
    return EventBatch(columns=batch.columns, type_codes=batch.type_codes, type_names=batch.type_names, ts=batch.ts,
                      ids=batch.ids + n, ts_unit=batch.ts_unit, source_rows=batch.source_rows, positional_ids=False,
                      ts_col=batch.ts_col, ts_datetime=batch.ts_datetime, ts_tz=batch.ts_tz)
