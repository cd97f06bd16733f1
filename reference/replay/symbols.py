"""A row pattern as the thesis' symbol sequence (§3.4.4): basic symbols (one event each) and Kleene
symbols (`true*`), with the single-attribute range each basic symbol's DEFINE implies.

Rewrite rules (Table 3.2), applied top-down: a variable is a BS; P{n,m} becomes n copies of P then
true* (when m != n); P?, P* become true*; an alternation of single variables becomes one BS without
a range (`true`), any other alternation or PERMUTE becomes true*; adjacent true* merge. Under the
skip-till strategies a true* sits between every two symbols (§3.4.4), so every BS is its own block.
Ranges come from the top-level AND conjuncts `col op constant` on the symbol's own row, and from
`col = X.col2` where X's own DEFINE bounds col2 by a range (every row mapped to X satisfies it, and a
null X.col2 fails the comparison): the thesis' propagation of `B.BEAT = A.BEAT` to `B.BEAT = 2232`
(§2.8). Every other conjunct is replaced by true, so a range admits a superset of the symbol's events.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cepkit.front.language import ast as A
from cepkit.front.sql import ast as S


@dataclass(frozen=True)
class Range:
    attr: str
    lo: Any = None
    lo_incl: bool = True
    hi: Any = None
    hi_incl: bool = True

    def text(self) -> str:
        parts = []
        if self.lo is not None and self.lo == self.hi and self.lo_incl and self.hi_incl:
            return f"{self.attr} = {self.lo!r}"
        if self.lo is not None:
            parts.append(f"{self.attr} {'>=' if self.lo_incl else '>'} {self.lo!r}")
        if self.hi is not None:
            parts.append(f"{self.attr} {'<=' if self.hi_incl else '<'} {self.hi!r}")
        return " AND ".join(parts) or f"{self.attr} IS NOT NULL"


@dataclass(frozen=True)
class Symbol:
    kind: str                          # 'BS' | 'KS'
    var: str | None = None             # the pattern variable of a BS (None: `true`)
    ranges: tuple[Range, ...] = ()     # candidate single-attribute ranges of a BS


def symbols(q: S.MatchRecognize) -> list[Symbol]:
    seq = _rewrite(q.pattern, q.define_map)
    if q.strategy in ("skip_till_next", "skip_till_any"):
        spaced: list[Symbol] = []
        for s in seq:
            if spaced:
                spaced.append(Symbol("KS"))
            spaced.append(s)
        seq = spaced
    out: list[Symbol] = []
    for s in seq:
        if s.kind == "KS" and out and out[-1].kind == "KS":
            continue
        out.append(s)
    return out


def _rewrite(p: S.Pattern, define: dict) -> list[Symbol]:
    if isinstance(p, S.PVar):
        return [Symbol("BS", p.name, ranges_of(p.name, define.get(p.name), define))]
    if isinstance(p, S.PConcat):
        return [s for item in p.items for s in _rewrite(item, define)]
    if isinstance(p, S.PQuant):
        body = _rewrite(p.item, define)
        return body * p.low + ([Symbol("KS")] if p.high != p.low else [])
    if isinstance(p, S.PAlt):
        if all(isinstance(i, S.PVar) for i in p.items):
            return [Symbol("BS")]
        return [Symbol("KS")]
    if isinstance(p, S.PPermute):
        return [Symbol("KS")]
    if isinstance(p, (S.PEmpty, S.PAnchor)):
        return []
    if isinstance(p, S.PExclude):
        return _rewrite(p.item, define)
    raise TypeError(p)


_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "="}


def _conjuncts(cond) -> list:
    if isinstance(cond, A.And):
        return [x for item in cond.items for x in _conjuncts(item)]
    return [cond]


def ranges_of(var: str, cond, define: dict | None = None) -> tuple[Range, ...]:
    """One range per attribute that the top-level conjuncts of `cond` bound on the row of `var`
    (with `define`, also through equalities with another variable's bounded column)."""
    if cond is None:
        return ()
    found: dict[str, Range] = {}
    for c in _conjuncts(cond):
        atom = _atom(var, c)
        if atom is None and define is not None:
            atom = _propagated(var, c, define)
        if atom is not None:
            found[atom.attr] = _meet(found.get(atom.attr), atom)
    return tuple(found[k] for k in sorted(found))


def _propagated(var: str, c, define: dict) -> Range | None:
    """`col = X.col2` with X's own DEFINE bounding col2: the same range on col."""
    if not isinstance(c, A.Compare) or c.op != "=":
        return None
    for mine, other in ((c.left, c.right), (c.right, c.left)):
        col = _own_column(var, mine)
        if col is None or not isinstance(other, S.ColRef) or other.var in (None, var) \
                or other.var not in define:
            continue
        for r in ranges_of(other.var, define[other.var]):
            if r.attr == other.col:
                return Range(col, r.lo, r.lo_incl, r.hi, r.hi_incl)
    return None


def _own_column(var: str, e) -> str | None:
    if isinstance(e, S.ColRef) and (e.var is None or e.var == var):
        return e.col
    return None


def _atom(var: str, c) -> Range | None:
    if not isinstance(c, A.Compare) or c.op not in _FLIP:
        return None
    col, const, op = _own_column(var, c.left), c.right, c.op
    if col is None:
        col, const, op = _own_column(var, c.right), c.left, _FLIP[c.op]
    if col is None or not isinstance(const, A.Const) or const.value is None or isinstance(const.value, bool):
        return None
    v = const.value
    if op == "=":
        return Range(col, v, True, v, True)
    if op in ("<", "<="):
        return Range(col, None, True, v, op == "<=")
    return Range(col, v, op == ">=", None, True)


def _meet(a: Range | None, b: Range) -> Range:
    if a is None:
        return b
    try:
        lo, lo_incl = a.lo, a.lo_incl
        if b.lo is not None and (lo is None or b.lo > lo or (b.lo == lo and not b.lo_incl)):
            lo, lo_incl = b.lo, b.lo_incl
        hi, hi_incl = a.hi, a.hi_incl
        if b.hi is not None and (hi is None or b.hi < hi or (b.hi == hi and not b.hi_incl)):
            hi, hi_incl = b.hi, b.hi_incl
    except TypeError:  # text against numbers: no event satisfies both, keep one (a superset)
        return a
    return Range(a.attr, lo, lo_incl, hi, hi_incl)
