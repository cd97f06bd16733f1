"""Allen's 13 interval relations over half-open intervals [ts, te), with inverses and partner ranges.

Names and meanings are Allen's (1983). The thesis (spec/004 §5.3, Table 5.1) calls Allen's
`finished_by` "finishes" (and Allen's `finishes` "finished by"); cepkit uses Allen's names, so the
thesis' `B contains;finishes;overlaps;meets C` is written `B contains;finished_by;overlaps;meets C`.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Union

Time = Union[int, Fraction]

# name -> δ(a.ts, a.te, b.ts, b.te): "a R b"
DEFINITIONS: dict[str, Callable[[Time, Time, Time, Time], bool]] = {
    "before": lambda as_, ae, bs, be: ae < bs,
    "after": lambda as_, ae, bs, be: be < as_,
    "meets": lambda as_, ae, bs, be: ae == bs,
    "met_by": lambda as_, ae, bs, be: be == as_,
    "overlaps": lambda as_, ae, bs, be: as_ < bs < ae < be,
    "overlapped_by": lambda as_, ae, bs, be: bs < as_ < be < ae,
    "starts": lambda as_, ae, bs, be: as_ == bs and ae < be,
    "started_by": lambda as_, ae, bs, be: as_ == bs and be < ae,
    "during": lambda as_, ae, bs, be: bs < as_ and ae < be,
    "contains": lambda as_, ae, bs, be: as_ < bs and be < ae,
    "finishes": lambda as_, ae, bs, be: bs < as_ and ae == be,
    "finished_by": lambda as_, ae, bs, be: as_ < bs and ae == be,
    "equals": lambda as_, ae, bs, be: as_ == bs and ae == be,
}
RELATIONS: tuple[str, ...] = tuple(DEFINITIONS)

INVERSE: dict[str, str] = {
    "before": "after", "after": "before", "meets": "met_by", "met_by": "meets",
    "overlaps": "overlapped_by", "overlapped_by": "overlaps", "starts": "started_by",
    "started_by": "starts", "during": "contains", "contains": "during", "finishes": "finished_by",
    "finished_by": "finishes", "equals": "equals",
}

# The thesis' name (Table 5.1) for each relation, where it differs from Allen's.
THESIS_NAME: dict[str, str] = {"finishes": "finished by", "finished_by": "finishes"}

# Initial selectivity estimates φ_R (thesis Table 5.3; an inverse takes its relation's value).
SELECTIVITY: dict[str, Fraction] = {
    "before": Fraction("0.445"), "during": Fraction("0.03"), "overlaps": Fraction("0.01"),
    "starts": Fraction("0.0049"), "finishes": Fraction("0.0049"), "meets": Fraction("0.0049"),
    "equals": Fraction("0.0006"),
}
for _r, _inv in list(INVERSE.items()):
    SELECTIVITY.setdefault(_r, SELECTIVITY.get(_inv, Fraction(1)))


def holds(relation: str, a: tuple[Time, Time], b: tuple[Time, Time]) -> bool:
    """δR(a, b) for intervals a = (ts, te), b = (ts, te)."""
    return DEFINITIONS[relation](a[0], a[1], b[0], b[1])


def classify(a: tuple[Time, Time], b: tuple[Time, Time]) -> str:
    """The one relation R with `a R b` (the 13 are exhaustive and disjoint when ts < te)."""
    found = [r for r in RELATIONS if holds(r, a, b)]
    if len(found) != 1:
        raise ValueError(f"intervals {a}, {b} satisfy {found} (need ts < te)")
    return found[0]


def _key(name: str) -> str:
    return name.lower().replace("_", "").replace("-", "")


_BY_KEY = {_key(r): r for r in RELATIONS}


def lookup(name: str) -> str | None:
    """The canonical relation for a spelling (`met_by`, `met-by`, `metBy`, `METBY`), or None."""
    return _BY_KEY.get(_key(name))


def closest(name: str) -> str:
    """The relation name closest to a misspelt one."""
    return _BY_KEY[difflib.get_close_matches(_key(name), list(_BY_KEY), n=1, cutoff=0.0)[0]]


# ----------------------------------------------------------------------------- partner ranges
@dataclass(frozen=True)
class Range:
    """An interval of values: lo/hi None for unbounded; *_open True excludes the bound."""

    lo: Time | None = None
    lo_open: bool = False
    hi: Time | None = None
    hi_open: bool = False


ANY = Range()


def _eq(v: Time) -> Range:
    return Range(v, False, v, False)


def _gt(v: Time) -> Range:
    return Range(v, True, None, False)


def _lt(v: Time) -> Range:
    return Range(None, False, v, True)


def _between(lo: Time, hi: Time) -> Range:
    return Range(lo, True, hi, True)


def partner_ranges(relation: str, ts: Time, te: Time) -> tuple[Range, Range]:
    """For known p = [ts, te) and `p R y`: the ranges y.ts and y.te must lie in (y.ts < y.te assumed)."""
    if relation == "before":
        return _gt(te), ANY
    if relation == "after":
        return ANY, _lt(ts)
    if relation == "meets":
        return _eq(te), ANY
    if relation == "met_by":
        return ANY, _eq(ts)
    if relation == "overlaps":
        return _between(ts, te), _gt(te)
    if relation == "overlapped_by":
        return _lt(ts), _between(ts, te)
    if relation == "starts":
        return _eq(ts), _gt(te)
    if relation == "started_by":
        return _eq(ts), _lt(te)
    if relation == "during":
        return _lt(ts), _gt(te)
    if relation == "contains":
        return _gt(ts), _lt(te)
    if relation == "finishes":
        return _lt(ts), _eq(te)
    if relation == "finished_by":
        return _gt(ts), _eq(te)
    if relation == "equals":
        return _eq(ts), _eq(te)
    raise KeyError(relation)
