"""Run a MATCH_RECOGNIZE query over a table: partition, order, match, and build the output rows."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from cepkit.core.errors import EventError
from cepkit.front.sql import ast as S
from cepkit.reference.sql.allmatches import AllMatches
from cepkit.reference.sql.exprs import Ctx, evaluate
from cepkit.front.sql.program import compile_pattern
from cepkit.front.sql.table import (SOURCE_ROW, query_error, resolve_column, bind_columns, numeric_columns, numeric_refs,  # noqa: F401
                                        numeric_uses_of, skip_target, within_ticks)
from cepkit.reference.sql.vm import VM
from cepkit.front.sql.starts import Starts, target_of
from cepkit.front.sql.parse import parse


@dataclass(frozen=True)
class Table:
    """Output of a query: column names and rows (tuples of exact values)."""

    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    # ONE ROW PER MATCH and ALL MATCHES: per output row, the match in canonical form
    # ({variable: ids of its rows, in order}, the largest first-ORDER-BY-key value of its rows).
    matches: tuple[tuple[dict, Any], ...] | None = None

    def records(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, r)) for r in self.rows]



def _order(rows: list[dict], keys: Sequence[S.SortKey]) -> list[dict]:
    for k in reversed(keys):
        desc = k.descending
        nulls = [r for r in rows if r.get(k.col.col) is None]
        vals = [r for r in rows if r.get(k.col.col) is not None]
        try:
            vals.sort(key=lambda r: r.get(k.col.col), reverse=desc)
        except TypeError:
            raise EventError(f"ORDER BY column '{k.col.col}' mixes text and numbers", column=k.col.col) from None
        rows = vals + nulls
    return rows


def _numeric_columns(q: S.MatchRecognize) -> set[str]:
    """Columns the query does arithmetic on or sums/averages (they must hold numbers)."""
    return numeric_columns([m.expr for m in q.measures] + [d.cond for d in q.define])


def _check_types(q: S.MatchRecognize, rows: Sequence[Mapping[str, Any]]) -> None:
    """EventError naming the row and column of a text value where the query needs a number."""
    cols = _numeric_columns(q)
    for i, row in enumerate(rows):
        for c in cols:
            v = row.get(c)
            if isinstance(v, (str, bool)):
                raise EventError(f"non-numeric value {v!r} in a column the query computes with",
                                 row=row.get(SOURCE_ROW, i + 1), column=c)


def within_check(q: S.MatchRecognize, ts_unit: str | None):
    amount = within_ticks(q, ts_unit)
    if amount is None:
        return None
    key = q.order_by[0]
    col = key.col.col
    sign = -1 if key.descending else 1
    strict = q.conventions.window_bound == "strict"   # the query's convention (EXCLUSIVE: strict)

    def check(rows):
        def ok(first: int, row: int) -> bool:
            a, b = rows[first].get(col), rows[row].get(col)
            if a is None or b is None:
                return False
            if isinstance(a, str) or isinstance(b, str):
                raise EventError(f"WITHIN needs a numeric ORDER BY column, '{col}' holds {b!r}", column=col)
            span = sign * (b - a)
            return span < amount if strict else span <= amount
        return ok
    return check


def run_rows(q: S.MatchRecognize | str, columns: Sequence[str], rows: Sequence[Mapping[str, Any]],
             ts_unit: str | None = None, all_matches=None, state=None, limit: int | None = None) -> Table:
    """Run a query over rows (mappings from column name to exact value) of a table with `columns`.

    `all_matches(q, partitions, ts_unit)`, if given, finds the ALL MATCHES matches instead of AllMatches:
    for the ordered rows of every partition, its (positions, labels) in AllMatches.matches order.
    `state(live, variable)` (contract.Budget.check_state) is told the live threads / runs after each row.
    `limit`: only the first `limit` output rows are wanted (--limit): the partitions after the one that brings
    them are not matched, and ALL MATCHES stops inside it after the row that brings them (matches are output
    by last row), so the table's first `limit` rows are those of the whole run."""

    if isinstance(q, str):
        q = parse(q)
    q = bind_columns(q, list(columns))
    _check_types(q, rows)
    part_cols = [c.col for c in q.partition_by]
    partitions: dict[tuple, list[dict]] = {}
    for row in rows:
        partitions.setdefault(tuple(row.get(c) for c in part_cols), []).append(dict(row))
    # no rows (a header-only file): a duration has no timestamps to bind to, and matches nothing (issue 14)
    within = within_check(q, ts_unit) if rows or ts_unit is not None else None
    out_cols = _out_columns(q, columns)
    out: list[tuple] = []
    matches: list[tuple[dict, Any]] = []
    ordered = [_order(prows, q.order_by) for prows in partitions.values()]
    found = all_matches(q, ordered, ts_unit) if all_matches is not None and q.rows == "all_matches" else None
    program = compile_pattern(q.pattern)
    for k, prows in enumerate(ordered):
        if limit is not None and len(out) >= limit:
            break
        emit = Emitter(q, prows, out_cols, out, matches)
        check = within(prows) if within else None
        if q.rows == "all_matches":
            engine = AllMatches(program, q.define_map, q.subset_map, q.strategy, check, q.conventions.null_logic)
            engine.state = state
            engine.want = None if limit is None else limit - len(out)
            for n, (positions, labels) in enumerate(found[k] if found is not None else engine.matches(prows),
                                                    start=1):
                emit.one(positions, labels, n)
        else:
            _sql_partition(q, program, prows, emit, check, state)
    table = Table(tuple(out_cols), tuple(out), tuple(matches) if q.rows != "all" else None)
    return project_columns(q, table)


def _out_columns(q: S.MatchRecognize, columns: Sequence[str]) -> list[str]:
    """The output columns (M7), QueryError where two share a name."""
    part_cols = [c.col for c in q.partition_by]
    order_cols = [k.col.col for k in q.order_by]
    measure_names = [m.name for m in q.measures]
    if q.rows == "all":
        rest = [c for c in columns if c not in part_cols and c not in order_cols]
        out_cols = part_cols + [c for c in order_cols if c not in part_cols] + measure_names + rest
    else:
        out_cols = part_cols + measure_names
    if len(set(out_cols)) != len(out_cols):
        dup = next(c for c in out_cols if out_cols.count(c) > 1)
        pos = next((m.pos for m in q.measures if m.name == dup), q.pos)
        raise query_error(f"output column '{dup}' appears twice (rename the measure)", pos)
    return out_cols


def run_starts(q: S.MatchRecognize, columns: Sequence[str], rows: Sequence[Mapping[str, Any]], choose,
               ts_unit: str | None = None) -> Table:
    """ONE ROW / ALL ROWS PER MATCH without PARTITION BY, outputting the matches `choose` picks from the match
    at every start row (cepkit.front.sql.starts: `choose(Starts) -> Walk`) instead of those of its own walk."""
    q = bind_columns(q, list(columns))
    if q.partition_by or q.rows == "all_matches":
        raise ValueError("the match at every start row is for SQL mode without PARTITION BY")
    _check_types(q, rows)
    ordered = _order([dict(r) for r in rows], q.order_by)
    within = within_check(q, ts_unit) if rows or ts_unit is not None else None
    out_cols = _out_columns(q, columns)
    matcher = VM(compile_pattern(q.pattern), q.define_map, q.subset_map, within(ordered) if within else None,
                 q.conventions.null_logic)
    found = {}
    for p in range(len(ordered)):
        hit = matcher.first(ordered, p)
        if hit is not None:
            found[p] = hit
    start = np.array(sorted(found), np.int64)
    end = np.array([found[p][0] for p in start.tolist()], np.int64)
    target = np.array([target_of(q, p, found[p][0], found[p][1]) for p in start.tolist()], np.int64)
    ids = np.array([r.get("id", i) for i, r in enumerate(ordered)], dtype=object)
    starts = Starts(ids, start, end, target)
    walk = choose(starts)
    out: list[tuple] = []
    matches: list[tuple[dict, Any]] = []
    emit = Emitter(q, ordered, out_cols, out, matches)
    for is_match, k in zip(*walk.order(starts)):
        if not is_match:
            emit.unmatched(int(walk.unmatched[k]))
            continue
        c, number = int(walk.matches[k]), int(walk.numbers[k])
        p = int(start[c])
        stop, labels, excluded = found[p]
        if stop == p:
            if q.rows == "one":
                emit.empty_one(p, number)
            elif q.empty in ("show", "unmatched"):
                emit.empty_all(p, number)
        elif q.rows == "one":
            emit.one(range(p, stop), labels, number)
        else:
            emit.all(range(p, stop), labels, excluded, number)
    table = Table(tuple(out_cols), tuple(out), tuple(matches) if q.rows != "all" else None)
    return project_columns(q, table)


def project_columns(q: S.MatchRecognize, table: Table) -> Table:
    if q.select is None:
        return table
    idx = []
    for name in q.select:
        col = name.col if isinstance(name, S.ColRef) else name
        pos = name.pos if isinstance(name, S.ColRef) else q.pos
        idx.append(table.columns.index(resolve_column(col, table.columns, pos)))
    return Table(tuple(table.columns[i] for i in idx), tuple(tuple(r[i] for i in idx) for r in table.rows),
                 table.matches)


class Emitter:
    def __init__(self, q, rows, out_cols, out, matches):
        self.q, self.rows, self.out_cols, self.out, self.matches = q, rows, out_cols, out, matches
        self.ts_col = q.order_by[0].col.col if q.order_by else None
        self.measures = {m.name: m.expr for m in q.measures}
        self.subsets = q.subset_map
        self.logic = q.conventions.null_logic

    def _row(self, base: Mapping | None, measures: Mapping[str, Any], part_row: Mapping) -> tuple:
        vals = []
        for c in self.out_cols:
            if c in measures:
                vals.append(measures[c])
            elif base is not None and c in base:
                vals.append(base[c])
            else:
                vals.append(part_row.get(c))
        return tuple(vals)

    def _measures(self, ctx: Ctx, final: bool) -> dict[str, Any]:
        return {name: evaluate(e, ctx, final) for name, e in self.measures.items()}

    def one(self, positions, labels, number: int) -> None:
        ctx = Ctx(self.rows, positions, labels, len(positions) - 1, self.subsets, number, self.logic)
        part_row = self.rows[positions[0]] if positions else self.rows[0]
        self.out.append(self._row(None, self._measures(ctx, True), part_row))
        self.matches.append(self._canonical(positions, labels))

    def _canonical(self, positions, labels) -> tuple[dict, Any]:
        bindings: dict[str, list] = {}
        for p, lab in zip(positions, labels):
            row = self.rows[p]
            bindings.setdefault(lab, []).append(row.get("id", p))
        keys = [self.rows[p].get(self.ts_col) for p in positions] if self.ts_col else []
        keys = [k for k in keys if k is not None]
        return ({k: tuple(v) for k, v in bindings.items()}, max(keys) if keys else None)

    def empty_one(self, start: int, number: int) -> None:
        ctx = Ctx(self.rows, (), (), -1, self.subsets, number, self.logic)
        self.out.append(self._row(None, self._measures(ctx, True), self.rows[start]))
        self.matches.append(({}, None))

    def all(self, positions, labels, excluded, number: int) -> None:
        for j, p in enumerate(positions):
            if excluded[j]:
                continue
            ctx = Ctx(self.rows, positions, labels, j, self.subsets, number, self.logic)
            self.out.append(self._row(self.rows[p], self._measures(ctx, False), self.rows[p]))

    def empty_all(self, start: int, number: int) -> None:
        ctx = Ctx(self.rows, (), (), -1, self.subsets, number, self.logic)
        self.out.append(self._row(self.rows[start], self._measures(ctx, False), self.rows[start]))

    def unmatched(self, row: int) -> None:
        self.out.append(self._row(self.rows[row], {name: None for name in self.measures}, self.rows[row]))


def _sql_partition(q: S.MatchRecognize, program, rows: list[dict], emit: Emitter, within, state=None) -> None:
    """SQL:2016 matching of one partition: the preferred match at each start (the pattern program run by the
    lockstep VM), then AFTER MATCH SKIP."""
    matcher = VM(program, q.define_map, q.subset_map, within, q.conventions.null_logic)
    matcher.state = state
    subsets = q.subset_map
    n = len(rows)
    pos, number = 0, 1
    covered = [False] * n
    while pos < n:
        found = matcher.first(rows, pos, number)
        if found is None:
            if q.rows == "all" and q.empty == "unmatched" and not covered[pos]:
                emit.unmatched(pos)
            pos += 1
            continue
        end, labels, excluded = found
        positions = range(pos, end)
        if end == pos:  # empty match: reported, then matching resumes at the next row
            if q.rows == "one":
                emit.empty_one(pos, number)
            elif q.empty in ("show", "unmatched"):
                emit.empty_all(pos, number)
            number += 1
            pos += 1
            continue
        if q.rows == "one":
            emit.one(positions, labels, number)
        else:
            emit.all(positions, labels, excluded, number)
        for p in positions:
            covered[p] = True
        number += 1
        pos = skip_target(q, pos, end, labels, subsets)


def run_query(q: S.MatchRecognize | str, batch) -> Table:
    """Run a query over an EventBatch (cepkit.core.events); its ts, id and type are columns too."""
    columns, rows = batch_rows(batch)
    return run_rows(q, columns, rows, batch.ts_unit)


def batch_rows(batch, ts_col: str = "ts", id_col: str | None = "id", type_col: str | None = None,
               indices=None):
    """Columns and row mappings of an EventBatch with exact values (of every event, or those at `indices`)."""
    columns = [ts_col] + ([id_col] if id_col else []) + ([type_col] if type_col else [])
    columns += [c for c in batch.columns if c not in columns]
    rows = []
    for i in (range(len(batch)) if indices is None else indices):
        i = int(i)
        row = {ts_col: int(batch.ts[i]), SOURCE_ROW: int(batch.source_rows[i])}
        if id_col and id_col != ts_col:   # a timestamp column named id is the column (SQ-L3)
            row[id_col] = _plain_id(batch.ids[i])
        if type_col:
            row[type_col] = batch.type_of(i)
        for c in batch.columns:
            if c not in row:
                row[c] = batch.exact_value(c, i)
        rows.append(row)
    return columns, rows


def _plain_id(v):
    return v.item() if hasattr(v, "item") else v
