"""The Numba matcher of SQL mode: the row pattern program (front/sql/program.py) run by the lockstep
thread VM of reference/sql/vm.py over every partition in one call, then AFTER MATCH SKIP, as
reference/sql/run.py `_sql_partition` does.

`run_partitions` is compiled once for every query (an explicit signature, cached on disk): it reads DEFINE
from a matrix DM[v, r] computed before by `define_all` where the conditions read only their row, else it
calls the query's generated `define` through a function pointer (DEFINE_FN) on each thread's registers
(History in exprgen.py). The text between LOOP-START and LOOP-END (`define_all`, `args_all`,
`eval_measures`) is compiled inside each query's generated module (optimized/sql/engine.py), next to the
generated `define`, `args` and `measure`: a new query compiles only its own expressions.

A thread's future depends only on its instruction, the loop marks and its registers (empty when DEFINE
reads only its row): at each row a thread is dropped when a more preferred one has been in the same state,
as the reference VM's deduplication does. Without registers a run from one start row costs at most
rows x program size.

Output records (one per SQL output event), in the reference's order:
  REC_MATCH (end - start rows: RB[lo:lo + end - start], labels LB[...], excluded flags EX[...]; SQL mode's
  rows are start .. end - 1, ALL MATCHES' need not be contiguous),
  REC_EMPTY (an empty match at start), REC_UNMATCHED (ALL ROWS ... WITH UNMATCHED ROWS: row start).
"""
from __future__ import annotations

import numpy as np
from numba import njit
from numba import types as T
from numba.core.types import FunctionType

from cepkit.optimized.arrays import grow, grow2
from cepkit.optimized.values import rat_add, rat_less

# instruction kinds: front/sql/program.py
MATCH, SPLIT, JUMP, ITERATION, EXIT_IF_EMPTY, AT_START, AT_END, DONE = range(8)
REC_MATCH, REC_EMPTY, REC_UNMATCHED = 0, 1, 2
ROWS_ONE, ROWS_ALL = 0, 1
EMPTY_SHOW, EMPTY_OMIT, EMPTY_UNMATCHED = 0, 1, 2
SKIP_PAST_LAST, SKIP_NEXT_ROW, SKIP_FIRST, SKIP_LAST = 0, 1, 2, 3
# st (the kernel's status) slots
ST_ROW, ST_ERROR, ST_ERRSTART, ST_NREC, ST_NLAB, ST_STEPS, ST_PEAK, ST_VAR = range(8)
ERR_SKIP_NO_ROW, ERR_SKIP_LOOP, ERR_STATE = 1, 2, 3
NUM_T, NULL_T, STR_T = 0, 1, 2   # value tags (optimized/bytecode.py)
AGG_SUM, AGG_MIN, AGG_MAX, AGG_COUNT = 0, 1, 2, 3   # running aggregates in registers (SUM also serves AVG)
MAX_LOOPS = 16   # loop marks are a bit set of this many loops (nullable loop bodies), see engine.py


@njit(cache=True, inline="always")
def inside(WN, WNULL, s, r, wsign, wamount, wstrict):
    """Whether row r may belong to a match that started at row s under WITHIN (ORDER BY key values WN)."""
    if WNULL[s] or WNULL[r]:
        return False
    span = wsign * (WN[r] - WN[s])
    return span < wamount if wstrict else span <= wamount


@njit(cache=True, inline="always")
def closure(pc0, cell, hrow, row, pb, pe, KIND, TA, TB, LOOP, nloops, seen, shead, snext, SH, ns, stamp,
            spc, smk, opc, ocell, OH, n, dead, vlog, nv):
    """Follow the non-consuming instructions from pc0 at `row`, preferred branch first, appending the threads
    that stop at `match` or `done` (instruction, cell, registers) to opc / ocell / OH from n on. A state
    (instruction, loop marks, registers) already visited at this row is dropped, and so is one in `dead`
    (visited by a failed run from an earlier start; empty: no memo), and each new one is logged to vlog.
    Returns (n, ns, steps, nv)."""
    W = len(hrow)
    nkeys = len(seen)
    spc[0] = pc0
    smk[0] = 0
    sp = 1
    steps = 0
    while sp > 0:
        sp -= 1
        q = spc[sp]
        mk = smk[sp]
        key = (q << nloops) | mk
        if len(dead) > 0 and dead[(row - pb) * nkeys + key]:
            continue
        if seen[key] == stamp:
            if W == 0:
                continue
            e = shead[key]
            dup = False
            while e >= 0:
                same = True
                for w in range(W):
                    if SH[e, w] != hrow[w]:
                        same = False
                        break
                if same:
                    dup = True
                    break
                e = snext[e]
            if dup:
                continue
        else:
            seen[key] = stamp
            shead[key] = -1
            if len(dead) > 0:
                vlog[nv] = (row - pb) * nkeys + key
                nv += 1
        if W > 0:
            SH[ns, :] = hrow
            snext[ns] = shead[key]
            shead[key] = ns
            ns += 1
        steps += 1
        kind = KIND[q]
        if kind == MATCH or kind == DONE:
            opc[n] = q
            ocell[n] = cell
            if W > 0:
                OH[n, :] = hrow
            n += 1
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
            if row == pb:
                spc[sp] = q + 1
                smk[sp] = mk
                sp += 1
        elif kind == AT_END:
            if row == pe:
                spc[sp] = q + 1
                smk[sp] = mk
                sp += 1
    return n, ns, steps, nv


@njit(cache=True)
def step_registers(h, lab, i, NM, RS, AG, AT, AN, AD):
    """Update the registers `h` for row i labelled `lab`: per label set (RS rows: set, first slot, first depth,
    last slot, last depth, count slot, last labels slot, first labels slot; NM[set, label] says membership)
    the first and last rows with their labels, and the count; per aggregate (AG rows: set, slot, argument, function) count, tag,
    numerator, denominator of the running SUM / MIN / MAX of its argument's values AT / AN / AD[arg, row]."""
    for g in range(RS.shape[0]):
        if not NM[RS[g, 0], lab]:
            continue
        cs = RS[g, 5]
        c = h[cs]
        if c < RS[g, 2]:
            h[RS[g, 1] + c] = i
            h[RS[g, 7] + c] = lab
        ls, ld, lr = RS[g, 3], RS[g, 4], RS[g, 6]
        for k in range(ld - 1, 0, -1):
            h[ls + k] = h[ls + k - 1]
            h[lr + k] = h[lr + k - 1]
        if ld > 0:
            h[ls] = i
            h[lr] = lab
        h[cs] = c + 1
    for g in range(AG.shape[0]):
        if not NM[AG[g, 0], lab]:
            continue
        a = AG[g, 2]
        t = AT[a, i]
        if t == NULL_T:
            continue
        o = AG[g, 1]
        f = AG[g, 3]
        h[o] += 1
        if h[o + 1] == NULL_T:
            h[o + 1] = t
            h[o + 2] = AN[a, i]
            h[o + 3] = AD[a, i]
        elif f == AGG_SUM:
            if t != NUM_T:
                raise TypeError("text in SUM / AVG")
            h[o + 2], h[o + 3] = rat_add(h[o + 2], h[o + 3], AN[a, i], AD[a, i])
        elif f == AGG_MIN or f == AGG_MAX:
            if h[o + 1] != t:
                raise TypeError("text and numbers in MIN / MAX")
            if t == NUM_T:
                better = rat_less(AN[a, i], AD[a, i], h[o + 2], h[o + 3]) if f == AGG_MIN else \
                    rat_less(h[o + 2], h[o + 3], AN[a, i], AD[a, i])
            else:
                better = AN[a, i] < h[o + 2] if f == AGG_MIN else AN[a, i] > h[o + 2]
            if better:
                h[o + 2] = AN[a, i]
                h[o + 3] = AD[a, i]


@njit(cache=True)
def most_common_label(cpc, nc, KIND, LAB):
    """The variable most live threads wait at (-1: none)."""
    counts = np.zeros(LAB.max() + 1 if len(LAB) else 1, np.int64)
    for t in range(nc):
        if KIND[cpc[t]] == MATCH:
            counts[LAB[cpc[t]]] += 1
    return np.argmax(counts) if counts.max() > 0 else -1


_I, _B = T.int64, T.boolean
# define(v, r, s, pb, pe, mno, VT, VN, VD, SC, LC, AT, AN, AD, H): the generated DEFINE of a query (exprgen.py),
# mno the MATCH_NUMBER() of the match being tried (0 in ALL MATCHES, where DEFINE cannot read it). The
# matchers take it as a function pointer of this type, so they are compiled once for every query.
DEFINE_SIG = _B(_I, _I, _I, _I, _I, _I, T.int8[:, :], _I[:, :], _I[:, :], _I[:], _I[:], T.int8[:, :], _I[:, :],
                _I[:, :], _I[:])
DEFINE_FN = FunctionType(DEFINE_SIG)
# what both matchers return: records (kind, start, end, number, label offset), labels, excluded flags, rows
RECORDS = T.Tuple((T.int8[:], _I[:], _I[:], _I[:], _I[:], T.int16[:], _B[:], _I[:]))


@njit(RECORDS(DEFINE_FN, _B, _I[:], _B[:, :], T.int8[:, :], _I[:, :], _I[:, :], _I[:], _I[:], T.int8[:, :], _I[:, :],
              _I[:, :], _B[:, :], _I[:], _I[:, :], _I[:, :], _I[:], _I[:], _B[:], _I[:], _I[:], _I[:], _I, _I, _I,
              _I, _B[:], _B, _I[:], _B[:], _I, _I, _B, _I, _B, _I[:]), cache=True, nogil=True)
def run_partitions(define, use_dm, PB, DM, VT, VN, VD, SC, LC, AT, AN, AD, NM, H0, RS, AG, KIND, LAB, EXC, TA, TB,
                   LOOP, nloops, rows_mode, empty_mode, skip_mode, SKIPSET, has_within, WN, WNULL, wsign, wamount,
                   wstrict, max_state, memo, st):
    """Every partition [PB[p], PB[p + 1]) matched in SQL mode: records (kind, start, end, number, label
    offset) and the label / excluded buffers; st[ST_ERROR] set on an AFTER MATCH SKIP error or when more than
    max_state threads are live (-1: no bound). DEFINE: DM[v, r] with `use_dm`, else the generated `define`
    on each thread's registers. `memo` (conditions that read only their row, no WITHIN): the states of a
    failed run are dead for later starts, as in the reference VM."""
    npc = len(KIND)
    nkeys = npc << nloops
    W = len(H0)
    seen = np.full(nkeys, -1, np.int64)
    shead = np.full(nkeys, -1, np.int64)
    cap = nkeys + 1
    snext = np.empty(cap, np.int64)
    SH = np.empty((cap if W > 0 else 0, W), np.int64)
    cpc = np.empty(cap, np.int64)
    ccell = np.empty(cap, np.int64)
    CH = np.empty((cap if W > 0 else 0, W), np.int64)
    npc_ = np.empty(cap, np.int64)
    ncell = np.empty(cap, np.int64)
    NH = np.empty((cap if W > 0 else 0, W), np.int64)
    hrow = np.empty(W, np.int64)
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
    RB = np.empty(1024, np.int64)
    nrec = 0
    nlab = 0
    stamp = 0
    steps = 0
    peak = 0
    covered = np.zeros(DM.shape[1] if empty_mode == EMPTY_UNMATCHED else 0, np.bool_)
    longest = 0
    for p in range(len(PB) - 1):
        longest = max(longest, PB[p + 1] - PB[p])
    dead = np.zeros((longest + 1) * nkeys if memo else 0, np.uint8)
    vlog = np.empty(1024 if memo else 0, np.int64)
    for p in range(len(PB) - 1):
        pb = PB[p]
        pe = PB[p + 1]
        pos = pb
        number = 1
        if memo:
            dead[:(pe - pb + 1) * nkeys] = 0
        while pos < pe:
            # ---------------------------------------------------------------- one run from `pos`
            s = pos
            na = 0
            best_end = -1
            best_cell = -1
            stamp += 1
            nv = 0
            if memo and len(vlog) < nkeys + 1:
                vlog = grow(vlog, nkeys + 1)
            nc, ns, k, nv = closure(0, -1, H0, s, pb, pe, KIND, TA, TB, LOOP, nloops, seen, shead, snext, SH, 0, stamp,
                                    spc, smk, cpc, ccell, CH, 0, dead, vlog, nv)
            steps += k
            i = s
            while nc > 0:
                stamp += 1
                ns = 0
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
                    if has_within and not inside(WN, WNULL, s, i, wsign, wamount, wstrict):
                        continue
                    lab = LAB[pc]
                    if use_dm:   # conditions that read only their row, computed before (define_all)
                        if not DM[lab, i]:
                            continue
                    else:
                        st[ST_ROW] = i
                        if not define(lab, i, s, pb, pe, number, VT, VN, VD, SC, LC, AT, AN, AD, CH[t]):
                            continue
                    if na >= len(alab):
                        alab = grow(alab, na + 1)
                        aexc = grow(aexc, na + 1)
                        apar = grow(apar, na + 1)
                    alab[na] = lab
                    aexc[na] = EXC[pc]
                    apar[na] = ccell[t]
                    na += 1
                    if W > 0:
                        hrow[:] = CH[t]
                        step_registers(hrow, lab, i, NM, RS, AG, AT, AN, AD)
                    if nn + nkeys >= len(npc_):
                        npc_ = grow(npc_, nn + nkeys + 1)
                        ncell = grow(ncell, nn + nkeys + 1)
                        if W > 0:
                            NH = grow2(NH, nn + nkeys + 1)
                    if memo and nv + nkeys >= len(vlog):
                        vlog = grow(vlog, nv + nkeys + 1)
                    if W > 0 and ns + nkeys >= len(snext):
                        snext = grow(snext, ns + nkeys + 1)
                        SH = grow2(SH, ns + nkeys + 1)
                    nn, ns, k, nv = closure(pc + 1, na - 1, hrow, i + 1, pb, pe, KIND, TA, TB, LOOP, nloops, seen,
                                            shead, snext, SH, ns, stamp, spc, smk, npc_, ncell, NH, nn, dead, vlog, nv)
                    steps += k
                if nn > len(cpc):
                    cpc = grow(cpc, nn)
                    ccell = grow(ccell, nn)
                    if W > 0:
                        CH = grow2(CH, nn)
                cpc[:nn] = npc_[:nn]
                ccell[:nn] = ncell[:nn]
                if W > 0:
                    CH[:nn] = NH[:nn]
                nc = nn
                if nc > peak:
                    peak = nc
                    if max_state >= 0 and nc > max_state:
                        st[ST_ERROR] = ERR_STATE
                        st[ST_PEAK] = peak
                        st[ST_VAR] = most_common_label(cpc, nc, KIND, LAB)
                        return rkind, rstart, rend, rnum, rlo, LB, EX, RB
                i += 1
            # ---------------------------------------------------------------- SQL mode around the run
            if nrec >= len(rkind):
                rkind = grow(rkind, nrec + 1)
                rstart = grow(rstart, nrec + 1)
                rend = grow(rend, nrec + 1)
                rnum = grow(rnum, nrec + 1)
                rlo = grow(rlo, nrec + 1)
            if best_end < 0:
                if memo:
                    for e in range(nv):
                        dead[vlog[e]] = 1
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
                RB = grow(RB, nlab + length)
            c = best_cell
            for j in range(length - 1, -1, -1):
                LB[nlab + j] = alab[c]
                EX[nlab + j] = aexc[c]
                RB[nlab + j] = s + j
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
                    return rkind, rstart, rend, rnum, rlo, LB, EX, RB
                pos = target
            nlab += length
    st[ST_NREC] = nrec
    st[ST_NLAB] = nlab
    st[ST_STEPS] = steps
    st[ST_PEAK] = peak
    return rkind, rstart, rend, rnum, rlo, LB, EX, RB


@njit(cache=True, nogil=True)
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
@njit(cache=True, nogil=True)
def define_all(PB, VT, VN, VD, SC, LC, AT, AN, AD, H0, nvars, st):
    """DM[v, r]: whether DEFINE of variable v holds at row r (for conditions that read only their row)."""
    DM = np.zeros((max(nvars, 1), VT.shape[1]), np.bool_)
    for p in range(len(PB) - 1):
        pb = PB[p]
        pe = PB[p + 1]
        for r in range(pb, pe):
            st[0] = r
            for v in range(nvars):
                DM[v, r] = define(v, r, r, pb, pe, 0, VT, VN, VD, SC, LC, AT, AN, AD, H0)  # noqa: F821  (generated)
    return DM


@njit(cache=True, nogil=True)
def args_all(PB, VT, VN, VD, SC, LC, nargs, st):
    """AT / AN / AD[a, r]: the value of aggregate argument a at row r (History.args)."""
    size = VT.shape[1]
    AT = np.full((max(nargs, 1), size), 1, np.int8)
    AN = np.zeros((max(nargs, 1), size), np.int64)
    AD = np.ones((max(nargs, 1), size), np.int64)
    for p in range(len(PB) - 1):
        pb = PB[p]
        pe = PB[p + 1]
        for r in range(pb, pe):
            st[0] = r
            for a in range(nargs):
                AT[a, r], AN[a, r], AD[a, r] = args(a, r, pb, pe, VT, VN, VD, SC, LC)  # noqa: F821  (generated)
    return AT, AN, AD


@njit(cache=True, nogil=True)
def eval_measures(orec, ocur, rkind, rstart, rend, rnum, rlo, LB, RB, PBOF, PB, VT, VN, VD, SC, LC, NM,
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
        st[0] = RB[rlo[k] + max(ocur[o], 0)] if L > 0 else s
        for m in range(nmeasures):
            t, nn, dd = measure(m, L, vis, LB, RB, rlo[k], PB[p], PB[p + 1], rnum[k], VT, VN, VD, SC, LC, NM)  # noqa: F821
            mt[m, o] = t
            mn[m, o] = nn
            md[m, o] = dd
    return mt, mn, md
# LOOP-END
