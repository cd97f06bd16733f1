"""RETURN payloads of a batch of matches in one Numba pass, exactly as front/evaluate.py computes them.

Each RETURN expression is compiled to the same postfix tables as the edge formulas (optimized/bytecode.py);
per match, a run row in the NFA^b kernel's layout (optimized/nfab/layout.py: first, last and length per
component, aggregate accumulators) is rebuilt from the bound positions with `extend_run` (nfab/rows.py) and
the expression evaluated on it with `eval_clause` (nfab/formulas.py), reading the value left on its stack.
Items the tables cannot give exactly (docs/semantics.md O7) are evaluated per match by the reference
evaluator instead.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pyarrow as pa
from numba import njit

from cepkit.optimized.bytecode import NULL, STR, FormulaCompiler
from cepkit.optimized.nfab.compiler import pack
from cepkit.optimized.nfab.formulas import eval_clause
from cepkit.optimized.nfab.layout import AGGW, HDR
from cepkit.optimized.nfab.rows import extend_run
from cepkit.core.errors import Unsupported
from cepkit.front.language import ast as A
from cepkit.core.match_table import FRACTION
from cepkit.front.nfab.compile import NFAb


@njit(cache=True)
def evaluate_batch(T, items, comps, poss, offs, E, base, n, width):
    """(tags, numerators, denominators), one row per match (bindings comps/poss in offs ranges) and one
    column per item (op range in `items`)."""
    m = offs.shape[0] - 1
    k = items.shape[0]
    tags = np.empty((m, k), np.int8)
    nums = np.empty((m, k), np.int64)
    dens = np.empty((m, k), np.int64)
    R = np.zeros((1, 1, width), np.int64)
    stk = np.zeros((3, T[1, 2]), np.int64)
    oo = T[0, 0]
    for i in range(m):
        R[0, 0, :] = 0
        for x in range(offs[i], offs[i + 1]):
            begin = x == offs[i] or comps[x - 1] != comps[x]
            extend_run(R, 0, 0, 0, 0, 0, 0, 0, comps[x], poss[x], begin, n, T, E, base)
        for c in range(k):
            eval_clause(T, oo + items[c, 0], oo + items[c, 1], R, 0, 0, -1, base, E[2], E[3], E[4], n, stk)
            tags[i, c] = stk[2, 0]
            nums[i, c] = stk[0, 0]
            dens[i, c] = stk[1, 0]
    return tags, nums, dens


def _plain_constants(e: A.Expr) -> bool:
    """Constants the tables keep as the reference sees them (text and bools would become numbers)."""
    return all(not isinstance(x, A.Const) or (isinstance(x.value, (int, Fraction)) and not isinstance(x.value, bool))
               for x in e.walk())


class ReturnProgram:
    """The compiled RETURN items of a query: `payloads` gives the (name, value) tuples of many matches
    (enabled=False compiles none: every item is evaluated per match, the baseline of benchmarks.optimized_measure)."""

    def __init__(self, nfa: NFAb, attrs: list[str], strings: dict[str, int], enabled: bool = True):
        self.returns = nfa.query.returns
        self.n = nfa.n
        fc = FormulaCompiler(nfa, attrs, strings)
        self.compiled: list[int] = []   # item index -> row of `items`
        self.text_safe: list[bool] = []  # a bare attribute reference: text is mapped back, never computed on
        self.reads: list[list[int]] = []  # attribute slots each compiled item reads
        self.boolean: list[bool] = []
        ranges = []
        for i, r in enumerate(self.returns if enabled else ()):  # disabled: every item per match
            start = len(fc.t.ops)
            try:
                if not _plain_constants(r.expr) or sum(1 for _ in r.expr.walk()) > 60:
                    raise Unsupported("optimized", "this RETURN item")
                fc._emit(r.expr, None)
            except Unsupported:
                del fc.t.ops[start:]
                continue
            ranges.append((start, len(fc.t.ops)))
            self.compiled.append(i)
            self.text_safe.append(isinstance(r.expr, A.AttrRef))
            self.reads.append(sorted({attrs.index(x.attr) for x in r.expr.walk() if isinstance(x, (A.AttrRef, A.Agg))}))
            self.boolean.append(isinstance(r.expr, (A.Compare, A.And, A.Or, A.Not)))
        t = fc.arrays()
        self.T = pack(t["ops"], t["clauses"], t["formulas"], t["consts"], t["aggs"])
        self.items = np.asarray(ranges, np.int64).reshape(-1, 2)
        self.width = HDR + 3 * self.n + AGGW * len(t["aggs"]) + 1

    def _batch(self, store, comps, poss, offs) -> list:
        """Per item: (tags, numerators, denominators, boolean) from the Numba pass, or None where the item
        is evaluated per match by the reference (docs/semantics.md O7)."""
        m = len(offs) - 1
        cols: list = [None] * len(self.returns)
        if len(self.compiled) and m:
            E = (store.etype, store.ts, store.vn, store.vd, store.vt)
            try:
                tags, nums, dens = evaluate_batch(self.T, self.items, comps, poss, offs, E, store.base, self.n,
                                                  self.width)
            except OverflowError:  # beyond int64: the reference evaluator is exact
                tags = None
            if tags is not None:
                for c, i in enumerate(self.compiled):
                    if not self.text_safe[c] and any((store.vt[s] == STR).any() for s in self.reads[c]):
                        continue  # text under arithmetic, ordering or min/max: the reference's rules differ
                    cols[i] = (tags[:, c], nums[:, c], dens[:, c], self.boolean[c])
        return cols

    def payloads(self, store, comps, poss, offs, per_match) -> list[tuple]:
        """Payload of each match; per_match(i, item) evaluates one item of match i with the reference."""
        m = len(offs) - 1
        cols: list = [None if b is None else _values(*b[:3], store, b[3])
                      for b in self._batch(store, comps, poss, offs)]
        for i in range(len(self.returns)):
            if cols[i] is None:
                cols[i] = [per_match(j, i) for j in range(m)]
        names = [r.name for r in self.returns]
        return [tuple(zip(names, row)) for row in zip(*cols)]

    def columns(self, store, comps, poss, offs, per_match, perm: np.ndarray) -> dict:
        """Payload columns of the matches perm (indices into offs' matches), by item name: from the Numba
        pass, (tags, numerators, denominators, boolean) arrays (`column` makes the Arrow array), or exact
        Python values where an item is evaluated per match."""
        out = {}
        for i, b in enumerate(self._batch(store, comps, poss, offs)):
            name = self.returns[i].name
            if b is None:
                out[name] = [per_match(int(j), i) for j in perm]
            else:
                tags, nums, dens, boolean = b
                out[name] = (tags[perm], nums[perm], dens[perm], boolean)
        return out


def concat_columns(parts: list, store) -> object:
    """One item's payload column over several pieces of (tags, nums, dens, boolean) arrays or values."""
    if all(isinstance(p, tuple) for p in parts):
        return tuple(np.concatenate([p[k] for p in parts]) for k in range(3)) + (parts[0][3],)
    out: list = []
    for p in parts:
        out += _values(p[0], p[1], p[2], store, p[3]) if isinstance(p, tuple) else p
    return out


def column(part, store):
    """The Arrow array of an item's payload (values as they are where evaluated per match)."""
    return _column(*part[:3], store, part[3]) if isinstance(part, tuple) else part


def _column(tags: np.ndarray, nums: np.ndarray, dens: np.ndarray, store, boolean: bool):
    """One payload column as an Arrow array (a list of exact values where text mixes with numbers)."""
    if boolean:
        return pa.array(nums != 0, pa.bool_())
    null = tags == NULL
    if null.all():
        return pa.nulls(len(tags))
    mask = null if null.any() else None
    text = tags == STR
    if text.any():
        if not (text | null).all():
            return _values(tags, nums, dens, store, boolean)
        codes, index = np.unique(np.where(null, nums[text][0], nums), return_inverse=True)
        dictionary = pa.array([store.text(int(c)) for c in codes.tolist()], pa.string())
        return dictionary.take(pa.array(index.astype(np.int64).reshape(-1), mask=mask))
    if (dens[~null] == 1).all():
        return pa.array(nums, pa.int64(), mask=mask)
    return pa.StructArray.from_arrays([pa.array(nums, pa.int64()), pa.array(dens, pa.int64())],
                                      fields=list(FRACTION), mask=None if mask is None else pa.array(mask))


def _values(tags: np.ndarray, nums: np.ndarray, dens: np.ndarray, store, boolean: bool) -> list:
    if boolean:
        return [bool(x) for x in nums.tolist()]
    out = []
    for t, x, d in zip(tags.tolist(), nums.tolist(), dens.tolist()):
        if t == NULL:
            out.append(None)
        elif t == STR:
            out.append(store.text(x))
        else:
            out.append(x if d == 1 else Fraction(x, d))
    return out
