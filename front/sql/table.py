"""The table side of a MATCH_RECOGNIZE query, shared by every SQL engine (front end): binding the query's
column names to a table, the columns it needs as numbers, the output columns, WITHIN in ticks, and where
AFTER MATCH SKIP TO FIRST / LAST restarts."""
from __future__ import annotations

import dataclasses
from typing import Any, Sequence

from cepkit.core.errors import QueryError, option_name
from cepkit.core.events import EventBatch
from cepkit.core.units import NANOS
from cepkit.front.sql import ast as S, kinds
from cepkit.core.errors import EventError
from cepkit.front.language import ast as A


def query_error(msg: str, pos) -> QueryError:
    """A QueryError at the position of a query node."""
    return QueryError(msg, pos.line or None, pos.column or None)


SOURCE_ROW = "\x00source_row"   # hidden key: the 1-based data row of the input, for error messages
# hidden timestamp column of a table without one (docs/semantics.md SQ-F): the input row position; row
# order comes from ORDER BY alone, so no engine reads it, and no output shows it
TICK = "\x00row"


def shown(columns: Sequence[str]) -> list[str]:
    """The columns without the hidden row tick."""
    return [c for c in columns if c != TICK]


def resolve_column(name: str, columns: Sequence[str], pos) -> str:
    """A column of the table: exact name, else the unique case-insensitive match."""
    if name in columns:
        return name
    folded = [c for c in columns if c.lower() == name.lower()]
    if len(folded) == 1:
        return folded[0]
    raise query_error(f"column '{name}' is not in the table", pos)


def bind_columns(q: S.MatchRecognize, columns: Sequence[str]) -> S.MatchRecognize:
    """Check that every column the query names exists (QueryError with position) and use its exact name."""
    def fix(e):
        if isinstance(e, S.ColRef):
            return dataclasses.replace(e, col=resolve_column(e.col, columns, e.pos))
        if dataclasses.is_dataclass(e) and not isinstance(e, type):
            changes = {}
            for f in dataclasses.fields(e):
                v = getattr(e, f.name)
                if f.name in ("select", "outer", "source"):   # the outer query's names are the match's
                    continue
                if isinstance(v, tuple) and v and not isinstance(v[0], (str, int)):
                    changes[f.name] = tuple(fix(x) for x in v)
                elif dataclasses.is_dataclass(v) and f.name not in ("pos", "pattern", "skip", "within"):
                    changes[f.name] = fix(v)
            return dataclasses.replace(e, **changes) if changes else e
        return e

    return fix(q)


def numeric_columns(exprs) -> set[str]:
    """Columns that expressions do arithmetic on or sum/average."""
    return {col for _, col in numeric_refs(exprs)}


def numeric_refs(exprs) -> set[tuple[str | None, str]]:
    """(qualifier, column) of the references that expressions do arithmetic on or sum/average."""
    return set(_numeric(exprs, ordering=False))


_ORDERING = {"<", "<=", ">", ">="}


def numeric_uses_of(exprs) -> dict[tuple[str | None, str], S.ColRef]:
    """(qualifier, column) the expressions need as numbers, each with its first such reference: operands of
    arithmetic, of an ordering comparison (< <= > >=) and of sum / avg / min / max, through PREV / NEXT /
    FIRST / LAST (the rule SASE and TPStream follow, cepkit.front.binding.attribute_uses), except an operand
    ordered against a text literal."""
    return _numeric(exprs, ordering=True)


def _numeric(exprs, ordering: bool) -> dict[tuple[str | None, str], S.ColRef]:
    """The references under arithmetic and sum / avg, and with `ordering` also under < <= > >= and min / max."""
    aggregates = ("sum", "avg", "min", "max") if ordering else ("sum", "avg")
    out: dict[tuple[str | None, str], S.ColRef] = {}

    def walk(e: Any, need: bool) -> None:
        if isinstance(e, S.ColRef):
            if need:
                out.setdefault((e.var, e.col), e)
            return
        if isinstance(e, S.SqlAgg):
            need = e.func in aggregates
        elif isinstance(e, (A.BinOp, A.Neg)):
            need = True
        elif isinstance(e, A.Compare):
            if ordering and e.op in _ORDERING:  # text ordered against a text literal stays text ('s < 'b'')
                walk(e.left, not _is_text(e.right))
                walk(e.right, not _is_text(e.left))
                return
            need = False
        elif not isinstance(e, S.Nav):
            need = False
        for c in e.children():
            walk(c, need)

    for e in exprs:
        walk(e, False)
    return out


def _is_text(e: Any) -> bool:
    return isinstance(e, A.Const) and isinstance(e.value, str)


def within_ticks(q: S.MatchRecognize, ts_unit: str | None) -> int | None:
    """WITHIN's amount in ticks of the first ORDER BY key (None without WITHIN); QueryError on units."""
    if q.within is None:
        return None
    amount = q.within.amount
    if q.within.unit is not None:
        if ts_unit is None:
            raise query_error(f"WITHIN {q.within.amount} {q.within.unit} needs the time unit of the table's "
                       f"timestamps ({option_name('ts_unit')}); give WITHIN in ticks instead", q.within.pos)
        amount = amount * NANOS[q.within.unit]
        unit_ns = NANOS[ts_unit]
        if amount % unit_ns:
            raise query_error(f"WITHIN is not a whole number of {ts_unit}", q.within.pos)
        amount //= unit_ns
    return amount


def skip_target(q: S.MatchRecognize, start: int, end: int, labels, subsets) -> int:
    skip = q.skip
    if skip.mode == "past_last":
        return end
    if skip.mode == "next_row":
        return start + 1
    names = subsets.get(skip.var, (skip.var,))
    hits = [start + j for j, lab in enumerate(labels) if lab in names]
    if not hits:
        raise query_error(f"AFTER MATCH SKIP TO {skip.mode.upper()} {skip.var}: the match has no row of {skip.var}",
                   skip.pos)
    target = hits[0] if skip.mode == "first" else hits[-1]
    if target == start:
        raise query_error(f"AFTER MATCH SKIP TO {skip.mode.upper()} {skip.var} would restart at the first row of "
                   "the match (an endless loop)", skip.pos)
    return target


def output_columns(q: S.MatchRecognize, columns: Sequence[str] | None = None) -> tuple[str, ...] | None:
    """The query's output columns where the query alone says them (None: ALL ROWS PER MATCH with SELECT *,
    whose columns are the table's, known at the first batch)."""
    names = lambda xs: tuple(x.col if isinstance(x, S.ColRef) else x for x in xs)  # noqa: E731
    if q.select is not None:
        seen: set[str] = set()
        for item, name in zip(q.select, names(q.select)):   # an output row cannot hold two columns of one name
            if name.lower() in seen:
                raise query_error(f"SELECT outputs column '{name}' twice", getattr(item, "pos", None) or q.pos)
            seen.add(name.lower())
        return names(q.select)
    part = [c.col for c in q.partition_by]
    measures = [m.name for m in q.measures]
    if q.rows != "all":
        return tuple(part + measures)
    if columns is None:
        return None
    order = [k.col.col for k in q.order_by]
    rest = [c for c in shown(columns) if c not in part and c not in order]
    return tuple(part + [c for c in order if c not in part] + measures + rest)


class TableQuery:
    """What every SQL engine's program says of its query (`q`, and `ts_col`: the timestamp column of the
    table fed last): the query, and the payload columns of its tables that hold timestamps."""

    q: S.MatchRecognize
    ts_col: str | None = None

    @property
    def query(self) -> S.MatchRecognize:
        return self.q

    @property
    def timestamp_columns(self) -> tuple[str, ...]:
        """The payload columns of the tables it returns that hold timestamps (the table's time column and
        the MEASURES of it)."""
        return timestamp_columns(self.q, self.ts_col)


def timestamp_columns(q: S.MatchRecognize, ts_col: str | None) -> tuple[str, ...]:
    """The output columns of `q` over a table whose timestamp column is `ts_col` that hold timestamps: that
    column itself (ALL ROWS PER MATCH, SELECT) and every MEASURE that is it, navigated or not (`FIRST(A.ts)`,
    `LAST(ts)`, `B.ts`); none before a table is read."""
    if ts_col is None:
        return ()
    out = [ts_col]
    for m in q.measures:
        e = m.expr
        while isinstance(e, S.Nav):
            e = e.arg
        if isinstance(e, S.ColRef) and e.col == ts_col:
            out.append(m.name)
    return tuple(out)


def numeric_uses(q: S.MatchRecognize) -> dict[str, S.ColRef]:
    """Columns the query needs as numbers, each with its first such reference (numeric_uses_of)."""
    out: dict[str, S.ColRef] = {}
    for (_, col), ref in numeric_uses_of([m.expr for m in q.measures] + [d.cond for d in q.define]).items():
        out.setdefault(col, ref)
    return out


def referenced_columns(q: S.MatchRecognize) -> set[str]:
    """Every column the query's MEASURES and DEFINE read."""
    return {n.col for e in [m.expr for m in q.measures] + [d.cond for d in q.define]
            for n in e.walk() if isinstance(n, S.ColRef)}


def check_table(batch: EventBatch, q: S.MatchRecognize) -> None:
    """QueryError (line and column) for a comparison of a number column with a text literal
    (cepkit.front.sql.kinds); EventError (naming the row and column) for a value that is not a number in a
    column the query needs as one (`numeric_uses`); text that is numbers on every row of a column the query reads becomes numbers
    ('5' = 5), as for SASE (cepkit.front.binding.check_columns)."""
    kinds.check_query(q, lambda: kinds.batch_kinds(batch))   # a number compared with a text literal: a QueryError
    numeric = numeric_uses(q)
    for col, ref in numeric.items():
        if col in batch.columns:
            name = f"{ref.var}.{ref.col}" if ref.var else ref.col
            batch.require_numeric(col, context=f" (compared as a number by {name} at line {ref.pos.line}, "
                                               f"column {ref.pos.column} of the query)")
    for col in referenced_columns(q) - set(numeric):
        if col in batch.columns and batch.columns[col].dtype == object:
            try:
                batch.require_numeric(col)
            except EventError:
                pass  # a text column: compared as text
