"""Allen's 13 relations in Numba (numbered as cepkit.front.tpstream.allen.RELATIONS): the definitions, and
for a known interval p = [ts, te) and `p R y` the inclusive integer ranges y.ts and y.te must lie in
(the partner ranges of allen.partner_ranges on integer times)."""
from __future__ import annotations

import numpy as np
from numba import njit

from cepkit.front.tpstream import allen

CODES = {r: k for k, r in enumerate(allen.RELATIONS)}
LO, HI = -(1 << 62), 1 << 62   # unbounded range ends


def relation_mask(relations) -> int:
    """The bit set of a set of relation names."""
    return sum(1 << CODES[r] for r in relations)


@njit(cache=True, inline="always")
def holds(r, as_, ae, bs, be):
    if r == 0:
        return ae < bs
    if r == 1:
        return be < as_
    if r == 2:
        return ae == bs
    if r == 3:
        return be == as_
    if r == 4:
        return as_ < bs and bs < ae and ae < be
    if r == 5:
        return bs < as_ and as_ < be and be < ae
    if r == 6:
        return as_ == bs and ae < be
    if r == 7:
        return as_ == bs and be < ae
    if r == 8:
        return bs < as_ and ae < be
    if r == 9:
        return as_ < bs and be < ae
    if r == 10:
        return bs < as_ and ae == be
    if r == 11:
        return as_ < bs and ae == be
    return as_ == bs and ae == be


@njit(cache=True)
def any_holds(mask, as_, ae, bs, be):
    for r in range(13):
        if (mask >> r) & 1 and holds(r, as_, ae, bs, be):
            return True
    return False


@njit(cache=True)
def partner_ranges(r, ts, te):
    """(ts_lo, ts_hi, te_lo, te_hi), inclusive, for y with `[ts, te) R y`."""
    if r == 0:
        return te + 1, HI, LO, HI
    if r == 1:
        return LO, HI, LO, ts - 1
    if r == 2:
        return te, te, LO, HI
    if r == 3:
        return LO, HI, ts, ts
    if r == 4:
        return ts + 1, te - 1, te + 1, HI
    if r == 5:
        return LO, ts - 1, ts + 1, te - 1
    if r == 6:
        return ts, ts, te + 1, HI
    if r == 7:
        return ts, ts, LO, te - 1
    if r == 8:
        return LO, ts - 1, te + 1, HI
    if r == 9:
        return ts + 1, HI, LO, te - 1
    if r == 10:
        return LO, ts - 1, te, te
    if r == 11:
        return ts + 1, HI, te, te
    return ts, ts, te, te


@njit(cache=True, inline="always")
def partner_slice(r, ts, te, tsw, tew):
    """[a, b): the positions of a buffer segment (start times tsw, end times tew, each sorted) whose
    situations may stand in relation r to [ts, te) (partner_ranges, found by binary search)."""
    tl, th, el, eh = partner_ranges(r, ts, te)
    a = max(np.searchsorted(tsw, tl, "left"), np.searchsorted(tew, el, "left"))
    b = min(np.searchsorted(tsw, th, "right"), np.searchsorted(tew, eh, "right"))
    return a, b
