"""The constructs a MATCH_RECOGNIZE query uses, by the names engines declare in core/registry.py.

Every name comes with the position of its first occurrence. Pattern constructs are named by what they are
(`alternation`, `PERMUTE`, ...), functions inside DEFINE by function and clause (`NEXT in DEFINE`), since
an engine that matches on a device evaluates DEFINE there but MEASURES on the host.
"""
from __future__ import annotations

from typing import Any

from cepkit.front.language import ast as A
from cepkit.front.sql import ast as S
OUTPUT = {"one": "ONE ROW PER MATCH", "all": "ALL ROWS PER MATCH", "all_matches": "ALL MATCHES"}
STRATEGY = {"contiguous": "CONTIGUOUS", "skip_till_next": "SKIP_TILL_NEXT_MATCH",
            "skip_till_any": "SKIP_TILL_ANY_MATCH"}
EMPTY = {"omit": "OMIT EMPTY MATCHES", "unmatched": "WITH UNMATCHED ROWS"}
SKIP = {"next_row": "AFTER MATCH SKIP TO NEXT ROW", "first": "AFTER MATCH SKIP TO FIRST",
        "last": "AFTER MATCH SKIP TO LAST"}

# every name `constructs` can return (the registry's declarations are subsets of this)
ALL = frozenset(
    set(OUTPUT.values()) | set(STRATEGY.values()) | set(EMPTY.values()) | set(SKIP.values())
    | {"alternation", "PERMUTE", "reluctant quantifier", "bounded quantifier", "Kleene quantifier (*, +)",
       "quantified group", "exclusion", "anchors", "empty pattern",
       "PARTITION BY", "SUBSET", "WITHIN", "SELECT columns"}
    | {f"{f} in {clause}" for f in ("PREV", "NEXT", "FIRST", "LAST", "PREV of an expression", "CLASSIFIER",
                                    "MATCH_NUMBER", "aggregates") for clause in ("DEFINE", "MEASURES")})


def constructs(q: S.MatchRecognize, **_options: Any) -> dict[str, A.Pos]:
    """Construct names, each with where it first occurs (see ALL for the names)."""
    out: dict[str, A.Pos] = {}

    def add(name: str, node=None) -> None:
        pos = getattr(node, "pos", None)
        out.setdefault(name, pos if pos is not None and pos.line else q.pos)

    add(OUTPUT[q.rows], q)
    if q.rows == "all_matches":
        add(STRATEGY[q.strategy or "contiguous"], q)
    if q.rows == "all" and q.empty in EMPTY:
        add(EMPTY[q.empty], q)
    if q.skip.mode in SKIP:
        add(SKIP[q.skip.mode], q.skip)
    _pattern(q.pattern, add)
    if q.partition_by:
        add("PARTITION BY", q.partition_by[0])
    if q.subsets:
        add("SUBSET", q.subsets[0])
    if q.within is not None:
        add("WITHIN", q.within)
    if q.select is not None:
        add("SELECT columns", q)
    for clause, exprs in (("DEFINE", [d.cond for d in q.define]), ("MEASURES", [m.expr for m in q.measures])):
        for e in exprs:
            for n in e.walk():
                if isinstance(n, S.Nav):
                    add(f"{n.kind.upper()} in {clause}", n)
                    if n.kind == "prev" and not isinstance(n.arg, S.ColRef):
                        add(f"PREV of an expression in {clause}", n)
                elif isinstance(n, S.SqlAgg):
                    add(f"aggregates in {clause}", n)
                elif isinstance(n, S.Classifier):
                    add(f"CLASSIFIER in {clause}", n)
                elif isinstance(n, S.MatchNumber):
                    add(f"MATCH_NUMBER in {clause}", n)
    return out


def _pattern(p, add) -> None:
    if isinstance(p, (S.PConcat, S.PAlt, S.PPermute)):
        if isinstance(p, S.PAlt):
            add("alternation", p)
        elif isinstance(p, S.PPermute):
            add("PERMUTE", p)
        for item in p.items:
            _pattern(item, add)
    elif isinstance(p, S.PQuant):
        if not isinstance(p.item, S.PVar):
            add("quantified group", p)
        if p.reluctant:
            add("reluctant quantifier", p)
        if (p.low, p.high) in ((0, None), (1, None)):
            add("Kleene quantifier (*, +)", p)
        else:
            add("bounded quantifier", p)
        _pattern(p.item, add)
    elif isinstance(p, S.PExclude):
        add("exclusion", p)
        _pattern(p.item, add)
    elif isinstance(p, S.PAnchor):
        add("anchors", p)
    elif isinstance(p, S.PEmpty):
        add("empty pattern", p)


def variables(p) -> tuple[str, ...]:
    """The pattern variables in order of first occurrence."""
    return tuple(dict.fromkeys(x.name for x in p.walk() if isinstance(x, S.PVar)))
