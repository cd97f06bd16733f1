"""The window of the stream the kernel can still read: columnar int64 arrays by global position.

Attributes are stored exactly as (tag, numerator, denominator): integers and bools as themselves,
floats through their shortest decimal repr (core/events.py `exact`), text as dictionary codes
(equality only). Values that cannot be stored exactly in 64 bits are refused by name (`Unsupported`).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from cepkit.optimized.bytecode import ENGINE, INT64_MAX, NULL, NUM, STR, numeric_text, string_code
from cepkit.core.errors import Unsupported
from cepkit.core.events import EventBatch, exact


def _unsupported(what: str, column: str) -> Unsupported:
    return Unsupported(ENGINE, f"{what} (column '{column}')")


def wide_ids() -> Unsupported:
    """The refusal of event ids beyond 64-bit integers (match tables hold int64 ids), raised where the matched
    events' ids are converted to Arrow anyway: no pass over every id of a batch."""
    return Unsupported(ENGINE, "event ids beyond 64-bit integers")


def encode(values: np.ndarray, strings: dict[str, int], column: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(tag, numerator, denominator) arrays of one column."""
    size = len(values)
    tag = np.zeros(size, np.int8)
    den = np.ones(size, np.int64)
    kind = values.dtype.kind
    if kind in "biu" and not (kind == "u" and size and values.max() > INT64_MAX):
        return tag, values.astype(np.int64), den
    if kind == "f":
        null = np.isnan(values)
        if np.isinf(values).any():
            raise _unsupported("infinite values", column)
        whole = null | (np.floor(values) == values)
        if whole.all() and (np.abs(values[~null]) < 2.0**63).all():
            num = np.where(null, 0, values).astype(np.int64)
            tag[null] = NULL
            return tag, num, den
        values = values.astype(object)
    num = np.zeros(size, np.int64)
    for i, raw in enumerate(values):
        v = exact(raw)
        if v is None:
            tag[i] = NULL
        elif isinstance(v, str):
            if numeric_text(v) is not None:
                raise _unsupported(f"text that reads as a number ({v!r}) among other values", column)
            tag[i] = STR
            num[i] = string_code(strings, v)
        elif isinstance(v, (bool, int)):
            if abs(int(v)) > INT64_MAX:
                raise _unsupported("integers beyond 64 bits", column)
            num[i] = int(v)
        elif isinstance(v, Fraction):
            if abs(v.numerator) > INT64_MAX or v.denominator > INT64_MAX:
                raise _unsupported("numbers beyond 64-bit fractions", column)
            num[i], den[i] = v.numerator, v.denominator
        else:
            raise _unsupported(f"the value {v!r}", column)
    return tag, num, den


class Store:
    """Events from global position `base` on: type codes, timestamps, ids and encoded attributes."""

    def __init__(self, attrs: list[str], strings: dict[str, int]):
        self.attrs = attrs
        self.strings = strings
        self.type_codes: dict[str, int] = {}
        self.base = 0
        self.end = 0
        self.etype = np.zeros(0, np.int64)
        self.ts = np.zeros(0, np.int64)
        self.ids = np.zeros(0, object)
        self.vt = np.zeros((len(attrs), 0), np.int8)
        self.vn = np.zeros((len(attrs), 0), np.int64)
        self.vd = np.zeros((len(attrs), 0), np.int64)

    def type_code(self, name: str) -> int:
        return self.type_codes.setdefault(name, len(self.type_codes))

    def append(self, batch: EventBatch, keep_from: int) -> tuple[int, int, bool]:
        """`add`, then (the batch's first stream position, the end, whether its values are all integral: the
        generated formulas assume so, the tables handle fractions)."""
        start = self.end
        self.add(batch, keep_from)
        return start, self.end, not (self.vd[:, start - self.base:] != 1).any()

    @property
    def columns(self) -> tuple[np.ndarray, ...]:
        """What the kernels read: (type codes, timestamps, numerators, denominators, value tags)."""
        return self.etype, self.ts, self.vn, self.vd, self.vt

    def add(self, batch: EventBatch, keep_from: int) -> None:
        """Drop positions before keep_from, then append the batch."""
        cut = max(0, min(keep_from, self.end) - self.base)
        codes = np.array([self.type_code(t) for t in batch.type_names] or [0], np.int64)
        size = len(batch)
        ids = np.asarray(batch.ids)
        if batch.positional_ids and self.end:
            ids = ids + self.end
        vt = np.zeros((len(self.attrs), size), np.int8)
        vn = np.zeros((len(self.attrs), size), np.int64)
        vd = np.ones((len(self.attrs), size), np.int64)
        for k, attr in enumerate(self.attrs):
            if attr in batch.columns:
                values = batch.columns[attr]
            elif attr == "id":
                values = ids
            elif attr in ("ts", "time"):
                values = np.asarray(batch.ts, np.int64)
            else:
                vt[k] = NULL  # unread: check_columns already refused a column the query reads
                continue
            vt[k], vn[k], vd[k] = encode(np.asarray(values), self.strings, attr)
        self.etype = np.concatenate([self.etype[cut:], codes[np.asarray(batch.type_codes, np.int64)] if size else
                                     np.zeros(0, np.int64)])
        self.ts = np.concatenate([self.ts[cut:], np.asarray(batch.ts, np.int64)])
        kept = self.ids[cut:]
        if len(kept) and kept.dtype != ids.dtype:  # ids of mixed kinds across batches: Python objects
            kept, ids = kept.astype(object), ids.astype(object)
        self.ids = np.concatenate([kept, ids]) if len(kept) else ids.copy()
        self.vt = np.concatenate([self.vt[:, cut:], vt], axis=1)
        self.vn = np.concatenate([self.vn[:, cut:], vn], axis=1)
        self.vd = np.concatenate([self.vd[:, cut:], vd], axis=1)
        self.base += cut
        self.end += size

    def value(self, pos: int, attr: str):
        """The exact value of an attribute (as cepkit.front.evaluate sees it)."""
        k = self.attrs.index(attr)
        q = pos - self.base
        t = self.vt[k, q]
        if t == NULL:
            return None
        if t == STR:
            return self.text(int(self.vn[k, q]))
        n, d = int(self.vn[k, q]), int(self.vd[k, q])
        return n if d == 1 else Fraction(n, d)

    def text(self, code: int) -> str:
        if len(getattr(self, "_rev", ())) != len(self.strings):
            self._rev = {c: s for s, c in self.strings.items()}
        return self._rev[code]

    def ident(self, pos: int):
        v = self.ids[pos - self.base]
        return v.item() if hasattr(v, "item") else v
