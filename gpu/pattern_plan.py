"""What the device pattern kernel needs from an ALL MATCHES query: the Glushkov automaton (read off the pattern's
program, front/sql/program.py, the same compilation the reference engines run), the strategy, the
window and the row references of each DEFINE condition; every construct the kernel cannot run is refused here.

Supported: PATTERN a concatenation of variables, each optionally with `*` or `+`; DEFINE conditions over the
current row, over the last row bound so far to a variable or SUBSET (`b.x`), and PREV(col [, k]) /
PREV(v.col [, k]); WITHIN (inclusive or EXCLUSIVE) on a numeric first ORDER BY key; PARTITION BY.
"""
from __future__ import annotations

from dataclasses import dataclass

from cepkit.core.errors import Unsupported
from cepkit.front.sql import ast as S
from cepkit.front.sql.program import Glushkov, compile_pattern, glushkov

ENGINE = "gpu"
STRATEGIES = {"contiguous": 0, "skip_till_next": 1, "skip_till_any": 2}


@dataclass(frozen=True)
class Slot:
    """A value a partial match carries: column `col` of the row `offset` rows before the last row bound to
    one of `labels` (None until such a row is bound)."""

    labels: frozenset[str]
    col: str
    offset: int


@dataclass(frozen=True)
class PatternPlan:
    query: S.MatchRecognize
    automaton: Glushkov
    strategy: int
    slots: tuple[Slot, ...]
    columns: tuple[str, ...]          # every column the DEFINE conditions read
    history: int                      # rows before the current one that PREV reaches (largest offset)


def refuse(construct: str, node) -> Unsupported:
    pos = getattr(node, "pos", None)
    return Unsupported(ENGINE, construct, (pos.line or None) if pos else None, (pos.column or None) if pos else None)


def _check_pattern(p: S.Pattern) -> None:
    if isinstance(p, S.PConcat):
        for item in p.items:
            _check_pattern(item)
        return
    if isinstance(p, S.PVar):
        return
    if isinstance(p, S.PQuant) and isinstance(p.item, S.PVar) and not p.reluctant \
            and (p.low, p.high) in ((0, None), (1, None)):
        return
    names = {S.PAlt: "alternation (|) in PATTERN", S.PPermute: "PERMUTE in PATTERN",
             S.PExclude: "exclusion {- -} in PATTERN", S.PAnchor: "anchors (^, $) in PATTERN",
             S.PEmpty: "the empty pattern () in PATTERN"}
    if isinstance(p, S.PQuant):
        what = "reluctant quantifiers in PATTERN" if p.reluctant else \
            "quantifiers other than * and + in PATTERN" if isinstance(p.item, S.PVar) else \
            "quantified groups in PATTERN"
        raise refuse(what, p)
    raise refuse(names.get(type(p), f"{type(p).__name__} in PATTERN"), p)


def _label_set(var: str, subsets: dict[str, tuple[str, ...]]) -> frozenset[str]:
    return frozenset(subsets.get(var, (var,)))


def _define_refs(cond, subsets) -> tuple[list[Slot], set[str], int]:
    """The slots, columns and largest PREV offset a DEFINE condition needs; refuses what the kernel lacks."""
    slots: list[Slot] = []
    cols: set[str] = set()
    hist = 0
    inside_nav: set[int] = set()
    for n in cond.walk():
        if isinstance(n, S.Nav):
            if n.kind != "prev":
                raise refuse(f"{n.kind.upper()}() in DEFINE", n)
            if not isinstance(n.arg, S.ColRef):
                raise refuse("PREV() of anything but a column in DEFINE", n)
            inside_nav.add(id(n.arg))
            cols.add(n.arg.col)
            hist = max(hist, n.offset)
            if n.arg.var is not None:
                slots.append(Slot(_label_set(n.arg.var, subsets), n.arg.col, n.offset))
        elif isinstance(n, S.ColRef):
            cols.add(n.col)
            if n.var is not None and id(n) not in inside_nav:
                slots.append(Slot(_label_set(n.var, subsets), n.col, 0))
        elif isinstance(n, S.SqlAgg):
            raise refuse("aggregates in DEFINE", n)
        elif isinstance(n, S.Classifier):
            raise refuse("CLASSIFIER() in DEFINE", n)
        elif isinstance(n, S.MatchNumber):
            raise refuse("MATCH_NUMBER() in DEFINE", n)
    return slots, cols, hist


def plan(q: S.MatchRecognize) -> PatternPlan:
    """The device plan of a bound query (column names resolved); Unsupported for what the kernel cannot run."""
    if q.rows != "all_matches":
        mode = "ONE ROW PER MATCH" if q.rows == "one" else "ALL ROWS PER MATCH"
        raise refuse(f"{mode} (only ALL MATCHES CONTIGUOUS | SKIP_TILL_NEXT_MATCH | SKIP_TILL_ANY_MATCH)", q)
    _check_pattern(q.pattern)
    subsets = q.subset_map
    slots: list[Slot] = []
    cols: set[str] = set()
    hist = 0
    for d in q.define:
        s, c, h = _define_refs(d.cond, subsets)
        slots += s
        cols |= c
        hist = max(hist, h)
    return PatternPlan(q, glushkov(compile_pattern(q.pattern)), STRATEGIES[q.strategy], tuple(dict.fromkeys(slots)),
                       tuple(sorted(cols)), hist)
