"""What kind of value (number, text, boolean) a column or an expression of a MATCH_RECOGNIZE query holds,
and the one check that reads it (docs/semantics.md SQ-N1): a comparison of a number with a text literal
(`id = '1'`, `B.value < 'abc'`) is a QueryError at the comparison's line and column, as Trino refuses it at
analysis, wherever the query says it (DEFINE, MEASURES, a subquery's WHERE, the outer query) and whatever
engine runs it.

A column's kind is what the reader made of it (cepkit.core.typed_columns): numbers (int64, float64, exact
ints and Fractions, in any mix), text (any text cell: a CSV column with one cell that is not a number is
text), booleans; unknown (None) for a column of nulls only or one mixing kinds, which the check leaves to
the rows (the evaluator's EventErrors). Text that reads as numbers is text here, even where the query's
arithmetic later reads it as numbers (cepkit.front.sql.table.check_table).
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence

from cepkit.core.errors import QueryError
from cepkit.front.kinds import BOOLEAN, NUMBER, TEXT, column_kind, value_kind
from cepkit.front.language import ast as A
from cepkit.front.sql import ast as S



def batch_kinds(batch: Any) -> dict[str, str | None]:
    """The kind of every column of an EventBatch as a query sees it: its attributes, its timestamp column
    and `id` (the event ids where the table has no such column)."""
    out = {name: column_kind(values) for name, values in batch.columns.items()}
    out.setdefault(batch.ts_col, column_kind(batch.ts))
    out.setdefault("id", column_kind(batch.ids))
    return out


def expr_kind(e: Any, column: Callable[[S.ColRef], str | None]) -> str | None:
    """The kind of an expression's value, `column(ref)` giving a column reference's (None: unknown)."""
    if isinstance(e, A.Const):
        return None if e.value is None else value_kind(e.value)
    if isinstance(e, S.ColRef):
        return column(e)
    if isinstance(e, S.Nav):
        return expr_kind(e.arg, column)
    if isinstance(e, S.SqlAgg):
        if e.func in ("count", "sum", "avg"):
            return NUMBER
        return None if e.arg is None else expr_kind(e.arg, column)
    if isinstance(e, S.MatchNumber):
        return NUMBER
    if isinstance(e, S.Classifier):
        return TEXT
    if isinstance(e, (A.BinOp, A.Neg)):
        return NUMBER
    if isinstance(e, (A.Compare, A.And, A.Or, A.Not, S.IsNull)):
        return BOOLEAN
    return None


def text_comparisons(exprs: Iterable[Any]) -> bool:
    """Whether any comparison in `exprs` has a text literal side (the only ones the check reads, so that a
    query without one pays nothing for the columns' kinds)."""
    return any(isinstance(n, A.Compare) and (_is_text(n.left) or _is_text(n.right)) for e in exprs for n in e.walk())


def check_comparisons(exprs: Iterable[Any], column: Callable[[S.ColRef], str | None]) -> None:
    """QueryError at the comparison for the first comparison of a number with a text literal in `exprs`."""
    for e in exprs:
        for n in e.walk():
            if not isinstance(n, A.Compare):
                continue
            for text, other in ((n.right, n.left), (n.left, n.right)):
                if _is_text(text) and expr_kind(other, column) == NUMBER:
                    pos = n.pos
                    raise QueryError(f"'{n.op}' compares a number ({_describe(other)}) with the text "
                                     f"{_quoted(text.value)}: a number compares with numbers only (as in Trino); "
                                     "write the number unquoted, or compare a text column",
                                     pos.line or None, pos.column or None)


def check_query(q: S.MatchRecognize, kinds: Mapping[str, str | None] | Callable[[], Mapping[str, str | None]]) -> None:
    """The check over DEFINE and MEASURES of `q`, its table's columns of the kinds `kinds` (or a function
    that gives them, called only when the query compares with a text literal)."""
    exprs = [m.expr for m in q.measures] + [d.cond for d in q.define]
    if text_comparisons(exprs):
        check_comparisons(exprs, _lookup(kinds() if callable(kinds) else kinds))


def outer_exprs(q: S.MatchRecognize) -> list[Any]:
    """The expressions of the outer query (SELECT, ORDER BY, WHERE)."""
    outer = q.outer
    if outer is None:
        return []
    return [i.expr for i in outer.items if i.expr is not None] + [k.col for k in outer.order_by] + \
        ([outer.where] if outer.where is not None else [])


def check_outer(step: Any, payload: Sequence[str], q: S.MatchRecognize, kinds: Mapping[str, str | None]) -> None:
    """The check over the outer query of `step` (cepkit.front.sql.outer.Step) over the match's output columns
    `payload` of the inner query `q`, whose table's columns are of the kinds `kinds`."""
    table = _lookup(kinds)
    made = {m.name: expr_kind(m.expr, table) for m in q.measures}
    exprs = [i.expr for i in step.outer.items if i.expr is not None] + [k.col for k in step.outer.order_by]
    exprs += [step.outer.where] if step.outer.where is not None else []

    def column(ref: S.ColRef) -> str | None:
        name = payload[step.source[step.resolve(ref)]]
        return made[name] if name in made else table(S.ColRef(None, name))

    check_comparisons(exprs, column)


def _lookup(kinds: Mapping[str, str | None]) -> Callable[[S.ColRef], str | None]:
    """A reference's kind: its column by exact name, else by the one case-insensitive match (unknown else)."""
    folded: dict[str, list[str]] = {}
    for name in kinds:
        folded.setdefault(name.lower(), []).append(name)

    def column(ref: S.ColRef) -> str | None:
        if ref.col in kinds:
            return kinds[ref.col]
        names = folded.get(ref.col.lower(), [])
        return kinds[names[0]] if len(names) == 1 else None
    return column


def merge(a: Mapping[str, str | None], b: Mapping[str, str | None]) -> dict[str, str | None]:
    """The kinds of a table read in two batches: a column whose batches disagree is unknown."""
    out = dict(a)
    for name, kind in b.items():
        out[name] = kind if name not in out or out[name] == kind or out[name] is None else \
            (out[name] if kind is None else None)
    return out


def _is_text(e: Any) -> bool:
    return isinstance(e, A.Const) and isinstance(e.value, str)


def _describe(e: Any) -> str:
    if isinstance(e, S.ColRef):
        return f"column {e.var}.{e.col}" if e.var else f"column {e.col}"
    return "an expression"


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"
