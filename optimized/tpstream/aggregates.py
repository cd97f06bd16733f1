"""RETURN aggregates per situation, computed once when the situation ends (every match containing it
reads them): FIRST / LAST of its events (nulls included), COUNT / SUM / AVG / MIN / MAX over the non-null
values, as cepkit.front.tpstream.reads.aggregate. Numeric columns in Numba on exact int64 rationals (a sum
beyond int64 is an EventError naming the situation's first event); other columns by the reference's
aggregate, per situation."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pyarrow as pa
from numba import njit

from cepkit.optimized.tpstream.columns import SAFE
from cepkit.optimized.values import gcd
from cepkit.core.errors import EventError
from cepkit.core.match_table import FRACTION
from cepkit.front.tpstream.reads import aggregate

FUNCS = ("first", "last", "count", "sum", "avg", "min", "max")


@njit(cache=True)
def _add(an, ad, bn, bd):
    """(n, d, ok): a + b, ok False beyond int64."""
    if ad == 1 and bd == 1:
        if abs(float(an) + float(bn)) > SAFE:
            return 0, 1, False
        return an + bn, 1, True
    x, y, z = float(an) * float(bd), float(bn) * float(ad), float(ad) * float(bd)
    if abs(x) > SAFE or abs(y) > SAFE or abs(x + y) > SAFE or abs(z) > SAFE:
        return 0, 1, False
    n, d = an * bd + bn * ad, ad * bd
    g = max(gcd(n, d), 1)
    return n // g, d // g, True


@njit(cache=True)
def _less(an, ad, bn, bd):
    """(a < b, ok)."""
    if ad == 1 and bd == 1:
        return an < bn, True
    if abs(float(an) * float(bd)) > SAFE or abs(float(bn) * float(ad)) > SAFE:
        return False, False
    return an * bd < bn * ad, True


@njit(cache=True)
def numeric(func, order, n, d, null, a, b):
    """Per situation (events order[a[k]..b[k]-1]): (numerators, denominators, null, first failing situation or -1)."""
    m = a.shape[0]
    on = np.zeros(m, np.int64)
    od = np.ones(m, np.int64)
    onull = np.zeros(m, np.bool_)
    for k in range(m):
        lo, hi = a[k], b[k]
        if func == 0 or func == 1:
            x = order[lo] if func == 0 else order[hi - 1]
            on[k], od[k], onull[k] = n[x], d[x], null[x]
            continue
        cnt = 0
        sn, sd = 0, 1
        for e in range(lo, hi):
            x = order[e]
            if null[x]:
                continue
            if func == 3 or func == 4:
                sn, sd, ok = _add(sn, sd, n[x], d[x])
                if not ok:
                    return on, od, onull, k
            elif cnt == 0:
                sn, sd = n[x], d[x]
            else:
                lt, ok = _less(n[x], d[x], sn, sd)
                if not ok:
                    return on, od, onull, k
                if lt == (func == 5):
                    sn, sd = n[x], d[x]
            cnt += 1
        if func == 2:
            on[k] = cnt
        elif cnt == 0:
            onull[k] = True
        elif func == 4:
            if abs(float(sd) * float(cnt)) > SAFE:
                return on, od, onull, k
            g = max(gcd(sn, sd * cnt), 1)
            on[k], od[k] = sn // g, sd * cnt // g
        else:
            on[k], od[k] = sn, sd
    return on, od, onull, -1


class Column:
    """One RETURN item's values per situation: numeric arrays (n, d, null) or exact Python values."""

    def __init__(self, n=None, d=None, null=None, values=None):
        self.n, self.d, self.null, self.values = n, d, null, values

    def __len__(self) -> int:
        return len(self.values) if self.values is not None else len(self.n)

    def take(self, idx: np.ndarray) -> "Column":
        if self.values is not None:
            return Column(values=[self.values[i] for i in idx.tolist()])
        return Column(self.n[idx], self.d[idx], self.null[idx])

    @staticmethod
    def concat(parts: list["Column"]) -> "Column":
        if all(p.values is None for p in parts):
            return Column(*(np.concatenate([getattr(p, f) for p in parts]) for f in ("n", "d", "null")))
        return Column(values=[v for p in parts for v in p.python()])

    def python(self) -> list:
        if self.values is not None:
            return self.values
        return [None if z else (x if y == 1 else Fraction(x, y))
                for x, y, z in zip(self.n.tolist(), self.d.tolist(), self.null.tolist())]

    def arrow(self):
        """The Arrow array (or the exact values, for MatchTable.from_columns to encode)."""
        if self.values is not None:
            return self.values
        mask = self.null if self.null.any() else None
        if (self.d == 1).all():
            return pa.array(self.n, pa.int64(), mask=mask)
        return pa.StructArray.from_arrays([pa.array(self.n, pa.int64()), pa.array(self.d, pa.int64())],
                                          fields=list(FRACTION), mask=None if mask is None else pa.array(mask))


def per_situation(func: str, values, order: np.ndarray, a: np.ndarray, b: np.ndarray, rows: np.ndarray) -> Column:
    """The aggregate over each situation's events order[a[k]..b[k]-1] of the working values: a NumVec-like
    (n, d, null) triple, or an object array of exact values. `rows` are the events' source rows."""
    if isinstance(values, tuple):
        n, d, null = values
        on, od, onull, bad = numeric(FUNCS.index(func), order, n, d, null, a, b)
        if bad >= 0:
            raise EventError(f"{func.upper()} beyond 64-bit integers over a situation starting at this event; the "
                             "optimized engine works on 64-bit integers, the reference engine is exact",
                             int(rows[order[a[bad]]]))
        return Column(on, od, onull)
    lists = values.tolist()
    at = order.tolist()
    return Column(values=[aggregate(func, [lists[x] for x in at[lo:hi]]) for lo, hi in zip(a.tolist(), b.tolist())])
