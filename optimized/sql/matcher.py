"""The Numba matcher of SQL mode: the row pattern program (reference/sql/program.py) run by the lockstep
thread VM of reference/sql/vm.py over every partition in one call, then AFTER MATCH SKIP, as
reference/sql/run.py `_sql_partition` does.

`run_partitions` is compiled once for every query: it reads the DEFINE conditions from a matrix DM[v, r],
computed before by `define_all`. The text between LOOP-START and LOOP-END (`define_all`, `eval_measures`)
is compiled inside each query's generated module (optimized/sql/engine.py), next to the generated
`define` and `measure`, so the expressions are inlined and a new query compiles only what is its own.

Threads carry no history (DEFINE reads the current row and its neighbours: exprgen.py),
so a thread's future depends only on its instruction and the loop marks: at each row a thread is dropped
when a more preferred one has been at the same (instruction, marks), as the reference VM's deduplication
does. A run from one start row costs at most rows x program size.

Output records (one per SQL output event), in the reference's order:
  REC_MATCH (rows start .. end - 1, labels at LB[lo:lo + end - start], excluded flags at EX[...]),
  REC_EMPTY (an empty match at start), REC_UNMATCHED (ALL ROWS ... WITH UNMATCHED ROWS: row start).
"""
from __future__ import annotations

import numpy as np
from numba import njit

# instruction kinds: reference/sql/program.py
MATCH, SPLIT, JUMP, ITERATION, EXIT_IF_EMPTY, AT_START, AT_END, DONE = range(8)
REC_MATCH, REC_EMPTY, REC_UNMATCHED = 0, 1, 2
ROWS_ONE, ROWS_ALL = 0, 1
EMPTY_SHOW, EMPTY_OMIT, EMPTY_UNMATCHED = 0, 1, 2
SKIP_PAST_LAST, SKIP_NEXT_ROW, SKIP_FIRST, SKIP_LAST = 0, 1, 2, 3
# st (the kernel's status) slots
ST_ROW, ST_ERROR, ST_ERRSTART, ST_NREC, ST_NLAB, ST_STEPS = range(6)
ERR_SKIP_NO_ROW, ERR_SKIP_LOOP = 1, 2
MAX_LOOPS = 16   # loop marks are a bit set of this many loops (nullable loop bodies), see engine.py


@njit(cache=True)
def grow(a, need):
    """`a` (1-D) with room for `need` items."""
    if need <= len(a):
        return a
    b = np.empty(max(need, 2 * len(a)), a.dtype)
    b[:len(a)] = a
    return b


@njit(cache=True)
def run_partitions(PB, DM, KIND, LAB, EXC, TA, TB, LOOP, nloops,
                   rows_mode, empty_mode, skip_mode, SKIPSET, has_within, WN, WNULL, wsign, wamount, wstrict, st):
    """Every partition [PB[p], PB[p + 1]) matched in SQL mode: records (kind, start, end, number, label
    offset) and the label / excluded buffers; st[ST_ERROR] set on an AFTER MATCH SKIP error."""
    npc = len(KIND)
    nkeys = npc << nloops
    seen = np.full(nkeys, -1, np.int64)
    cpc = np.empty(nkeys, np.int64)
    ccell = np.empty(nkeys, np.int64)
    npc_ = np.empty(nkeys, np.int64)
    ncell = np.empty(nkeys, np.int64)
    spc = np.empty(2 * nkeys + 2, np.int64)
    smk = np.empty(2 * nkeys + 2, np.int64)
    alab = np.empty(1024, np.int64)
    aexc = np.empty(1024, np.bool_)
    apar = np.empty(1024, np.int64)
    rkind = np.empty(1024, np.int8)
    rstart = np.empty(1024, np.int64)
    rend = np.empty(1024, np.int64)
    rnum = np.empty(1024, np.int64)
    rlo = np.empty(1024, np.int64)
    LB = np.empty(1024, np.int16)
    EX = np.empty(1024, np.bool_)
    nrec = 0
    nlab = 0
    stamp = 0
    steps = 0
    covered = np.zeros(DM.shape[1] if empty_mode == EMPTY_UNMATCHED else 0, np.bool_)
    for p in range(len(PB) - 1):
        pb = PB[p]
        pe = PB[p + 1]
        pos = pb
        number = 1
        while pos < pe:
            # ---------------------------------------------------------------- one run from `pos`
            s = pos
            na = 0
            best_end = -1
            best_cell = -1
            stamp += 1
            nc = 0
            # add(0, no cell) at row s: the non-consuming instructions, preferred branch first
            sp = 0
            spc[0] = 0
            smk[0] = 0
            sp = 1
            while sp > 0:
                sp -= 1
                pc = spc[sp]
                mk = smk[sp]
                key = (pc << nloops) | mk
                if seen[key] == stamp:
                    continue
                seen[key] = stamp
                steps += 1
                kind = KIND[pc]
                if kind == MATCH or kind == DONE:
                    cpc[nc] = pc
                    ccell[nc] = -1
                    nc += 1
                elif kind == SPLIT:
                    spc[sp] = TB[pc]
                    smk[sp] = mk
                    spc[sp + 1] = TA[pc]
                    smk[sp + 1] = mk
                    sp += 2
                elif kind == JUMP:
                    spc[sp] = TA[pc]
                    smk[sp] = mk
                    sp += 1
                elif kind == ITERATION:
                    spc[sp] = pc + 1
                    smk[sp] = mk | (1 << LOOP[pc])
                    sp += 1
                elif kind == EXIT_IF_EMPTY:
                    if mk & (1 << LOOP[pc]):
                        spc[sp] = TA[pc]
                        smk[sp] = mk & ~(1 << LOOP[pc])
                    else:
                        spc[sp] = pc + 1
                        smk[sp] = mk
                    sp += 1
                elif kind == AT_START:
                    if s == pb:
                        spc[sp] = pc + 1
                        smk[sp] = mk
                        sp += 1
                elif kind == AT_END:
                    if s == pe:
                        spc[sp] = pc + 1
                        smk[sp] = mk
                        sp += 1
            i = s
            while nc > 0:
                stamp += 1
                nn = 0
                for t in range(nc):
                    pc = cpc[t]
                    if KIND[pc] == DONE:
                        best_end = i
                        best_cell = ccell[t]
                        break
                    steps += 1
                    if i >= pe:
                        continue
                    if has_within:
                        if WNULL[s] or WNULL[i]:
                            continue
                        span = wsign * (WN[i] - WN[s])
                        if (wstrict and span >= wamount) or ((not wstrict) and span > wamount):
                            continue
                    lab = LAB[pc]
                    if not DM[lab, i]:
                        continue
                    if na >= len(alab):
                        alab = grow(alab, na + 1)
                        aexc = grow(aexc, na + 1)
                        apar = grow(apar, na + 1)
                    alab[na] = lab
                    aexc[na] = EXC[pc]
                    apar[na] = ccell[t]
                    cell = na
                    na += 1
                    # add(pc + 1, cell) at row i + 1
                    spc[0] = pc + 1
                    smk[0] = 0
                    sp = 1
                    while sp > 0:
                        sp -= 1
                        q = spc[sp]
                        mk = smk[sp]
                        key = (q << nloops) | mk
                        if seen[key] == stamp:
                            continue
                        seen[key] = stamp
                        steps += 1
                        kind = KIND[q]
                        if kind == MATCH or kind == DONE:
                            npc_[nn] = q
                            ncell[nn] = cell
                            nn += 1
                        elif kind == SPLIT:
                            spc[sp] = TB[q]
                            smk[sp] = mk
                            spc[sp + 1] = TA[q]
                            smk[sp + 1] = mk
                            sp += 2
                        elif kind == JUMP:
                            spc[sp] = TA[q]
                            smk[sp] = mk
                            sp += 1
                        elif kind == ITERATION:
                            spc[sp] = q + 1
                            smk[sp] = mk | (1 << LOOP[q])
                            sp += 1
                        elif kind == EXIT_IF_EMPTY:
                            if mk & (1 << LOOP[q]):
                                spc[sp] = TA[q]
                                smk[sp] = mk & ~(1 << LOOP[q])
                            else:
                                spc[sp] = q + 1
                                smk[sp] = mk
                            sp += 1
                        elif kind == AT_START:
                            if i + 1 == pb:
                                spc[sp] = q + 1
                                smk[sp] = mk
                                sp += 1
                        elif kind == AT_END:
                            if i + 1 == pe:
                                spc[sp] = q + 1
                                smk[sp] = mk
                                sp += 1
                for t in range(nn):
                    cpc[t] = npc_[t]
                    ccell[t] = ncell[t]
                nc = nn
                i += 1
            # ---------------------------------------------------------------- SQL mode around the run
            if nrec >= len(rkind):
                rkind = grow(rkind, nrec + 1)
                rstart = grow(rstart, nrec + 1)
                rend = grow(rend, nrec + 1)
                rnum = grow(rnum, nrec + 1)
                rlo = grow(rlo, nrec + 1)
            if best_end < 0:
                if rows_mode == ROWS_ALL and empty_mode == EMPTY_UNMATCHED and not covered[pos]:
                    rkind[nrec] = REC_UNMATCHED
                    rstart[nrec] = pos
                    rend[nrec] = pos + 1
                    rnum[nrec] = 0
                    rlo[nrec] = nlab
                    nrec += 1
                pos += 1
                continue
            if best_end == s:
                if rows_mode == ROWS_ONE or empty_mode != EMPTY_OMIT:
                    rkind[nrec] = REC_EMPTY
                    rstart[nrec] = s
                    rend[nrec] = s
                    rnum[nrec] = number
                    rlo[nrec] = nlab
                    nrec += 1
                number += 1
                pos += 1
                continue
            length = best_end - s
            if nlab + length > len(LB):
                LB = grow(LB, nlab + length)
                EX = grow(EX, nlab + length)
            c = best_cell
            for j in range(length - 1, -1, -1):
                LB[nlab + j] = alab[c]
                EX[nlab + j] = aexc[c]
                c = apar[c]
            rkind[nrec] = REC_MATCH
            rstart[nrec] = s
            rend[nrec] = best_end
            rnum[nrec] = number
            rlo[nrec] = nlab
            nrec += 1
            if empty_mode == EMPTY_UNMATCHED:
                for r in range(s, best_end):
                    covered[r] = True
            number += 1
            if skip_mode == SKIP_PAST_LAST:
                pos = best_end
            elif skip_mode == SKIP_NEXT_ROW:
                pos = s + 1
            else:
                target = -1
                for j in range(length):
                    if SKIPSET[LB[nlab + j]]:
                        if target < 0 or skip_mode == SKIP_LAST:
                            target = s + j
                        if skip_mode == SKIP_FIRST:
                            break
                if target < 0 or target == s:
                    st[ST_ERROR] = ERR_SKIP_NO_ROW if target < 0 else ERR_SKIP_LOOP
                    st[ST_ERRSTART] = nrec - 1
                    st[ST_NREC] = nrec
                    st[ST_NLAB] = nlab + length
                    return rkind, rstart, rend, rnum, rlo, LB, EX
                pos = target
            nlab += length
    st[ST_NREC] = nrec
    st[ST_NLAB] = nlab
    st[ST_STEPS] = steps
    return rkind, rstart, rend, rnum, rlo, LB, EX


@njit(cache=True)
def output_rows(rkind, rstart, rend, rlo, nrec, EX, rows_mode):
    """Per output row: its record, its row (the base row of ALL ROWS, the match start of ONE ROW) and its
    match index (-1: none)."""
    n = 0
    for k in range(nrec):
        if rows_mode == ROWS_ALL and rkind[k] == REC_MATCH:
            for j in range(rend[k] - rstart[k]):
                if not EX[rlo[k] + j]:
                    n += 1
        else:
            n += 1
    orec = np.empty(n, np.int64)
    orow = np.empty(n, np.int64)
    ocur = np.empty(n, np.int64)
    o = 0
    for k in range(nrec):
        length = rend[k] - rstart[k] if rkind[k] == REC_MATCH else 0
        if rows_mode == ROWS_ALL and rkind[k] == REC_MATCH:
            for j in range(length):
                if not EX[rlo[k] + j]:
                    orec[o] = k
                    orow[o] = rstart[k] + j
                    ocur[o] = j
                    o += 1
        else:
            orec[o] = k
            orow[o] = rstart[k]
            ocur[o] = length - 1
            o += 1
    return orec, orow, ocur


# LOOP-START
@njit(cache=True)
def define_all(PB, VT, VN, VD, SC, LC, nvars, st):
    """DM[v, r]: whether DEFINE of variable v holds at row r (conditions read no history: exprgen.py)."""
    DM = np.zeros((max(nvars, 1), VT.shape[1]), np.bool_)
    for p in range(len(PB) - 1):
        pb = PB[p]
        pe = PB[p + 1]
        for r in range(pb, pe):
            st[0] = r
            for v in range(nvars):
                DM[v, r] = define(v, r, r, pb, pe, VT, VN, VD, SC, LC)  # noqa: F821  (generated)
    return DM


@njit(cache=True)
def eval_measures(orec, ocur, rkind, rstart, rend, rnum, rlo, LB, PBOF, PB, VT, VN, VD, SC, LC, NM,
                  nmeasures, rows_mode, st):
    """(tag, numerator, denominator)[measure, output row]; unmatched rows are null."""
    n = len(orec)
    mt = np.full((nmeasures, n), 1, np.int8)
    mn = np.zeros((nmeasures, n), np.int64)
    md = np.ones((nmeasures, n), np.int64)
    for o in range(n):
        k = orec[o]
        if rkind[k] == 2:
            continue
        s = rstart[k]
        L = rend[k] - s if rkind[k] == 0 else 0
        vis = L if rows_mode == 0 else ocur[o] + 1
        p = PBOF[k]
        st[0] = s + max(ocur[o], 0)
        for m in range(nmeasures):
            t, nn, dd = measure(m, s, L, vis, LB, rlo[k], PB[p], PB[p + 1], rnum[k], VT, VN, VD, SC, LC, NM)  # noqa: F821
            mt[m, o] = t
            mn[m, o] = nn
            md[m, o] = dd
    return mt, mn, md
# LOOP-END
