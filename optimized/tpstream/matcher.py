"""Algorithms 5.2 / 5.3 (exact output) in Numba: each new situation s, in the order situations end (streams
in PATTERN order at equal ends), is joined with the situations of the other streams of its partition
that ended before it (or at the same time, earlier in PATTERN order) and start no earlier than
s.te - WITHIN, along the evaluation order of s's stream (cepkit.front.tpstream.order). Candidates of a step
come from binary searches on the buffer's start and end times under the first constraint's relations,
and are checked against every constraint of the step. Each configuration is found once, from its last
situation, and is final then (Def 5.7: reported at its largest end time)."""
from __future__ import annotations

import numpy as np
from numba import njit

from cepkit.optimized.arrays import grow, grow2

from cepkit.optimized.tpstream.allen_nb import any_holds, partner_slice, relation_mask
from cepkit.front.tpstream.order import pattern_order

SCAN = 16   # eligible buffer ranges up to this size are scanned, larger ones binary-searched


class Steps:
    """The evaluation orders of a pattern as arrays: from stream i, step k joins stream `stream[i, k]`
    under the constraints cons[begin[i, k]:end[i, k]] = (bound partner stream, relation bits)."""

    def __init__(self, k: int, constraints):
        self.stream = np.zeros((k, max(k - 1, 1)), np.int64)
        self.begin = np.zeros((k, max(k - 1, 1)), np.int64)
        self.end = np.zeros((k, max(k - 1, 1)), np.int64)
        cons: list[tuple[int, int]] = []
        for i in range(k):
            for step, (j, parts) in enumerate(pattern_order(k, constraints, i)):
                self.stream[i, step] = j
                self.begin[i, step] = len(cons)
                cons += [(p, relation_mask(rels)) for p, rels in parts]
                self.end[i, step] = len(cons)
        self.cons = np.asarray(cons, np.int64).reshape(-1, 2)


@njit(cache=True)
def _related(y, c0, c1, ws, sts, ste, cons):
    """Whether situation y satisfies the constraints cons[c0:c1] with the bound situations ws."""
    for c in range(c0, c1):
        q = ws[cons[c, 0]]
        if not any_holds(cons[c, 1], sts[q], ste[q], sts[y], ste[y]):
            return False
    return True


@njit(cache=True)
def _candidates(i, level, p, t, bound, ws, sts, ste, seg, ts_s, te_s, idx_s, parts,
                step_stream, step_begin, step_end, cons, cand, top):
    """Append the candidates of step `level` to cand from top; returns (cand, new top)."""
    j = step_stream[i, level]
    seg_lo = seg[j * parts + p]
    seg_hi = seg[j * parts + p + 1]
    if seg_lo >= seg_hi:
        return cand, top
    lo = seg_lo + np.searchsorted(ts_s[seg_lo:seg_hi], bound, "left")
    limit = t if j < i else t - 1
    hi = seg_lo + np.searchsorted(te_s[seg_lo:seg_hi], limit, "right")
    if lo >= hi:
        return cand, top
    c0, c1 = step_begin[i, level], step_end[i, level]
    cand = grow(cand, top + (hi - lo))
    if c1 > c0 and hi - lo > SCAN:   # binary searches under the first constraint's relations
        partner = ws[cons[c0, 0]]
        pts, pte = sts[partner], ste[partner]
        mask = cons[c0, 1]
        tsw, tew = ts_s[lo:hi], te_s[lo:hi]
        for r in range(13):
            if not (mask >> r) & 1:
                continue
            a, b = partner_slice(r, pts, pte, tsw, tew)
            for x in range(lo + a, lo + b):
                y = idx_s[x]
                if _related(y, c0 + 1, c1, ws, sts, ste, cons):
                    cand[top] = y
                    top += 1
    else:   # few candidates: test each against every constraint
        for x in range(lo, hi):
            y = idx_s[x]
            if _related(y, c0, c1, ws, sts, ste, cons):
                cand[top] = y
                top += 1
    return cand, top


@njit(cache=True, nogil=True)
def match(new, sstream, spid, sts, ste, seg, ts_s, te_s, idx_s, parts, window,
          step_stream, step_begin, step_end, cons, k_streams):
    """The configurations (rows of situation indices, one column per stream) completed by the situations
    `new` (indices, in processing order). The buffers are the situations sorted by (stream, partition,
    ts), as ts_s, te_s and idx_s (situation index); those of stream j and partition p are
    seg[j * parts + p] .. seg[j * parts + p + 1] - 1."""
    out = np.empty((16, k_streams), np.int64)
    m = 0
    levels = k_streams - 1
    ws = np.full(k_streams, -1, np.int64)
    cand = np.empty(64, np.int64)
    cstart = np.zeros(levels + 1, np.int64)
    cpos = np.zeros(levels + 1, np.int64)
    cend = np.zeros(levels + 1, np.int64)
    for s in new:
        i = sstream[s]
        p = spid[s]
        t = ste[s]
        bound = t - window
        if sts[s] < bound:   # longer than the window: in no configuration
            continue
        ws[:] = -1
        ws[i] = s
        level = 0
        cstart[0] = 0
        cand, top = _candidates(i, 0, p, t, bound, ws, sts, ste, seg, ts_s, te_s, idx_s, parts,
                                step_stream, step_begin, step_end, cons, cand, 0)
        cpos[0] = 0
        cend[0] = top
        while level >= 0:
            if cpos[level] < cend[level]:
                y = cand[cpos[level]]
                cpos[level] += 1
                ws[step_stream[i, level]] = y
                if level == levels - 1:
                    out = grow2(out, m + 1)
                    out[m, :] = ws
                    m += 1
                    continue
                level += 1
                cstart[level] = cend[level - 1]
                cand, top = _candidates(i, level, p, t, bound, ws, sts, ste, seg, ts_s, te_s, idx_s, parts,
                                        step_stream, step_begin, step_end, cons, cand, cstart[level])
                cpos[level] = cstart[level]
                cend[level] = top
            else:
                ws[step_stream[i, level]] = -1
                level -= 1
    return out[:m]
