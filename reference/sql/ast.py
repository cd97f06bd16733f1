"""AST nodes of MATCH_RECOGNIZE: row patterns, navigation and match functions, and the query.

Arithmetic, comparison and boolean nodes are the project's (reference.language.ast); the nodes here
are the ones SQL row pattern recognition adds. Positions are excluded from equality.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from reference.language.ast import NOPOS, Pos  # noqa: F401  (re-exported for the parser)
from reference.language.ast import pos_field as _pos


# ----------------------------------------------------------------------------- row patterns
@dataclass(frozen=True)
class PVar:
    """A pattern variable (a row labelled `name`)."""

    name: str
    pos: Pos = _pos()


@dataclass(frozen=True)
class PEmpty:
    """`()`: the empty pattern, matching no rows."""

    pos: Pos = _pos()


@dataclass(frozen=True)
class PAnchor:
    """`^` (start of partition) or `$` (end of partition)."""

    kind: str
    pos: Pos = _pos()


@dataclass(frozen=True)
class PConcat:
    items: tuple["Pattern", ...]
    pos: Pos = _pos()


@dataclass(frozen=True)
class PAlt:
    """Alternation; the left alternative is preferred."""

    items: tuple["Pattern", ...]
    pos: Pos = _pos()


@dataclass(frozen=True)
class PQuant:
    """`item{low,high}` (high None = unbounded); greedy prefers more iterations, reluctant fewer."""

    item: "Pattern"
    low: int
    high: int | None
    reluctant: bool = False
    pos: Pos = _pos()


@dataclass(frozen=True)
class PPermute:
    """`PERMUTE(a, b, ...)`: every order, preferred in lexicographic order of the item positions."""

    items: tuple["Pattern", ...]
    pos: Pos = _pos()


@dataclass(frozen=True)
class PExclude:
    """`{- item -}`: rows matched by item belong to the match but are left out of ALL ROWS output."""

    item: "Pattern"
    pos: Pos = _pos()


Pattern = Union[PVar, PEmpty, PAnchor, PConcat, PAlt, PQuant, PPermute, PExclude]


# ----------------------------------------------------------------------------- expressions
@dataclass(frozen=True)
class ColRef:
    """`var.col` or `col` (var None: the universal pattern variable, i.e. every row)."""

    var: str | None
    col: str
    pos: Pos = _pos()


@dataclass(frozen=True)
class Nav:
    """PREV/NEXT (physical, offset default 1) or FIRST/LAST (logical, offset default 0) of `arg`.

    `final` is meaningful for FIRST/LAST only (RUNNING is the default)."""

    kind: str          # 'prev' | 'next' | 'first' | 'last'
    arg: object
    offset: int
    final: bool = False
    pos: Pos = _pos()


@dataclass(frozen=True)
class Classifier:
    """CLASSIFIER() (the current row's variable) or CLASSIFIER(v): the variable of v's last row."""

    var: str | None = None
    pos: Pos = _pos()


@dataclass(frozen=True)
class MatchNumber:
    pos: Pos = _pos()


@dataclass(frozen=True)
class SqlAgg:
    """sum/avg/min/max/count over the rows of `var` (None: all rows) in the match; arg None = `*`."""

    func: str
    arg: object | None
    var: str | None
    final: bool = False
    pos: Pos = _pos()


@dataclass(frozen=True)
class IsNull:
    operand: object
    negated: bool = False
    pos: Pos = _pos()


# ----------------------------------------------------------------------------- query
@dataclass(frozen=True)
class Measure:
    expr: object
    name: str
    pos: Pos = _pos()


@dataclass(frozen=True)
class SortKey:
    col: object                             # an expression; validation keeps plain column references only
    descending: bool = False
    pos: Pos = _pos()


@dataclass(frozen=True)
class Skip:
    """AFTER MATCH SKIP: 'past_last' | 'next_row' | 'first' | 'last' (var named for the last two)."""

    mode: str = "past_last"
    var: str | None = None
    pos: Pos = _pos()


@dataclass(frozen=True)
class Within:
    """The thesis' WITHIN: last ORDER BY key - first <= amount (in ticks of the key, after units);
    `exclusive` (WITHIN ... EXCLUSIVE) makes it < amount, as Flink does (A16)."""

    amount: int
    unit: str | None
    exclusive: bool = False
    pos: Pos = _pos()


@dataclass(frozen=True)
class Subset:
    """SUBSET name = (vars...): a union variable."""

    name: str
    vars: tuple[str, ...]
    pos: Pos = _pos()


@dataclass(frozen=True)
class Define:
    """DEFINE var AS cond (a variable without DEFINE is always true)."""

    var: str
    cond: object
    pos: Pos = _pos()


@dataclass(frozen=True)
class MatchRecognize:
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

    @property
    def subset_map(self) -> dict[str, tuple[str, ...]]:
        return {s.name: s.vars for s in self.subsets}

    @property
    def define_map(self) -> dict[str, object]:
        return {d.var: d.cond for d in self.define}
