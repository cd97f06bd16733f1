"""The Numba runner of the thesis' ALL MATCHES mode (reference/sql/allmatches.py) over the Glushkov automaton
of the row pattern's program: every partition in one call.

Runs are (Glushkov position, last cell, first row, registers); a cell is one (row, label) of a run, linked
to the one before. CONTIGUOUS and SKIP_TILL_ANY_MATCH fork a run on every position that its next row may
take (SKIP_TILL_ANY also keeps the run, which skips the row); SKIP_TILL_NEXT_MATCH runs one deterministic
run per start row. A match is reported when a run reaches an accepting position; identical (rows, labels)
are kept once (a hash table), and each partition's matches are ordered by (last row, first row, rows,
labels) as the reference orders them.

It is compiled once for every query: DEFINE is read from the matrix DM[v, r] (conditions that read only
their row) or called through the function pointer `define`, the query's generated condition over the
run's registers (exprgen.py).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from cepkit.optimized.arrays import grow, grow2
from numba import types as T

from cepkit.optimized.sql.matcher import DEFINE_FN, ERR_STATE, REC_MATCH, RECORDS, ST_ERROR, ST_NLAB, ST_NREC, ST_PEAK, \
    ST_ROW, ST_VAR, inside, step_registers

STRATEGIES = {"contiguous": 0, "skip_till_any": 1, "skip_till_next": 2}
CONTIGUOUS, SKIP_TILL_ANY, SKIP_TILL_NEXT = 0, 1, 2
_HASH_MUL = np.int64(1099511628211)


@njit(cache=True)
def match_hash(RB, LB, lo, n):
    h = np.int64(1469598103934665603)
    for j in range(n):
        h = (h ^ RB[lo + j]) * _HASH_MUL
        h = (h ^ LB[lo + j]) * _HASH_MUL
    return h


@njit(cache=True)
def _before(a, b, mlo, mlen, RB, LB, RANK):
    """Whether match a sorts before match b: (last row, first row, rows, labels by name), as tuples."""
    la, lb = mlen[a], mlen[b]
    oa, ob = mlo[a], mlo[b]
    if RB[oa + la - 1] != RB[ob + lb - 1]:
        return RB[oa + la - 1] < RB[ob + lb - 1]
    if RB[oa] != RB[ob]:
        return RB[oa] < RB[ob]
    for j in range(min(la, lb)):
        if RB[oa + j] != RB[ob + j]:
            return RB[oa + j] < RB[ob + j]
    if la != lb:
        return la < lb
    for j in range(la):
        if LB[oa + j] != LB[ob + j]:
            return RANK[LB[oa + j]] < RANK[LB[ob + j]]
    return False


@njit(cache=True)
def sort_matches(idx, mlo, mlen, RB, LB, RANK):
    """idx sorted by _before (a stable merge sort)."""
    n = len(idx)
    src = idx.copy()
    dst = np.empty(n, np.int64)
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i, j, k = lo, mid, lo
            while i < mid and j < hi:
                if _before(src[j], src[i], mlo, mlen, RB, LB, RANK):
                    dst[k] = src[j]
                    j += 1
                else:
                    dst[k] = src[i]
                    i += 1
                k += 1
            while i < mid:
                dst[k] = src[i]
                i += 1
                k += 1
            while j < hi:
                dst[k] = src[j]
                j += 1
                k += 1
        src, dst = dst, src
        width *= 2
    return src


_I, _B = T.int64, T.boolean


@njit(RECORDS(DEFINE_FN, _B, _I[:], _B[:, :], T.int8[:, :], _I[:, :], _I[:, :], _I[:], _I[:], T.int8[:, :], _I[:, :],
              _I[:, :], _B[:, :], _I[:], _I[:, :], _I[:, :], _I[:], _I[:], _B[:], _I[:], _I[:], _I, _B, _I[:], _B[:],
              _I, _I, _B, _I, _I, _I[:], _I[:]), cache=True, nogil=True)
def all_matches(define, use_dm, PB, DM, VT, VN, VD, SC, LC, AT, AN, AD, NM, H0, RS, AG, GLAB, GFIRST, GLAST, FOFF,
                FTGT, strategy, has_within, WN, WNULL, wsign, wamount, wstrict, max_state, want, RANK, st):
    """Every partition's ALL MATCHES matches as records (REC_MATCH, first row, first row + length, number,
    label offset) over the row / label buffers RB / LB, partitions in order, each sorted as the reference's.
    `want` >= 0: only the first `want` records are wanted (--limit): the forking strategies stop after the row
    that brings them (a match found later ends at a later row, so sorts after them), and no later partition
    is matched."""
    W = len(H0)
    apos = np.empty(64, np.int64)
    acell = np.empty(64, np.int64)
    afirst = np.empty(64, np.int64)
    AH = np.empty((64, W), np.int64)
    npos = np.empty(64, np.int64)
    ncell = np.empty(64, np.int64)
    nfirst = np.empty(64, np.int64)
    NH = np.empty((64, W), np.int64)
    hrow = np.empty(W, np.int64)
    crow = np.empty(1024, np.int64)
    clab = np.empty(1024, np.int64)
    cpar = np.empty(1024, np.int64)
    mlo = np.empty(256, np.int64)
    mlen = np.empty(256, np.int64)
    RB = np.empty(1024, np.int64)
    LB = np.empty(1024, np.int16)
    tbl = np.full(1024, -1, np.int64)
    rkind = np.empty(0, np.int8)
    rstart = np.empty(0, np.int64)
    rend = np.empty(0, np.int64)
    rnum = np.empty(0, np.int64)
    rlo = np.empty(0, np.int64)
    nrec_all = 0
    peak = 0
    nlab = 0
    for p in range(len(PB) - 1):
        pb = PB[p]
        pe = PB[p + 1]
        nm = 0
        nact = 0
        ncells = 0
        for k in range(len(tbl)):
            tbl[k] = -1
        r = pb
        while r < pe:
            nn = 0
            # ------------------------------------------------ the runs that take row r, then the runs it starts
            for src in range(nact + len(GFIRST)):
                if src < nact:
                    if strategy == SKIP_TILL_NEXT:
                        continue
                    pos = apos[src]
                    s = afirst[src]
                    if has_within and not inside(WN, WNULL, s, r, wsign, wamount, wstrict):
                        continue
                    lo_t, hi_t = FOFF[pos], FOFF[pos + 1]
                else:
                    if strategy == SKIP_TILL_NEXT:
                        continue
                    s = r
                    lo_t, hi_t = 0, 1
                for e in range(lo_t, hi_t):
                    q = FTGT[e] if src < nact else GFIRST[src - nact]
                    lab = GLAB[q]
                    if src < nact:
                        if W > 0:
                            hrow[:] = AH[src]
                    elif W > 0:
                        hrow[:] = H0
                    st[ST_ROW] = r
                    if not (DM[lab, r] if use_dm else define(lab, r, s, pb, pe, 0, VT, VN, VD, SC, LC, AT, AN, AD, hrow)):
                        continue
                    if ncells >= len(crow):
                        crow = grow(crow, ncells + 1)
                        clab = grow(clab, ncells + 1)
                        cpar = grow(cpar, ncells + 1)
                    crow[ncells] = r
                    clab[ncells] = lab
                    cpar[ncells] = acell[src] if src < nact else -1
                    ncells += 1
                    if W > 0:
                        step_registers(hrow, lab, r, NM, RS, AG, AT, AN, AD)
                    if nn >= len(npos):
                        npos = grow(npos, nn + 1)
                        ncell = grow(ncell, nn + 1)
                        nfirst = grow(nfirst, nn + 1)
                        NH = grow2(NH, nn + 1)
                    npos[nn] = q
                    ncell[nn] = ncells - 1
                    nfirst[nn] = s
                    if W > 0:
                        NH[nn] = hrow
                    nn += 1
            # ------------------------------------------------ SKIP_TILL_NEXT_MATCH: one run per start row
            if strategy == SKIP_TILL_NEXT:
                nn = 0
                s = r
                for g in range(len(GFIRST)):
                    q = GFIRST[g]
                    lab = GLAB[q]
                    if W > 0:
                        hrow[:] = H0
                    st[ST_ROW] = r
                    if not (DM[lab, r] if use_dm else define(lab, r, s, pb, pe, 0, VT, VN, VD, SC, LC, AT, AN, AD, hrow)):
                        continue
                    if ncells + (pe - r) >= len(crow):
                        crow = grow(crow, ncells + (pe - r) + 1)
                        clab = grow(clab, ncells + (pe - r) + 1)
                        cpar = grow(cpar, ncells + (pe - r) + 1)
                    crow[ncells] = r
                    clab[ncells] = lab
                    cpar[ncells] = -1
                    ncells += 1
                    if W > 0:
                        step_registers(hrow, lab, r, NM, RS, AG, AT, AN, AD)
                    pos = q
                    cell = ncells - 1
                    i = r + 1
                    while not GLAST[pos] and i < pe:
                        if has_within and not inside(WN, WNULL, s, i, wsign, wamount, wstrict):
                            break
                        chosen = -1
                        for e in range(FOFF[pos], FOFF[pos + 1]):
                            q2 = FTGT[e]
                            lab = GLAB[q2]
                            st[ST_ROW] = i
                            if DM[lab, i] if use_dm else define(lab, i, s, pb, pe, 0, VT, VN, VD, SC, LC, AT, AN, AD,
                                                                hrow):
                                if q2 != pos:
                                    chosen = q2
                                    break
                                if chosen < 0:
                                    chosen = q2
                        if chosen >= 0:
                            lab = GLAB[chosen]
                            crow[ncells] = i
                            clab[ncells] = lab
                            cpar[ncells] = cell
                            cell = ncells
                            ncells += 1
                            if W > 0:
                                step_registers(hrow, lab, i, NM, RS, AG, AT, AN, AD)
                            pos = chosen
                        i += 1
                    if GLAST[pos]:
                        if nn >= len(npos):
                            npos = grow(npos, nn + 1)
                            ncell = grow(ncell, nn + 1)
                            nfirst = grow(nfirst, nn + 1)
                        npos[nn] = pos
                        ncell[nn] = cell
                        nfirst[nn] = s
                        nn += 1
                    break
            # ------------------------------------------------ matches: runs at an accepting position
            for k in range(nn):
                if not GLAST[npos[k]]:
                    continue
                n = 0
                c = ncell[k]
                while c >= 0:
                    n += 1
                    c = cpar[c]
                if nlab + n > len(RB):
                    RB = grow(RB, nlab + n)
                    LB = grow(LB, nlab + n)
                c = ncell[k]
                for j in range(n - 1, -1, -1):
                    RB[nlab + j] = crow[c]
                    LB[nlab + j] = clab[c]
                    c = cpar[c]
                h = match_hash(RB, LB, nlab, n)
                slot = (h & 0x7FFFFFFFFFFFFFFF) % len(tbl)
                dup = False
                while tbl[slot] >= 0:
                    o = tbl[slot]
                    if mlen[o] == n:
                        same = True
                        for j in range(n):
                            if RB[mlo[o] + j] != RB[nlab + j] or LB[mlo[o] + j] != LB[nlab + j]:
                                same = False
                                break
                        if same:
                            dup = True
                            break
                    slot = (slot + 1) % len(tbl)
                if dup:
                    continue
                if nm >= len(mlo):
                    mlo = grow(mlo, nm + 1)
                    mlen = grow(mlen, nm + 1)
                mlo[nm] = nlab
                mlen[nm] = n
                tbl[slot] = nm
                nm += 1
                nlab += n
                if 2 * nm > len(tbl):   # rehash into a table twice as large
                    tbl = np.full(2 * len(tbl), -1, np.int64)
                    for o in range(nm):
                        h = match_hash(RB, LB, mlo[o], mlen[o])
                        slot = (h & 0x7FFFFFFFFFFFFFFF) % len(tbl)
                        while tbl[slot] >= 0:
                            slot = (slot + 1) % len(tbl)
                        tbl[slot] = o
            if want >= 0 and strategy != SKIP_TILL_NEXT and nrec_all + nm >= want:
                break
            # ------------------------------------------------ the live runs after row r
            if strategy == CONTIGUOUS:
                keep = 0
            elif strategy == SKIP_TILL_ANY:
                keep = 0
                for k in range(nact):
                    if has_within and not inside(WN, WNULL, afirst[k], r, wsign, wamount, wstrict):
                        continue
                    apos[keep] = apos[k]
                    acell[keep] = acell[k]
                    afirst[keep] = afirst[k]
                    if W > 0:
                        AH[keep] = AH[k]
                    keep += 1
            else:
                keep = 0
                nn = 0
            if keep + nn > len(apos):
                apos = grow(apos, keep + nn)
                acell = grow(acell, keep + nn)
                afirst = grow(afirst, keep + nn)
                AH = grow2(AH, keep + nn)
            apos[keep:keep + nn] = npos[:nn]
            acell[keep:keep + nn] = ncell[:nn]
            afirst[keep:keep + nn] = nfirst[:nn]
            if W > 0:
                AH[keep:keep + nn] = NH[:nn]
            nact = keep + nn
            live = nact + nm
            if live > peak:
                peak = live
                if max_state >= 0 and live > max_state:
                    st[ST_ERROR] = ERR_STATE
                    st[ST_PEAK] = peak
                    counts = np.zeros(GLAB.max() + 1, np.int64)
                    for k in range(nact):
                        counts[GLAB[apos[k]]] += 1
                    st[ST_VAR] = np.argmax(counts) if nact > 0 else -1
                    return rkind, rstart, rend, rnum, rlo, LB, np.zeros(nlab, np.bool_), RB
            r += 1
        # ---------------------------------------------------- the partition's matches, ordered and numbered
        order = sort_matches(np.arange(nm), mlo, mlen, RB, LB, RANK)
        need = nrec_all + nm
        if need > len(rkind):
            rkind = grow(rkind, need)
            rstart = grow(rstart, need)
            rend = grow(rend, need)
            rnum = grow(rnum, need)
            rlo = grow(rlo, need)
        for k in range(nm):
            o = order[k]
            rkind[nrec_all] = REC_MATCH
            rstart[nrec_all] = RB[mlo[o]]
            rend[nrec_all] = RB[mlo[o]] + mlen[o]
            rnum[nrec_all] = k + 1
            rlo[nrec_all] = mlo[o]
            nrec_all += 1
        if want >= 0 and nrec_all >= want:
            break
    st[ST_NREC] = nrec_all
    st[ST_NLAB] = nlab
    st[ST_PEAK] = peak
    return rkind, rstart, rend, rnum, rlo, LB, np.zeros(nlab, np.bool_), RB
