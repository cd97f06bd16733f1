"""Algorithm 5.4 (early output) in Numba, as cepkit.reference.tpstream.early.EarlyMatcher: one scan over the working
events in partition order keeps each stream's open run; at each new event time t the situations that
change (ends under matchOnEnd, starts or delayed starts under matchOnStart, cepkit.front.tpstream.detection)
are joined along their stream's evaluation order with the finished situations (te <= t) and the open runs
that are visible at t, every constraint certain at t for all completions of unknown end times
(pairwise, as cepkit.reference.tpstream.certainty.certain), every member starting at or after t - WITHIN. A
configuration is reported at t unless it was already visible and certain at the partition's previous event
time, and from the first changed situation it holds only."""
from __future__ import annotations

import numpy as np
from numba import njit

from cepkit.optimized.tpstream.allen_nb import any_holds, partner_slice
from cepkit.optimized.arrays import grow, grow2
from cepkit.optimized.tpstream.matcher import SCAN

UNKNOWN = 1 << 62   # the end time of a run still open


@njit(cache=True)
def certain(mask, as_, ae, bs, be, t):
    """`a R b` for some R of mask in every completion of the end times not known at t (> t)."""
    ak, bk = ae <= t, be <= t
    if not ak and not bk:
        return (any_holds(mask, as_, t + 1, bs, t + 1) and any_holds(mask, as_, t + 1, bs, t + 2)
                and any_holds(mask, as_, t + 2, bs, t + 1))
    return any_holds(mask, as_, ae if ak else t + 1, bs, be if bk else t + 1)


@njit(cache=True)
def _visible(s, e, t, dmin, bounded):
    """Whether a member starting at s and ending at e (UNKNOWN while open) is visible at t; members that
    ended are situations, so their duration is within bounds."""
    if s > t:
        return False
    if e <= t:
        return True
    return not bounded and t - s >= dmin


@njit(cache=True)
def _candidates(i, level, p, t, bound, wts, wte, earlier_s, earlier_ts, n_earlier, ongoing, ong_ts,
                seg, ts_s, te_s, idx_s, sts, ste, parts, step_stream, step_begin, step_end, cons, cand, top):
    """Append the candidates of step `level` (situation indices; -1 - j for stream j's open run) from top."""
    j = step_stream[i, level]
    c0, c1 = step_begin[i, level], step_end[i, level]
    seg_lo, seg_hi = seg[j * parts + p], seg[j * parts + p + 1]
    lo = seg_lo + np.searchsorted(ts_s[seg_lo:seg_hi], bound, "left")
    hi = seg_lo + np.searchsorted(te_s[seg_lo:seg_hi], t, "right")
    cand = grow(cand, top + max(hi - lo, 0) + 1)
    if lo < hi:
        if c1 > c0 and hi - lo > SCAN:   # binary searches under the first constraint's relations
            q = cons[c0, 0]
            pts, pte = wts[q], wte[q] if wte[q] <= t else t + 1   # one unknown end: t + 1 stands for it
            mask = cons[c0, 1]
            tsw, tew = ts_s[lo:hi], te_s[lo:hi]
            first = c0 + 1
            for r in range(13):
                if not (mask >> r) & 1:
                    continue
                a, b = partner_slice(r, pts, pte, tsw, tew)
                for x in range(lo + a, lo + b):
                    cand[top] = idx_s[x]
                    top += _keep(idx_s[x], sts[idx_s[x]], ste[idx_s[x]], j, first, c1, t, wts, wte, cons,
                                 earlier_s, earlier_ts, n_earlier)
        else:
            for x in range(lo, hi):
                cand[top] = idx_s[x]
                top += _keep(idx_s[x], sts[idx_s[x]], ste[idx_s[x]], j, c0, c1, t, wts, wte, cons,
                             earlier_s, earlier_ts, n_earlier)
    if ongoing[j]:
        cand[top] = -1 - j
        top += _keep(-1 - j, ong_ts[j], UNKNOWN, j, c0, c1, t, wts, wte, cons, earlier_s, earlier_ts, n_earlier)
    return cand, top


@njit(cache=True)
def _keep(y, yts, yte, j, c0, c1, t, wts, wte, cons, earlier_s, earlier_ts, n_earlier):
    """1 if candidate y of stream j is certain with the bound members and no earlier changed situation."""
    for k in range(n_earlier):
        if earlier_s[k] == j and earlier_ts[k] == yts:
            return 0
    for c in range(c0, c1):
        q = cons[c, 0]
        if not certain(cons[c, 1], wts[q], wte[q], yts, yte, t):
            return 0
    return 1


@njit(cache=True, nogil=True)
def early_match(order, pid, ts, old, masks, dmin, bounded, on_start, on_end, prev_ts,
                found_b, found_stream, first, sts, ste, seg, ts_s, te_s, idx_s, parts, window,
                step_stream, step_begin, step_end, cons, pattern):
    """The configurations that become certain at the new events' times. `found_b` / `found_stream`: the
    situations that new events end (sits index first + k), in order of their ending position in `order`;
    `prev_ts[p]`: partition p's last event time before this feed (int64 min: none); `pattern`: rows
    (i, relation bits, j). Returns (rows of member codes: situation index, or -1 - r for open-run record r;
    detection times; partitions; open-run records (first position, end position, stream, ts))."""
    k_streams = masks.shape[1]
    none = np.iinfo(np.int64).min
    out = np.empty((16, k_streams), np.int64)
    det = np.empty(16, np.int64)
    opid = np.empty(16, np.int64)
    rec = np.empty((16, 4), np.int64)
    m = 0
    nrec = 0
    start = np.full(k_streams, -1, np.int64)
    ongoing = np.zeros(k_streams, np.bool_)
    ong_ts = np.zeros(k_streams, np.int64)
    ong_rec = np.full(k_streams, -1, np.int64)
    ch_code = np.empty(2 * k_streams, np.int64)
    ch_stream = np.empty(2 * k_streams, np.int64)
    ch_ts = np.empty(2 * k_streams, np.int64)
    ws = np.full(k_streams, -1, np.int64)
    wts = np.zeros(k_streams, np.int64)
    wte = np.zeros(k_streams, np.int64)
    cand = np.empty(64, np.int64)
    levels = k_streams - 1
    cpos = np.zeros(levels + 1, np.int64)
    cend = np.zeros(levels + 1, np.int64)
    fp = 0
    n = order.shape[0]
    k = 0
    while k < n:
        end = k
        p = pid[order[k]]
        while end < n and pid[order[end]] == p:
            end += 1
        start[:] = -1
        prev = prev_ts[p]
        for e in range(k, end):
            x = order[e]
            for i in range(k_streams):
                held = masks[x, i] != 0
                if held and start[i] < 0:
                    start[i] = e
                elif not held:
                    start[i] = -1
            t = ts[x]
            if old[x]:
                prev = t
                continue
            bound = t - window
            nch = 0
            while fp < found_b.shape[0] and found_b[fp] == e:
                s = first + fp
                if sts[s] >= bound and on_end[found_stream[fp]]:
                    ch_code[nch], ch_stream[nch], ch_ts[nch] = s, found_stream[fp], sts[s]
                    nch += 1
                fp += 1
            for i in range(k_streams):
                ongoing[i] = False
                ong_rec[i] = -1
                if start[i] < 0:
                    continue
                s0 = ts[order[start[i]]]
                if s0 < bound or not _visible(s0, UNKNOWN, t, dmin[i], bounded[i]):
                    continue
                ongoing[i] = True
                ong_ts[i] = s0
                if on_start[i] and not (prev != none and _visible(s0, UNKNOWN, prev, dmin[i], bounded[i])):
                    ch_code[nch], ch_stream[nch], ch_ts[nch] = -1 - i, i, s0
                    nch += 1
            for rank in range(nch):
                i = ch_stream[rank]
                ws[:] = -1
                ws[i] = ch_code[rank]
                wts[i] = ch_ts[rank]
                wte[i] = ste[ch_code[rank]] if ch_code[rank] >= 0 else UNKNOWN
                if levels == 0:   # one configuration: the situation alone
                    cpos[0], cend[0] = 0, 1
                else:
                    cand, top = _candidates(i, 0, p, t, bound, wts, wte, ch_stream, ch_ts, rank, ongoing, ong_ts,
                                            seg, ts_s, te_s, idx_s, sts, ste, parts, step_stream, step_begin,
                                            step_end, cons, cand, 0)
                    cpos[0], cend[0] = 0, top
                level = 0
                while level >= 0:
                    if cpos[level] >= cend[level]:
                        if levels > 0:
                            ws[step_stream[i, level]] = -1
                        level -= 1
                        continue
                    y = cand[cpos[level]]
                    cpos[level] += 1
                    if levels > 0:
                        j = step_stream[i, level]
                        ws[j] = y
                        wts[j] = sts[y] if y >= 0 else ong_ts[j]
                        wte[j] = ste[y] if y >= 0 else UNKNOWN
                        if level < levels - 1:
                            level += 1
                            cand, top = _candidates(i, level, p, t, bound, wts, wte, ch_stream, ch_ts, rank,
                                                    ongoing, ong_ts, seg, ts_s, te_s, idx_s, sts, ste, parts,
                                                    step_stream, step_begin, step_end, cons, cand, cend[level - 1])
                            cpos[level], cend[level] = cend[level - 1], top
                            continue
                    if _was_certain(prev, none, wts, wte, dmin, bounded, pattern):
                        continue
                    out = grow2(out, m + 1)
                    det = grow(det, m + 1)
                    opid = grow(opid, m + 1)
                    for j in range(k_streams):
                        c = ws[j]
                        if c < 0:   # stream j's open run, recorded once per event time
                            if ong_rec[j] < 0:
                                rec = grow2(rec, nrec + 1)
                                rec[nrec, 0], rec[nrec, 1], rec[nrec, 2], rec[nrec, 3] = start[j], e + 1, j, ong_ts[j]
                                ong_rec[j] = nrec
                                nrec += 1
                            c = -1 - ong_rec[j]
                        out[m, j] = c
                    det[m] = t
                    opid[m] = p
                    m += 1
            prev = t
        k = end
    return out[:m], det[:m], opid[:m], rec[:nrec]


@njit(cache=True)
def _was_certain(prev, none, wts, wte, dmin, bounded, pattern):
    """Whether the configuration was already visible and certain at the previous event time."""
    if prev == none:
        return False
    for j in range(wts.shape[0]):
        if not _visible(wts[j], wte[j], prev, dmin[j], bounded[j]):
            return False
    for c in range(pattern.shape[0]):
        a, b = pattern[c, 0], pattern[c, 2]
        if not certain(pattern[c, 1], wts[a], wte[a], wts[b], wte[b], prev):
            return False
    return True
