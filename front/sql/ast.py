"""AST nodes of MATCH_RECOGNIZE: row patterns, navigation and match functions, and the query.

Arithmetic, comparison and boolean nodes are the project's (cepkit.front.language.ast); the nodes here
are the ones SQL row pattern recognition adds. Positions are excluded from equality.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from cepkit.core.ast import NOPOS, SQL_CONVENTIONS, Conventions, Node, Pos  # noqa: F401  (re-exported)
from cepkit.core.ast import pos_field as _pos


# ----------------------------------------------------------------------------- row patterns
@dataclass(frozen=True)
class PVar(Node):
    """A pattern variable (a row labelled `name`)."""

    name: str
    pos: Pos = _pos()


@dataclass(frozen=True)
class PEmpty(Node):
    """`()`: the empty pattern, matching no rows."""

    pos: Pos = _pos()


@dataclass(frozen=True)
class PAnchor(Node):
    """`^` (start of partition) or `$` (end of partition)."""

    kind: str
    pos: Pos = _pos()


@dataclass(frozen=True)
class PConcat(Node):
    items: tuple["Pattern", ...]
    pos: Pos = _pos()


@dataclass(frozen=True)
class PAlt(Node):
    """Alternation; the left alternative is preferred."""

    items: tuple["Pattern", ...]
    pos: Pos = _pos()


@dataclass(frozen=True)
class PQuant(Node):
    """`item{low,high}` (high None = unbounded); greedy prefers more iterations, reluctant fewer."""

    item: "Pattern"
    low: int
    high: int | None
    reluctant: bool = False
    pos: Pos = _pos()


@dataclass(frozen=True)
class PPermute(Node):
    """`PERMUTE(a, b, ...)`: every order, preferred in lexicographic order of the item positions."""

    items: tuple["Pattern", ...]
    pos: Pos = _pos()


@dataclass(frozen=True)
class PExclude(Node):
    """`{- item -}`: rows matched by item belong to the match but are left out of ALL ROWS output."""

    item: "Pattern"
    pos: Pos = _pos()


Pattern = Union[PVar, PEmpty, PAnchor, PConcat, PAlt, PQuant, PPermute, PExclude]


# ----------------------------------------------------------------------------- expressions
@dataclass(frozen=True)
class ColRef(Node):
    """`var.col` or `col` (var None: the universal pattern variable, i.e. every row)."""

    var: str | None
    col: str
    pos: Pos = _pos()


@dataclass(frozen=True)
class Nav(Node):
    """PREV/NEXT (physical, offset default 1) or FIRST/LAST (logical, offset default 0) of `arg`.

    `final` is meaningful for FIRST/LAST only (RUNNING is the default)."""

    kind: str          # 'prev' | 'next' | 'first' | 'last'
    arg: object
    offset: int
    final: bool = False
    pos: Pos = _pos()


@dataclass(frozen=True)
class Classifier(Node):
    """CLASSIFIER() (the current row's variable) or CLASSIFIER(v): the variable of v's last row."""

    var: str | None = None
    pos: Pos = _pos()


@dataclass(frozen=True)
class MatchNumber(Node):
    pos: Pos = _pos()


@dataclass(frozen=True)
class SqlAgg(Node):
    """sum/avg/min/max/count over the rows of `var` (None: all rows) in the match; arg None = `*`."""

    func: str
    arg: object | None
    var: str | None
    final: bool = False
    pos: Pos = _pos()


@dataclass(frozen=True)
class IsNull(Node):
    operand: object
    negated: bool = False
    pos: Pos = _pos()


# ----------------------------------------------------------------------------- query
@dataclass(frozen=True)
class Measure(Node):
    expr: object
    name: str
    pos: Pos = _pos()


@dataclass(frozen=True)
class SortKey(Node):
    col: object                             # an expression; validation keeps plain column references only
    descending: bool = False
    pos: Pos = _pos()


@dataclass(frozen=True)
class Skip(Node):
    """AFTER MATCH SKIP: 'past_last' | 'next_row' | 'first' | 'last' (var named for the last two)."""

    mode: str = "past_last"
    var: str | None = None
    pos: Pos = _pos()


@dataclass(frozen=True)
class Within(Node):
    """The thesis' WITHIN: last ORDER BY key - first <= amount (in ticks of the key, after units);
    `exclusive` (WITHIN ... EXCLUSIVE) makes it < amount, as Flink does (A16). The parser sets the
    query's `conventions.window_bound` from it ("strict" with EXCLUSIVE, else "inclusive"); engines read
    the conventions."""

    amount: int
    unit: str | None
    exclusive: bool = False
    pos: Pos = _pos()


@dataclass(frozen=True)
class Subset(Node):
    """SUBSET name = (vars...): a union variable."""

    name: str
    vars: tuple[str, ...]
    pos: Pos = _pos()


@dataclass(frozen=True)
class Define(Node):
    """DEFINE var AS cond (a variable without DEFINE is always true)."""

    var: str
    cond: object
    pos: Pos = _pos()


# ----------------------------------------------------------------------------- around MATCH_RECOGNIZE
@dataclass(frozen=True)
class Values(Node):
    """Inline rows, `(VALUES (1, 'a'), (2, 'b')) AS t(id, name)`: exact constants, one tuple per row
    (columns `_col0`, `_col1`, ... without a column list)."""

    columns: tuple[str, ...]
    rows: tuple[tuple[object, ...], ...]
    pos: Pos = _pos()


@dataclass(frozen=True)
class SubItem(Node):
    """A column of a subquery's SELECT: the input column `col`, output as `name`."""

    col: str
    name: str
    pos: Pos = _pos()


@dataclass(frozen=True)
class Subquery(Node):
    """`(SELECT items FROM input WHERE cond)`: input a table name, VALUES or another subquery; items None
    for `*`."""

    input: "Subquery | Values | str"
    items: tuple[SubItem, ...] | None
    where: object | None
    pos: Pos = _pos()


@dataclass(frozen=True)
class SelectItem(Node):
    """An item of the outer SELECT: `expr [AS] name`, or `*` / `alias.*` (expr None)."""

    expr: object | None
    name: str | None
    pos: Pos = _pos()


@dataclass(frozen=True)
class Outer(Node):
    """The query around MATCH_RECOGNIZE: its SELECT list, WHERE and ORDER BY over the match's output rows,
    the match's alias (upper-cased, as qualifiers are) and its column alias list (`AS m (a, b)`)."""

    items: tuple[SelectItem, ...]
    where: object | None
    order_by: tuple["SortKey", ...]
    alias: str | None
    columns: tuple[str, ...] | None
    pos: Pos = _pos()


@dataclass(frozen=True)
class MatchRecognize(Node):
    table: str
    select: tuple[str, ...] | None          # None = SELECT *
    partition_by: tuple[object, ...]       # expressions; validation keeps plain column references only
    order_by: tuple[SortKey, ...]
    measures: tuple[Measure, ...]
    rows: str                               # 'one' | 'all' | 'all_matches'
    empty: str                              # 'show' | 'omit' | 'unmatched' (ALL ROWS only)
    strategy: str | None                    # all_matches: 'contiguous' | 'skip_till_next' | 'skip_till_any'
    skip: Skip
    pattern: Pattern
    within: Within | None
    subsets: tuple["Subset", ...]
    define: tuple["Define", ...]
    pos: Pos = _pos()
    conventions: Conventions = SQL_CONVENTIONS   # three-valued; WITHIN inclusive, strict with EXCLUSIVE
    # the query around the match (docs/semantics.md SQ-F): None where the outer SELECT is `*` or plain
    # columns (then `select` says them) and there is no outer WHERE / ORDER BY / column alias list
    outer: Outer | None = None
    # where the rows come from: None for the table `table` (the events), else VALUES or a subquery
    source: Subquery | Values | None = None

    def __post_init__(self) -> None:
        strict = self.within is not None and self.within.exclusive
        if self.within is not None and strict != (self.conventions.window_bound == "strict"):
            raise ValueError(f"WITHIN{' EXCLUSIVE' if strict else ''} disagrees with the query's conventions "
                             f"({self.conventions.window_bound})")

    @property
    def inner(self) -> "MatchRecognize":
        """The MATCH_RECOGNIZE itself, without the outer query and the input forms (what engines build)."""
        import dataclasses

        if self.outer is None and self.source is None:
            return self
        return dataclasses.replace(self, outer=None, source=None)

    @property
    def subset_map(self) -> dict[str, tuple[str, ...]]:
        return {s.name: s.vars for s in self.subsets}

    @property
    def define_map(self) -> dict[str, object]:
        return {d.var: d.cond for d in self.define}
