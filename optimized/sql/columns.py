"""A MATCH_RECOGNIZE table as exact columnar values for the Numba matcher: (tag, numerator, denominator)
matrices with text ranked in text order, partitions and ORDER BY done with NumPy (np.unique, np.lexsort),
and the way back from tagged values to Arrow columns of the reference's exact values."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pyarrow as pa

from cepkit.optimized.bytecode import NULL, NUM, STR
from cepkit.optimized.sql.exprgen import BOOL
from cepkit.optimized.store import encode
from cepkit.core.errors import EventError
from cepkit.core.events import exact
from cepkit.core.match_table import FRACTION
from cepkit.core.match_table import encode as encode_values


class Encoded:
    """The encoded columns of a table (`columns`: name -> raw values), text codes ranked at `rank()`."""

    def __init__(self, columns: dict[str, np.ndarray], names: list[str], texts: list[str], labels: tuple[str, ...]):
        self.raw = columns
        self.strings: dict[str, int] = {"": 0}
        self.cols: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        for name in names:
            self.cols[name] = encode_column(np.asarray(columns[name]), self.strings, name)
        for s in list(texts) + list(labels):
            self.strings.setdefault(s, len(self.strings))
        # rank the dictionary in text order: a code is then the text's position, so codes order as text
        ordered = sorted(self.strings)
        remap = np.empty(len(self.strings), np.int64)
        for k, s in enumerate(ordered):
            remap[self.strings[s]] = k
        self.texts = np.array(ordered, dtype=object)
        for name, (t, n, d) in self.cols.items():
            if (t == STR).any():
                n = np.where(t == STR, remap[np.where(t == STR, n, 0)], n)
            self.cols[name] = (t, n, d)
        self.code = {s: int(remap[c]) for s, c in self.strings.items()}

    def integral(self) -> frozenset[str]:
        """The columns whose numbers are all integers (generated code then skips their denominators)."""
        return frozenset(c for c, (_t, _n, d) in self.cols.items() if not (d != 1).any())

    def matrices(self, slots: list[str], order: np.ndarray):
        """VT, VN, VD [slot, row] in the matcher's row order."""
        k, size = len(slots), len(order)
        VT = np.empty((k, size), np.int8)
        VN = np.empty((k, size), np.int64)
        VD = np.empty((k, size), np.int64)
        for j, c in enumerate(slots):
            t, n, d = self.cols[c]
            VT[j], VN[j], VD[j] = t[order], n[order], d[order]
        return VT, VN, VD


def encode_column(values: np.ndarray, strings: dict[str, int], name: str):
    """cepkit.optimized.store.encode, with each distinct value of a column that is not integers encoded once
    (pandas' hash factorization: no Python work per row)."""
    if values.dtype.kind in "iub" or len(values) == 0:
        return encode(values, strings, name)
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    uniques = np.asarray(uniques, dtype=values.dtype if values.dtype.kind == "f" else object)
    ut, un, ud = encode(uniques, strings, name)
    null = codes < 0
    codes = np.where(null, 0, codes)
    t, n, d = ut[codes] if len(ut) else np.zeros(len(codes), np.int8), un[codes] if len(un) else \
        np.zeros(len(codes), np.int64), ud[codes] if len(ud) else np.ones(len(codes), np.int64)
    t = np.where(null, NULL, t).astype(np.int8)
    return t, np.where(null, 0, n), np.where(null, 1, d)


def group_ids(cols: list[tuple[np.ndarray, np.ndarray, np.ndarray]], size: int) -> np.ndarray:
    """A group id per row, equal exactly when every column's value is equal; ids number the groups in
    order of first appearance (as the reference's dict of partitions)."""
    ids = np.zeros(size, np.int64)
    for col in cols:
        for a in col:
            codes, uniques = pd.factorize(a.astype(np.int64))
            ids, _ = pd.factorize(ids * len(uniques) + codes)
    return ids.astype(np.int64)


def sort_key(col: tuple[np.ndarray, np.ndarray, np.ndarray], name: str) -> tuple[np.ndarray, np.ndarray]:
    """(null flag, value rank) of an ORDER BY column: numbers and text each in their order (EventError for
    a column mixing them, as the reference's sort)."""
    t, n, d = col
    null = t == NULL
    kinds = set(np.unique(t[~null]).tolist())
    if len(kinds) > 1:
        raise EventError(f"ORDER BY column '{name}' mixes text and numbers", column=name)
    if not (d[~null] != 1).any():
        return null.astype(np.int8), np.where(null, 0, n)
    values = np.array([Fraction(int(a), int(b)) for a, b in zip(n, d)], dtype=object)   # rare: fractional keys
    _, inverse = np.unique(values, return_inverse=True)
    return null.astype(np.int8), np.where(null, 0, inverse.reshape(-1))


def normalized(n: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    g = np.gcd(n, d)
    g[g == 0] = 1
    n, d = n // g, d // g
    neg = d < 0
    return np.where(neg, -n, n), np.where(neg, -d, d)


def arrow_column(t: np.ndarray, n: np.ndarray, d: np.ndarray, texts: np.ndarray) -> pa.Array:
    """An Arrow column of exact values from tagged ones, typed as cepkit.core.match_table.encode types them."""
    null = t == NULL
    present = set(np.unique(t[~null]).tolist())
    if not present:
        return pa.nulls(len(t))
    if present == {NUM}:
        n, d = normalized(n, d)
        if not (d[~null] != 1).any():
            return pa.array(n, pa.int64(), mask=null)
        return pa.StructArray.from_arrays([pa.array(n, pa.int64()), pa.array(d, pa.int64())],
                                          fields=list(FRACTION), mask=pa.array(null))
    if present == {STR}:
        return pa.array(texts[np.where(null, 0, n)], pa.string(), mask=null)
    if present == {BOOL}:
        return pa.array(n != 0, pa.bool_(), mask=null)
    return encode_values([None if tt == NULL else (texts[nn] if tt == STR else bool(nn) if tt == BOOL else
                                                   Fraction(int(nn), int(dd)))
                          for tt, nn, dd in zip(t.tolist(), n.tolist(), d.tolist())])[0]


def raw_column(values: np.ndarray, rows: np.ndarray) -> pa.Array:
    """A table column's exact values at `rows` (the reference's `batch.exact_value`), each distinct value
    made exact once."""
    values = np.asarray(values)[rows]
    if values.dtype.kind in "iub":
        return pa.array(values)
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    arr, kind = encode_values([exact(v) for v in np.asarray(uniques, dtype=object)] + [None])
    if kind not in (None, "fraction"):   # text past int64, JSON of mixed kinds: their kind needs every value
        return encode_values([exact(v) for v in values])[0]
    return arr.take(pa.array(np.where(codes < 0, len(uniques), codes)))
