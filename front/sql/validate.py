"""Static checks of a parsed MATCH_RECOGNIZE query (names, navigation, aggregates, modes)."""
from __future__ import annotations

import dataclasses

from cepkit.core.errors import QueryError
from cepkit.front.language import ast as A
from cepkit.front.language.ast import NOPOS
from cepkit.front.sql import ast as S
from cepkit.front.sql import outer, source
from cepkit.front.sql.patterns import nullable, variables

_NAV_NAMES = {"prev": "PREV", "next": "NEXT", "first": "FIRST", "last": "LAST"}


def _err(msg: str, pos: A.Pos) -> QueryError:
    return QueryError(msg, pos.line or None, pos.column or None)


def _check_plain_column(e, clause: str):
    for n in e.walk():
        if isinstance(n, S.Nav):
            raise _err(f"{_NAV_NAMES[n.kind]} is only allowed in DEFINE and MEASURES", n.pos)
        if isinstance(n, (S.Classifier, S.MatchNumber, S.SqlAgg)):
            raise _err(f"{clause} cannot use pattern functions or aggregates", n.pos)
    if not isinstance(e, S.ColRef) or e.var is not None:
        raise _err(f"{clause} takes plain column names", getattr(e, "pos", NOPOS))
    return e


def _check_expr(e, names: set[str], clause: str, in_nav: str | None = None, in_agg: bool = False):
    """Names, nesting of navigation and aggregates, and the one-variable rule inside them."""
    if isinstance(e, S.ColRef) and e.var is not None and e.var not in names:
        raise _err(f"undefined pattern variable '{e.var}'", e.pos)
    if isinstance(e, S.Classifier) and e.var is not None and e.var not in names:
        raise _err(f"undefined pattern variable '{e.var}'", e.pos)
    if isinstance(e, S.Nav):
        if in_agg:
            raise _err(f"{_NAV_NAMES[e.kind]} is not allowed inside an aggregate", e.pos)
        if in_nav is not None:
            if not (in_nav in ("prev", "next") and e.kind in ("first", "last")):
                raise _err(f"{_NAV_NAMES[e.kind]} cannot be nested inside {_NAV_NAMES[in_nav]} "
                           "(only FIRST/LAST inside PREV/NEXT)", e.pos)
        if e.final and clause == "DEFINE":
            raise _err("FINAL is not allowed in DEFINE", e.pos)
        _one_variable(e.arg, e.pos, _NAV_NAMES[e.kind])
        if not any(isinstance(n, (S.ColRef, S.Classifier)) for n in e.arg.walk()):
            raise _err(f"{_NAV_NAMES[e.kind]} needs a column reference or CLASSIFIER() in its argument", e.pos)
        for c in e.children():
            _check_expr(c, names, clause, e.kind, in_agg)
        return
    if isinstance(e, S.SqlAgg):
        if in_agg:
            raise _err("aggregates cannot be nested", e.pos)
        if in_nav is not None:
            raise _err(f"an aggregate is not allowed inside {_NAV_NAMES[in_nav]}", e.pos)
        if e.final and clause == "DEFINE":
            raise _err("FINAL is not allowed in DEFINE", e.pos)
        if e.var is not None and e.var not in names:
            raise _err(f"undefined pattern variable '{e.var}'", e.pos)
        if e.arg is not None:
            _one_variable(e.arg, e.pos, e.func.upper())
        for c in e.children():
            _check_expr(c, names, clause, in_nav, True)
        return
    for c in e.children():
        _check_expr(c, names, clause, in_nav, in_agg)


def _one_variable(arg, pos, what: str) -> None:
    seen = {n.var for n in arg.walk() if isinstance(n, S.ColRef)}
    seen |= {n.var for n in arg.walk() if isinstance(n, S.Classifier) and n.var is not None}
    if len(seen) > 1:
        shown = ", ".join(sorted("(universal)" if v is None else v for v in seen))
        raise _err(f"all column references in {what} must use the same pattern variable (found {shown})", pos)


def validate(q: S.MatchRecognize) -> S.MatchRecognize:
    occurrences = variables(q.pattern)
    pattern_vars = {v.name for v in occurrences}
    partition = tuple(_check_plain_column(e, "PARTITION BY") for e in q.partition_by)
    order = tuple(dataclasses.replace(k, col=_check_plain_column(k.col, "ORDER BY")) for k in q.order_by)

    subsets: dict[str, tuple[str, ...]] = {}
    for s in q.subsets:
        if s.name in pattern_vars or s.name in subsets:
            raise _err(f"SUBSET name '{s.name}' is already a pattern variable or subset", s.pos)
        for v in s.vars:
            if v not in pattern_vars:
                raise _err(f"undefined pattern variable '{v}' in SUBSET {s.name}", s.pos)
        subsets[s.name] = s.vars
    names = pattern_vars | set(subsets)

    seen_def: set[str] = set()
    for d in q.define:
        if d.var in seen_def:
            raise _err(f"pattern variable '{d.var}' is defined twice", d.pos)
        if d.var not in pattern_vars:
            what = "a SUBSET name" if d.var in subsets else "not in PATTERN"
            raise _err(f"DEFINE names '{d.var}', which is {what}", d.pos)
        seen_def.add(d.var)
        _check_expr(d.cond, names, "DEFINE")
        number = next((n for n in d.cond.walk() if isinstance(n, S.MatchNumber)), None)
        if number is not None and q.rows == "all_matches":   # ALL MATCHES numbers its matches once all are found
            raise _err("MATCH_NUMBER() in DEFINE needs ONE ROW or ALL ROWS PER MATCH", number.pos)

    seen_m: set[str] = set()
    for m in q.measures:
        if m.name.lower() in seen_m:
            raise _err(f"measure '{m.name}' is defined twice", m.pos)
        seen_m.add(m.name.lower())
        _check_expr(m.expr, names, "MEASURES")

    skip_given = q.skip.pos != NOPOS
    if q.skip.var is not None and q.skip.var not in names:
        raise _err(f"undefined pattern variable '{q.skip.var}' in AFTER MATCH SKIP", q.skip.pos)
    has_exclusion = any(isinstance(p, S.PExclude) for p in q.pattern.walk())
    if q.rows == "all" and q.empty == "unmatched" and has_exclusion:
        p = next(p for p in q.pattern.walk() if isinstance(p, S.PExclude))
        raise _err("pattern exclusion {- -} cannot be used with ALL ROWS PER MATCH WITH UNMATCHED ROWS", p.pos)
    if q.rows == "all_matches":
        if skip_given:
            raise _err("AFTER MATCH SKIP cannot be combined with ALL MATCHES (every match is reported)",
                       q.skip.pos)
        if nullable(q.pattern):
            raise _err("the pattern can match no rows, which ALL MATCHES forbids "
                       "(a match is a non-empty sequence of events)", q.pattern.pos)
        for p in q.pattern.walk():
            if isinstance(p, S.PAnchor):
                raise _err("anchors ^ and $ are not allowed with ALL MATCHES", p.pos)
            if isinstance(p, S.PExclude):
                raise _err("exclusion {- -} is not allowed with ALL MATCHES (there is no ALL ROWS output)", p.pos)
    if q.rows == "all":   # SQ-L: ALL ROWS PER MATCH outputs each ORDER BY column once per mention
        keys = [k.col for k in order]
        for n, ref in enumerate(keys):
            if any(r.col.lower() == ref.col.lower() for r in keys[:n]):
                raise _err(f"ORDER BY names column '{ref.col}' twice: ALL ROWS PER MATCH outputs it once per "
                           "mention (as Trino does), and a cepkit output holds one column of a name", ref.pos)
    if q.within is not None and not order:
        raise _err("WITHIN needs ORDER BY (its first key is the time)", q.within.pos)
    outer.check(q)
    source.check(q)
    return dataclasses.replace(q, partition_by=partition, order_by=order)
