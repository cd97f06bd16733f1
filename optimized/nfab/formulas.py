"""The evaluator of the packed formula tables (compiler.py): `holds(fid, ...)` on a run row. A generated module
(generated.py) defines its own `holds` instead, as straight-line code."""
from __future__ import annotations

from numba import njit

from cepkit.optimized.nfab.layout import AGGW, HDR, NULL, NUM, STR
from cepkit.optimized.values import cmp_vals, rat_add, rat_div, rat_mod, rat_mul, rat_sub, sub64


@njit(cache=True, inline="always")
def eval_clause(T, s, e, R, pl, ix, p, base, vn, vd, vt, n, stk):
    """Truth of the postfix clause in rows s..e-1 of the packed tables T, on the run row R[pl, ix] with
    the event at p being tested; stk holds the value stack (numerators, denominators, tags)."""
    kc = T[0, 3]
    sp = 0
    for i in range(s, e):
        op = T[i, 0]
        a = T[i, 1]
        if op == 0:  # const
            stk[2, sp] = T[kc + a, 0]
            stk[0, sp] = T[kc + a, 1]
            stk[1, sp] = T[kc + a, 2]
            sp += 1
        elif op == 1:  # attr
            k = T[i, 2]
            slot = T[i, 3]
            q = -1
            if a == 0:
                q = p
            elif a == 1:
                if R[pl, ix, HDR + 3 * k + 2] > 0:
                    q = R[pl, ix, HDR + 3 * k]
            elif a == 2:
                q = R[pl, ix, HDR + 3 * k] if R[pl, ix, HDR + 3 * k + 2] > 0 else p
            elif a == 3:
                if R[pl, ix, HDR + 3 * k + 2] > 0:
                    q = R[pl, ix, HDR + 3 * k + 1]
            if q < 0:
                stk[2, sp] = NULL
                stk[0, sp] = 0
                stk[1, sp] = 1
            else:
                stk[2, sp] = vt[slot, q - base]
                stk[0, sp] = vn[slot, q - base]
                stk[1, sp] = vd[slot, q - base]
            sp += 1
        elif op == 2:  # len
            stk[2, sp] = NUM
            stk[0, sp] = R[pl, ix, HDR + 3 * a + 2] if a >= 0 else 0
            stk[1, sp] = 1
            sp += 1
        elif op == 3:  # aggregate
            slot = T[i, 2]
            cnt = 0
            if slot >= 0:
                o = HDR + 3 * n + AGGW * slot
                cnt = R[pl, ix, o + 2]
            if a == 1:
                stk[2, sp] = NUM
                stk[0, sp] = cnt
                stk[1, sp] = 1
            elif cnt == 0:
                stk[2, sp] = NULL
                stk[0, sp] = 0
                stk[1, sp] = 1
            else:
                stk[2, sp] = NUM
                if a == 0:
                    stk[0, sp] = R[pl, ix, o]
                    stk[1, sp] = R[pl, ix, o + 1]
                elif a == 2:
                    rn, rd = rat_div(R[pl, ix, o], R[pl, ix, o + 1], cnt, 1)
                    stk[0, sp] = rn
                    stk[1, sp] = rd
                elif a == 3:
                    stk[0, sp] = R[pl, ix, o + 3]
                    stk[1, sp] = R[pl, ix, o + 4]
                else:
                    stk[0, sp] = R[pl, ix, o + 5]
                    stk[1, sp] = R[pl, ix, o + 6]
            sp += 1
        elif op == 4:  # arithmetic
            sp -= 1
            if stk[2, sp - 1] != NUM or stk[2, sp] != NUM:
                stk[2, sp - 1] = NULL
            else:
                x_n = stk[0, sp - 1]
                x_d = stk[1, sp - 1]
                y_n = stk[0, sp]
                y_d = stk[1, sp]
                if a == 0:
                    rn, rd = rat_add(x_n, x_d, y_n, y_d)
                elif a == 1:
                    rn, rd = rat_sub(x_n, x_d, y_n, y_d)
                elif a == 2:
                    rn, rd = rat_mul(x_n, x_d, y_n, y_d)
                elif y_n == 0:
                    stk[2, sp - 1] = NULL
                    continue
                elif a == 3:
                    rn, rd = rat_div(x_n, x_d, y_n, y_d)
                else:
                    rn, rd = rat_mod(x_n, x_d, y_n, y_d)
                stk[0, sp - 1] = rn
                stk[1, sp - 1] = rd
        elif op == 5:  # unary minus
            if stk[2, sp - 1] == NUM:
                stk[0, sp - 1] = sub64(0, stk[0, sp - 1])
        elif op == 6:  # compare
            sp -= 1
            r = cmp_vals(a, stk[2, sp - 1], stk[0, sp - 1], stk[1, sp - 1], stk[2, sp], stk[0, sp], stk[1, sp])
            stk[2, sp - 1] = NUM
            stk[0, sp - 1] = 1 if r else 0
            stk[1, sp - 1] = 1
        elif op == 7 or op == 8:  # and / or over the top `a` values
            acc = op == 7
            for k in range(sp - a, sp):
                tv = (stk[2, k] == NUM and stk[0, k] != 0) or (stk[2, k] == STR and stk[0, k] != 0)
                if op == 7:
                    acc = acc and tv
                else:
                    acc = acc or tv
            sp -= a
            stk[2, sp] = NUM
            stk[0, sp] = 1 if acc else 0
            stk[1, sp] = 1
            sp += 1
        else:  # not
            tv = (stk[2, sp - 1] == NUM and stk[0, sp - 1] != 0) or (stk[2, sp - 1] == STR and stk[0, sp - 1] != 0)
            stk[2, sp - 1] = NUM
            stk[0, sp - 1] = 0 if tv else 1
            stk[1, sp - 1] = 1
    return (stk[2, 0] == NUM and stk[0, 0] != 0) or (stk[2, 0] == STR and stk[0, 0] != 0)


@njit(cache=True)
def holds(fid, R, pl, ix, p, T, E, base, n, stk, cnt):
    """Whether the clauses of formula fid all hold on row R[pl, ix] (each evaluated clause is counted).
    T packs the tables (see `pack`): row 0 = offsets of ops, clauses, formulas, constants."""
    oo = T[0, 0]
    oc = T[0, 1]
    of = T[0, 2]
    for c in range(T[of + fid, 0], T[of + fid, 1]):
        cnt[1] += 1
        if not eval_clause(T, oo + T[oc + c, 0], oo + T[oc + c, 1], R, pl, ix, p, base, E[2], E[3], E[4], n, stk):
            return False
    return True
