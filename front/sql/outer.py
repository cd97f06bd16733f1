"""The query around MATCH_RECOGNIZE (docs/semantics.md SQ-F): the outer SELECT (`*`, `m.*`, columns,
expressions, aliases), WHERE and ORDER BY over the match's output rows, and the column alias list
`AS m (a, b)`. `check` is the static part (at parse time); `Step` binds the outer query to the output
columns of the match and applies it to rows of exact values."""
from __future__ import annotations

from typing import Any, Sequence

from cepkit.core.errors import EventError
from cepkit.front.evaluate import reduce, sql_truth
from cepkit.front.sql import ast as S
from cepkit.front.sql.table import query_error, shown
_PATTERN_ONLY = (S.Nav, S.SqlAgg, S.Classifier, S.MatchNumber)


def _exprs(outer: S.Outer) -> list[tuple[str, Any]]:
    out = [("SELECT", i.expr) for i in outer.items if i.expr is not None]
    if outer.where is not None:
        out.append(("WHERE", outer.where))
    return out + [("ORDER BY", k.col) for k in outer.order_by]


def check(q: S.MatchRecognize) -> None:
    """QueryError (with position) for what the outer query cannot say: a qualifier that is not the match's
    alias, `x.*` for another x, pattern functions and aggregates outside MATCH_RECOGNIZE."""
    outer = q.outer
    if outer is None:
        return
    shown_alias = outer.alias or "(no alias)"
    for item in outer.items:
        if item.expr is None and item.name is not None and item.name != outer.alias:
            raise query_error(f"unknown qualifier '{item.name}' in {item.name}.* (the match is {shown_alias})",
                              item.pos)
    for clause, e in _exprs(outer):
        for n in e.walk():
            if isinstance(n, _PATTERN_ONLY):
                what = "aggregates" if isinstance(n, S.SqlAgg) else "navigation and pattern functions"
                raise query_error(f"the outer {clause} cannot use {what}: they belong in MEASURES and DEFINE "
                                  "inside MATCH_RECOGNIZE", n.pos)
            if isinstance(n, S.ColRef) and n.var is not None and n.var != outer.alias:
                raise query_error(f"unknown qualifier '{n.var}' in {n.var}.{n.col}: outside MATCH_RECOGNIZE the "
                                  f"rows are the match's ({shown_alias}), not a pattern variable's", n.pos)
    if outer.columns is not None and len({c.lower() for c in outer.columns}) != len(outer.columns):
        raise query_error("the column alias list names a column twice", outer.pos)


class Step:
    """The outer query over the match's output columns `columns` (`positional_id`: the `id` column is row
    numbers made up by the reader, which `*` leaves out, as the table has no such column)."""

    def __init__(self, q: S.MatchRecognize, columns: Sequence[str], positional_id: bool = False):
        outer = q.outer
        assert outer is not None
        self.outer = outer
        made = {c.col for c in q.partition_by} | {m.name for m in q.measures}
        inner = [c for c in shown(columns) if not (positional_id and c == "id" and "id" not in made)]
        if outer.columns is not None:
            if len(outer.columns) != len(inner):
                raise query_error(f"the column alias list names {len(outer.columns)} columns, but the match has "
                                  f"{len(inner)} ({', '.join(inner)})", outer.pos)
            names = list(outer.columns)
        else:
            names = inner
        self.source = {n: list(columns).index(c) for n, c in zip(names, inner)}   # visible name -> input index
        self.visible = names
        self.items: list[tuple[str, Any]] = []   # (output name, visible column name or expression)
        for k, item in enumerate(outer.items):
            if item.expr is None:
                self.items += [(n, n) for n in names]
            elif isinstance(item.expr, S.ColRef):
                col = self.resolve(item.expr)
                self.items.append((item.name or col, col))
            else:
                self.bind(item.expr)
                self.items.append((item.name or f"_col{k}", item.expr))
        seen: dict[str, None] = {}
        for name, _ in self.items:
            if name.lower() in seen:
                pos = next((i.pos for i in outer.items if i.name == name), outer.pos)
                raise query_error(f"the outer SELECT outputs column '{name}' twice (name one with AS)", pos)
            seen[name.lower()] = None
        self.names = tuple(n for n, _ in self.items)
        if outer.where is not None:
            self.bind(outer.where)
        self.keys = [(self._key(k.col), k.descending) for k in outer.order_by]

    @property
    def plain(self) -> bool:
        """Whether the step only picks and renames columns (no WHERE, ORDER BY or computed value)."""
        return self.outer.where is None and not self.outer.order_by and all(isinstance(e, str) for _, e in self.items)

    def resolve(self, ref: S.ColRef) -> str:
        """The visible column a reference names (QueryError with position when there is none)."""
        folded = [c for c in self.visible if c == ref.col] or [c for c in self.visible if c.lower() == ref.col.lower()]
        if len(folded) != 1:
            shown_ = f"{ref.var}.{ref.col}" if ref.var else ref.col
            raise query_error(f"column '{shown_}' is not an output column of the match (it has: "
                              f"{', '.join(self.visible)})", ref.pos)
        return folded[0]

    def bind(self, e: Any) -> None:
        for n in e.walk():
            if isinstance(n, S.ColRef):
                self.resolve(n)

    def _key(self, e: Any) -> Any:
        """An ORDER BY key: an output column by its name (a SELECT alias), else an expression over the match."""
        if isinstance(e, S.ColRef) and e.var is None:
            names = [n for n in self.names if n.lower() == e.col.lower()]
            if len(names) == 1:
                return ("output", self.names.index(names[0]))
        self.bind(e)
        return ("expr", e)

    # ------------------------------------------------------------------ applying it
    def value(self, e: Any, row: Sequence[Any]) -> Any:
        """The exact value of an outer expression over one output row of the match."""
        if isinstance(e, S.ColRef):
            return row[self.source[self.resolve(e)]]
        if isinstance(e, S.IsNull):
            v = self.value(e.operand, row)
            return (v is not None) if e.negated else (v is None)
        return reduce(e, lambda x: self.value(x, row), "three_valued")

    def project(self, row: Sequence[Any]) -> tuple:
        return tuple(row[self.source[e]] if isinstance(e, str) else self.value(e, row) for _, e in self.items)

    def apply(self, rows: Sequence[Sequence[Any]]) -> tuple[list[int], list[tuple]]:
        """(the input rows kept, in output order; their output rows)."""
        kept = list(range(len(rows)))
        if self.outer.where is not None:
            kept = [i for i in kept if sql_truth(self.value(self.outer.where, rows[i])) is True]
        out = {i: self.project(rows[i]) for i in kept}
        for key, desc in reversed(self.keys):
            kind, what = key
            vals = {i: out[i][what] if kind == "output" else self.value(what, rows[i]) for i in kept}
            present = [i for i in kept if vals[i] is not None]
            try:
                present.sort(key=lambda i: vals[i], reverse=desc)
            except TypeError:
                raise EventError("the outer ORDER BY compares text with numbers") from None
            kept = present + [i for i in kept if vals[i] is None]   # nulls last, as Trino
        return kept, [out[i] for i in kept]

