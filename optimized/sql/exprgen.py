"""Numba source for MATCH_RECOGNIZE's DEFINE and MEASURES expressions, from the query's AST.

The shared nodes (constants, arithmetic, comparisons, AND / OR / NOT) are emitted by the SASE+ engine's
generator (optimized/codegen.py `Emitter`) under the query's null logic (SQL: three-valued); this module
adds SQL's leaves: column references, PREV / NEXT / FIRST / LAST, CLASSIFIER, MATCH_NUMBER, aggregates and
IS NULL. Values are tagged exact rationals (tag, numerator, denominator) read from the columns
VT / VN / VD[slot, row] (rows in partition-then-ORDER-BY order); text is a code in a dictionary ranked in
text order at run time (`LC[v]`: the code of variable v's name), so text compares and orders exactly.

The query's constants are data, not source: each occurrence of a constant reads the int64 array `SC`
(Names.constants; engine.py fills it): a text's code, a number's numerator (and denominator, the next
entry, for a fraction), a truth value's TRUE3 / FALSE3. The source depends on the query's shape only (its
expressions, which constants are fractions, text or truth values, the PREV / NEXT / FIRST / LAST offsets,
the columns known to be integers), never on a constant's value, a column's, variable's or measure's name, or
WITHIN: a query that differs in those reuses the compiled module (optimized/cache.py keys it by source).

A DEFINE condition that reads only its row (columns unqualified or qualified with the variable being
defined or a SUBSET holding it, PREV / NEXT from it, CLASSIFIER()) is evaluated for every row before
matching (`define_all`); one that reads the match so far (another variable's rows, FIRST / LAST,
aggregates, CLASSIFIER(v)) is evaluated per thread in the matcher over the thread's registers (History):
the first and last rows, count and last label of each label set it reads, and running aggregates. MEASURES read the whole match: its start row
`s`, length `L`, labels LB[lo:lo + L], the visible rows `vis` (RUNNING: up to the current row; FINAL: all).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from cepkit.optimized.bytecode import BIN_OPS, CMP_OPS, ENGINE, INT64_MAX, NULL, NUM, STR
from cepkit.optimized.codegen import FALSE3, TRUE3, Val, Emitter
from cepkit.core.errors import Unsupported
from cepkit.front.language import ast as A
from cepkit.front.sql import ast as S

BOOL = 3   # a measure's tag for a truth value (the value tags are cepkit.optimized.bytecode's NUM, NULL, STR)


def refuse(construct: str, node) -> Unsupported:
    pos = getattr(node, "pos", None)
    return Unsupported(ENGINE, construct, (pos.line or None) if pos else None, (pos.column or None) if pos else None)


MAX_HISTORY = 10_000   # rows a thread keeps per label set for FIRST / LAST in DEFINE (History)


def offset(nav) -> int:
    """A navigation's offset, refused by name beyond what generated code holds (a 64-bit literal)."""
    if nav.offset > INT64_MAX // 2:
        raise refuse(f"a navigation offset of {nav.offset} (beyond 64-bit integers)", nav)
    return nav.offset


def var_of(e) -> str | None:
    """The one pattern variable an argument's references use (None: universal), as cepkit.reference.sql.exprs."""
    for n in e.walk():
        if isinstance(n, (S.ColRef, S.Classifier)) and n.var is not None:
            return n.var
    return None


TEXT, NUMBER = "text", "number"   # the kinds of Names.constants entries


class Names:
    """What generated code indexes: column slots, constants (SC), and label sets (a variable or SUBSET).

    `constants` holds one entry per SC element, in the order the generator reads them: (TEXT, the text) or
    (NUMBER, an int64: a numerator, a denominator or a truth value). Every occurrence of a constant gets its
    own entries, equal values included, so the source (which reads SC[k]) depends on where constants stand,
    not on their values."""

    def __init__(self, variables: tuple[str, ...], subsets: dict[str, tuple[str, ...]]):
        self.variables = variables
        self.subsets = subsets
        self.columns: list[str] = []
        self.constants: list[tuple[str, str | int]] = []
        self.sets: list[str] = []

    def slot(self, col: str) -> int:
        if col not in self.columns:
            self.columns.append(col)
        return self.columns.index(col)

    def constant(self, kind: str, value: str | int) -> str:
        """The source reading a new SC entry holding the text or int64 `value`."""
        self.constants.append((kind, value))
        return f"SC[{len(self.constants) - 1}]"

    @property
    def texts(self) -> list[str]:
        """The text constants (their codes are ranked with the table's text, engine.py Encoded)."""
        return [v for kind, v in self.constants if kind == TEXT]

    def constant_table(self, code: dict[str, int]) -> np.ndarray:
        """SC: the constants as int64, text as its code in the run's ranked dictionary (`code`)."""
        return np.array([code[v] if kind == TEXT else v for kind, v in self.constants] or [0], np.int64)

    def label_set(self, name: str) -> int:
        if name not in self.sets:
            self.sets.append(name)
        return self.sets.index(name)

    def members(self) -> np.ndarray:
        """NM[set, variable]: whether the variable belongs to the label set."""
        out = np.zeros((max(len(self.sets), 1), max(len(self.variables), 1)), np.bool_)
        for k, name in enumerate(self.sets):
            for v in (self.variables if name == ANY else self.subsets.get(name, (name,))):
                out[k, self.variables.index(v)] = True
        return out


ANY = "*"   # the label set of every variable (universal references)
AGG_CODES = {"sum": 0, "avg": 0, "min": 1, "max": 2, "count": 3}   # optimized/sql/matcher.py AGG_*


class History:
    """The registers a thread carries for DEFINE conditions that read the match so far: per label set (a
    variable, a SUBSET, or ANY) its first rows, last rows, count and last label; per aggregate over an
    argument its running count, tag, numerator and denominator. `needed` is False when every condition reads
    only its row (DEFINE is then computed for every row before matching)."""

    def __init__(self, q: S.MatchRecognize, names: Names):
        self.names = names
        self.depth: dict[str, list[int]] = {}       # label set -> [first depth, last depth]
        self.args: list = []                         # aggregate argument expressions (AT / AN / AD rows)
        self.aggs: list[tuple[str, str, int]] = []   # (label set, function, argument index)
        self.needed = False
        for d in q.define:
            mine = {d.var} | {n for n, members in q.subset_map.items() if d.var in members}
            for n in d.cond.walk():
                self._scan(n, mine)
        self.slots: dict[str, tuple[int, int, int, int, int, int]] = {}
        self.first_labels: dict[str, int] = {}
        w = 0
        for name, (f, l) in self.depth.items():
            # first rows (f), last rows (l), count, the last rows' labels (l), the first rows' labels (f)
            self.slots[name] = (w, f, w + f, l, w + f + l, w + f + l + 1)
            self.first_labels[name] = w + f + 2 * l + 1
            w += 2 * f + 2 * l + 1
        self.agg_slot: list[int] = []
        for _ in self.aggs:
            self.agg_slot.append(w)
            w += 4
        self.width = w
        for name in list(self.depth) + [name for name, _f, _a in self.aggs]:
            names.label_set(name)   # NM has a row for every set the registers follow

    def _set(self, name: str | None) -> list[int]:
        return self.depth.setdefault(ANY if name is None else name, [0, 1])

    def _scan(self, n, mine: set) -> None:
        if isinstance(n, S.ColRef) and n.var is not None and n.var not in mine:
            self.needed = True
            self._set(n.var)
        elif isinstance(n, S.Classifier) and n.var is not None and n.var not in mine:
            self.needed = True
            self._set(n.var)
        elif isinstance(n, S.Nav) and n.kind in ("first", "last"):
            self.needed = True
            if offset(n) >= MAX_HISTORY:
                raise refuse(f"FIRST / LAST with an offset of {n.offset:,} rows in DEFINE (the matcher keeps that "
                             f"many rows per thread; at most {MAX_HISTORY - 1:,})", n)
            depth = self._set(var_of(n.arg))
            k = 0 if n.kind == "first" else 1
            depth[k] = max(depth[k], n.offset + 1)
            if any(isinstance(x, S.Classifier) for x in n.arg.walk()):   # the label of that row: its set's
                self._set(None)
        elif isinstance(n, S.Nav) and any(isinstance(x, S.Classifier) for x in n.arg.walk()):
            self.needed = True   # PREV / NEXT(CLASSIFIER()): the label of a row of the run, if it is one
            if offset(n) >= MAX_HISTORY:
                raise refuse(f"PREV / NEXT of CLASSIFIER() with an offset of {n.offset:,} rows in DEFINE (at "
                             f"most {MAX_HISTORY - 1:,})", n)
            depth = self._set(None)
            depth[1] = max(depth[1], n.offset + 1)
        elif isinstance(n, S.MatchNumber):
            self.needed = True   # changes after each match: no per-row precomputation, no dead states
        elif isinstance(n, S.SqlAgg):
            self.needed = True
            name = n.var if n.arg is None else var_of(n.arg)
            self._set(name)
            if n.arg is not None:
                key = (ANY if name is None else name, n.func, self.arg(n.arg))
                if key not in self.aggs:
                    self.aggs.append(key)

    def arg(self, e) -> int:
        if e not in self.args:
            self.args.append(e)
        return self.args.index(e)

    def tables(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """H0 (the registers of a fresh run), RS (label sets) and AG (aggregates) for the matcher."""
        h0 = np.zeros(self.width, np.int64)
        rs = []
        for name, (fs, f, ls, l, cs, lab) in self.slots.items():
            h0[fs:fs + f] = -1
            h0[ls:ls + l] = -1
            rs.append((self.names.label_set(name), fs, f, ls, l, cs, lab, self.first_labels[name]))
        ag = []
        for (name, func, a), o in zip(self.aggs, self.agg_slot):
            h0[o:o + 4] = (0, NULL, 0, 1)
            ag.append((self.names.label_set(name), o, a, AGG_CODES[func]))
        return (h0, np.array(rs, np.int64).reshape(-1, 8), np.array(ag, np.int64).reshape(-1, 4))


class SqlEmitter(Emitter):
    """Emits one function body at a time; `integral` names the columns known to hold integers only."""

    text_order = True

    def __init__(self, names: Names, integral: frozenset[str]):
        super().__init__({}, 0, "three_valued")
        self.names = names
        self.integral = integral

    # ------------------------------------------------------------------ shared nodes
    def expr(self, e, ctx: "Ctx", ind: int) -> Val:
        if isinstance(e, A.Const):
            return self.const(e)
        if isinstance(e, A.BinOp):
            x, y = self.number(e.left, ctx, ind), self.number(e.right, ctx, ind)
            return self.binop(BIN_OPS[e.op], x, y, ind)
        if isinstance(e, A.Neg):
            x = self.number(e.operand, ctx, ind)
            return Val(x.t, f"sub64(0, {x.n})", x.d)
        if isinstance(e, A.Compare):
            x, y = self.expr(e.left, ctx, ind), self.expr(e.right, ctx, ind)
            if x.b is not None or y.b is not None:
                raise refuse("a comparison of truth values", e)
            return self.compare(CMP_OPS[e.op], x, y, ind)
        if isinstance(e, (A.And, A.Or)):
            return self.logic(isinstance(e, A.And), [self.expr(x, ctx, ind) for x in e.items], ind)
        if isinstance(e, A.Not):
            return self.negation(self.expr(e.operand, ctx, ind), ind)
        if isinstance(e, S.IsNull):
            x = self.expr(e.operand, ctx, ind)
            if x.b is not None:
                raise refuse("IS NULL of a truth value", e)
            name = self.tmp("b")
            self.emit(f"{name} = 1 if ({x.t} {'!=' if e.negated else '=='} {NULL}) else 0", ind)
            return Val(b=name)
        return ctx.leaf(self, e, ind)

    def number(self, e, ctx: "Ctx", ind: int) -> Val:
        v = self.expr(e, ctx, ind)
        if v.b is not None:
            raise refuse("arithmetic on a truth value", e)
        return v

    def const(self, e: A.Const) -> Val:
        """A constant as data: SC entries (Names.constants), its kind (number, fraction, text, truth value or
        NULL) in the source."""
        value = e.value
        if isinstance(value, bool):
            return Val(b=self.names.constant(NUMBER, TRUE3 if value else FALSE3))
        if value is None:
            return Val(str(NULL), "0")
        if isinstance(value, str):   # a quoted literal is text in SQL, '12' too (the reference's, Trino's;
            return Val(str(STR), self.names.constant(TEXT, value))   # a number compared with it is a query error)
        value = Fraction(value)
        if abs(value.numerator) > INT64_MAX or value.denominator > INT64_MAX:
            raise refuse(f"the constant {e.value!r} (beyond 64-bit integers)", e)
        n = self.names.constant(NUMBER, value.numerator)
        if value.denominator == 1:
            return Val(str(NUM), n)   # denominator "1": the integer fast paths (Val.one) stay
        return Val(str(NUM), n, self.names.constant(NUMBER, value.denominator))

    # ------------------------------------------------------------------ reading rows
    def cell(self, col: str, row: str, ind: int, checked: bool = True) -> Val:
        """Column `col` at partition row `row` (null outside the partition when `checked`)."""
        c = self.names.slot(col)
        t, n = self.tmp("t"), self.tmp()
        d = "1" if col in self.integral else self.tmp("d")
        if not checked:
            self.emit(f"{t} = VT[{c}, {row}]", ind)
            self.emit(f"{n} = VN[{c}, {row}]", ind)
            if d != "1":
                self.emit(f"{d} = VD[{c}, {row}]", ind)
            return Val(t, n, d)
        self.emit(f"if pb <= {row} < pe:", ind)
        self.emit(f"    {t} = VT[{c}, {row}]", ind)
        self.emit(f"    {n} = VN[{c}, {row}]", ind)
        if d != "1":
            self.emit(f"    {d} = VD[{c}, {row}]", ind)
        self.emit("else:", ind)
        self.emit(f"    {t} = {NULL}", ind)
        self.emit(f"    {n} = 0", ind)
        if d != "1":
            self.emit(f"    {d} = 1", ind)
        return Val(t, n, d)

    def accumulate(self, func: str, acc: tuple[str, str, str], x: Val, ind: int) -> None:
        """Add the non-null value x to the running SUM / MIN / MAX `acc` (tag, numerator, denominator names)."""
        t, n, d = acc
        if func in ("sum", "avg"):
            self.emit(f"if {x.t} == {STR}:", ind)
            self.emit("    raise TypeError('text in SUM / AVG')", ind)
        self.emit(f"if {t} == {NULL}:", ind)
        self.emit(f"    {t}, {n}, {d} = {x.t}, {x.n}, {x.d}", ind)
        if func in ("sum", "avg"):
            self.emit("else:", ind)
            self.emit(f"    {n}, {d} = rat_add({n}, {d}, {x.n}, {x.d})", ind)
        elif func in ("min", "max"):
            less = f"rat_less({x.n}, {x.d}, {n}, {d})" if func == "min" else f"rat_less({n}, {d}, {x.n}, {x.d})"
            self.emit(f"elif {t} != {x.t}:", ind)
            self.emit("    raise TypeError('text and numbers in MIN / MAX')", ind)
            self.emit(f"elif ({t} == {STR} and {x.n} {'<' if func == 'min' else '>'} {n}) or "
                      f"({t} == {NUM} and {less}):", ind)
            self.emit(f"    {n}, {d} = {x.n}, {x.d}", ind)

    def aggregate_value(self, func: str, acc: tuple[str, str, str], count: str, ind: int) -> Val:
        """The aggregate's value from its running `acc` over `count` non-null values."""
        t, n, d = acc
        if func == "count":
            return Val(str(NUM), count)
        if func == "avg":
            self.emit(f"if {count} > 0:", ind)
            self.emit(f"    {n}, {d} = rat_div({n}, {d}, {count}, 1)", ind)
        return Val(t, n, d)

    def at_row(self, e, ctx: "Ctx", row: str, ind: int) -> Val:
        """`e` evaluated with every reference reading partition row `row` (-1: none, so null)."""
        return self.expr(e, ctx.fixed(row), ind)

    def merge(self, ind: int) -> tuple[str, str, str]:
        """Names for a value assigned in branches (null until assigned)."""
        t, n, d = self.tmp("t"), self.tmp(), self.tmp("d")
        self.emit(f"{t} = {NULL}", ind)
        self.emit(f"{n} = 0", ind)
        self.emit(f"{d} = 1", ind)
        return t, n, d


class Ctx:
    """Where leaves read: subclasses say DEFINE's and MEASURES' rules; `row` fixes one row (inside
    navigation or an aggregate)."""

    row: str | None = None

    def fixed(self, row: str) -> "Ctx":
        raise NotImplementedError

    def leaf(self, em: SqlEmitter, e, ind: int) -> Val:
        raise NotImplementedError


class DefineCtx(Ctx):
    """DEFINE of variable `var` at row `r` of a match started at row `s`, the thread's registers `H`
    (History) holding what it read of the match before row r; `row` fixes one row (inside navigation)."""

    def __init__(self, var: str, q: S.MatchRecognize, history: History, row: str | None = None):
        self.var, self.q, self.history, self.row = var, q, history, row
        self.mine = {var} | {name for name, members in q.subset_map.items() if var in members}

    def fixed(self, row: str) -> "DefineCtx":
        return DefineCtx(self.var, self.q, self.history, row)

    def is_mine(self, name: str | None) -> bool:
        """Whether the current row counts as a row of `name` (None: every row)."""
        return name is None or name in self.mine

    def last_row(self, em: SqlEmitter, name: str | None, ind: int) -> str:
        if self.is_mine(name):
            return "r"
        fs, f, ls, l, cs, lab = self.history.slots[name]
        row = em.tmp("row")
        em.emit(f"{row} = H[{ls}]", ind)
        return row

    def logical(self, em: SqlEmitter, e: S.Nav, ind: int) -> str:
        """The row of FIRST / LAST(arg, offset) in the match so far (this row included), -1 if none."""
        name, off, row = var_of(e.arg), offset(e), em.tmp("row")
        fs, f, ls, l, cs, lab = self.history.slots[ANY if name is None else name]
        if e.kind == "first":
            tail = f"(r if {off} == H[{cs}] else -1)" if self.is_mine(name) else "-1"
            em.emit(f"{row} = H[{fs + off}] if {off} < H[{cs}] else {tail}", ind)
        elif self.is_mine(name):
            em.emit(f"{row} = r if {off} == 0 else (H[{ls + off - 1 if off else ls}] if {off} - 1 < H[{cs}] else -1)",
                    ind)
        else:
            em.emit(f"{row} = H[{ls + off}] if {off} < H[{cs}] else -1", ind)
        return row

    def leaf(self, em: SqlEmitter, e, ind: int) -> Val:
        if isinstance(e, S.ColRef):
            if self.row is not None:
                return em.cell(e.col, self.row, ind)
            if self.is_mine(e.var):
                return em.cell(e.col, "r", ind, checked=False)
            return em.cell(e.col, self.last_row(em, e.var, ind), ind)
        if isinstance(e, S.Classifier):
            if self.row is not None:
                return self.label_at(em, self.row, ind)
            if self.is_mine(e.var):
                return Val(str(STR), f"LC[{em.names.variables.index(self.var)}]")
            fs, f, ls, l, cs, lab = self.history.slots[e.var]
            t, n = em.tmp("t"), em.tmp()
            em.emit(f"{t} = {STR} if H[{cs}] > 0 else {NULL}", ind)
            em.emit(f"{n} = LC[H[{lab}]] if H[{cs}] > 0 else 0", ind)
            return Val(t, n)
        if isinstance(e, S.Nav):
            if self.row is not None:   # FIRST / LAST inside PREV / NEXT: the outer navigation fixed the row
                return em.at_row(e.arg, self, self.row, ind)
            if e.kind in ("first", "last"):
                return em.at_row(e.arg, self, self.logical(em, e, ind), ind)
            inner = next((n for n in e.arg.walk() if isinstance(n, S.Nav)), None)
            base = self.logical(em, inner, ind) if inner is not None else self.last_row(em, var_of(e.arg), ind)
            row = em.tmp("row")
            em.emit(f"{row} = {base} {'-' if e.kind == 'prev' else '+'} {offset(e)} if {base} >= 0 else -1", ind)
            return em.at_row(e.arg, self, row, ind)
        if isinstance(e, S.SqlAgg):
            return self.aggregate(em, e, ind)
        if isinstance(e, S.MatchNumber):   # the number of the match being tried (a run's, so History.needed)
            return Val(str(NUM), "mno")
        raise refuse(f"{type(e).__name__} in DEFINE", e)

    def label_at(self, em: SqlEmitter, row: str, ind: int) -> Val:
        """The label of partition row `row` if it is a row of the run so far (this row: the variable being
        defined), else null: looked up among the rows the registers keep (FIRST / LAST / PREV depths)."""
        t, n = em.tmp("t"), em.tmp()
        me = em.names.variables.index(self.var)
        em.emit(f"{t} = {NULL}", ind)
        em.emit(f"{n} = 0", ind)
        em.emit(f"if {row} == r:", ind)
        em.emit(f"    {t}, {n} = {STR}, LC[{me}]", ind)
        for name, (fs, f, ls, l, cs, lr) in self.history.slots.items():
            fl = self.history.first_labels[name]
            for rows, labels, depth in ((ls, lr, l), (fs, fl, f)):
                em.emit(f"for kk in range(min(H[{cs}], {depth})):", ind)
                em.emit(f"    if {t} == {NULL} and {row} >= 0 and H[{rows} + kk] == {row}:", ind)
                em.emit(f"        {t}, {n} = {STR}, LC[H[{labels} + kk]]", ind)
        return Val(t, n)

    def aggregate(self, em: SqlEmitter, e: S.SqlAgg, ind: int) -> Val:
        name = e.var if e.arg is None else var_of(e.arg)
        mine = self.is_mine(name)
        if e.arg is None:
            cs = self.history.slots[ANY if name is None else name][4]
            return Val(str(NUM), f"(H[{cs}] + {1 if mine else 0})")
        key = (ANY if name is None else name, e.func, self.history.arg(e.arg))
        o, a = self.history.agg_slot[self.history.aggs.index(key)], key[2]
        c, (t, n, d) = em.tmp("cnt"), em.merge(ind)
        em.emit(f"{c} = H[{o}]", ind)
        em.emit(f"{t}, {n}, {d} = H[{o + 1}], H[{o + 2}], H[{o + 3}]", ind)
        if mine:   # this row's value joins the rows before it
            em.emit(f"if AT[{a}, r] != {NULL}:", ind)
            body = ind + 1
            em.emit(f"{c} += 1", body)
            em.accumulate(e.func, (t, n, d), Val(f"AT[{a}, r]", f"AN[{a}, r]", f"AD[{a}, r]"), body)
        return em.aggregate_value(e.func, (t, n, d), c, ind)


class ArgCtx(Ctx):
    """An aggregate's argument at row `r` (every reference reads that row)."""

    def fixed(self, row: str) -> "ArgCtx":
        return self

    def leaf(self, em: SqlEmitter, e, ind: int) -> Val:
        if isinstance(e, S.ColRef):
            return em.cell(e.col, "r", ind, checked=False)
        what = {S.Classifier: "CLASSIFIER()", S.MatchNumber: "MATCH_NUMBER()"}.get(type(e), type(e).__name__)
        raise refuse(f"{what} in an aggregate's argument in DEFINE", e)


class MeasureCtx(Ctx):
    """A MEASURES expression over the match: rows RB[lo + j] labelled LB[lo + j], j < L; `vis` rows visible
    (RUNNING), all L when FINAL."""

    def __init__(self, vis: str = "vis", row: str | None = None):
        self.vis, self.row = vis, row

    def fixed(self, row: str, vis: str | None = None) -> "MeasureCtx":
        return MeasureCtx(vis or self.vis, row)

    def visible(self, final: bool) -> str:
        return "L" if final else self.vis

    def last_index(self, em: SqlEmitter, var: str | None, vis: str, ind: int) -> str:
        """The match index of the last visible row of var (any row for None), -1 if none."""
        j = em.tmp("j")
        if var is None:
            em.emit(f"{j} = {vis} - 1", ind)
            return j
        k = em.names.label_set(var)
        em.emit(f"{j} = -1", ind)
        em.emit(f"for jj in range({vis} - 1, -1, -1):", ind)
        em.emit(f"    if NM[{k}, LB[lo + jj]]:", ind)
        em.emit(f"        {j} = jj", ind)
        em.emit("        break", ind)
        return j

    def logical(self, em: SqlEmitter, e: S.Nav, ind: int) -> str:
        """The partition row of FIRST / LAST(arg, offset) in the visible rows of arg's variable, -1 if none."""
        var = var_of(e.arg)
        vis = self.visible(e.final)
        row, cnt = em.tmp("row"), em.tmp("k")
        em.emit(f"{row} = -1", ind)
        em.emit(f"{cnt} = 0", ind)
        rng = "range(L)" if e.kind == "first" else f"range({vis} - 1, -1, -1)"   # FIRST: whole match (Trino)
        em.emit(f"for jj in {rng}:", ind)
        test = "True" if var is None else f"NM[{em.names.label_set(var)}, LB[lo + jj]]"
        em.emit(f"    if {test}:", ind)
        em.emit(f"        if {cnt} == {offset(e)}:", ind)
        em.emit(f"            {row} = RB[lo + jj]", ind)
        em.emit("            break", ind)
        em.emit(f"        {cnt} += 1", ind)
        return row

    def leaf(self, em: SqlEmitter, e, ind: int) -> Val:
        if isinstance(e, S.ColRef):
            if self.row is not None:
                return em.cell(e.col, self.row, ind)
            j = self.last_index(em, e.var, self.vis, ind)
            row = em.tmp("row")
            em.emit(f"{row} = RB[lo + {j}] if {j} >= 0 else -1", ind)
            return em.cell(e.col, row, ind)
        if isinstance(e, S.Classifier):
            t, n = em.tmp("t"), em.tmp()
            if self.row is not None:
                j = em.tmp("j")
                em.emit(f"{j} = -1", ind)   # a row of the match, past the current one too (Trino)
                em.emit("for jj in range(L):", ind)
                em.emit(f"    if RB[lo + jj] == {self.row}:", ind)
                em.emit(f"        {j} = jj", ind)
                em.emit("        break", ind)
            else:
                j = self.last_index(em, e.var, self.vis, ind)
            em.emit(f"if {j} >= 0:", ind)
            em.emit(f"    {t} = {STR}", ind)
            em.emit(f"    {n} = LC[LB[lo + {j}]]", ind)
            em.emit("else:", ind)
            em.emit(f"    {t} = {NULL}", ind)
            em.emit(f"    {n} = 0", ind)
            return Val(t, n)
        if isinstance(e, S.MatchNumber):
            return Val(str(NUM), "mno")
        if isinstance(e, S.Nav):
            if self.row is not None:   # FIRST / LAST inside PREV / NEXT: the outer navigation fixed the row
                return em.at_row(e.arg, self, self.row, ind)
            if e.kind in ("first", "last"):
                row = self.logical(em, e, ind)
                return em.expr(e.arg, self.fixed(row, self.visible(e.final)), ind)
            inner = next((n for n in e.arg.walk() if isinstance(n, S.Nav)), None)
            if inner is not None:
                base = self.logical(em, inner, ind)
            else:
                j = self.last_index(em, var_of(e.arg), self.vis, ind)
                base = em.tmp("row")
                em.emit(f"{base} = RB[lo + {j}] if {j} >= 0 else -1", ind)
            row = em.tmp("row")
            sign = "-" if e.kind == "prev" else "+"
            em.emit(f"{row} = {base} {sign} {offset(e)} if {base} >= 0 else -1", ind)
            return em.at_row(e.arg, self, row, ind)
        if isinstance(e, S.SqlAgg):
            return self.aggregate(em, e, ind)
        raise refuse(f"{type(e).__name__} in MEASURES", e)

    def aggregate(self, em: SqlEmitter, e: S.SqlAgg, ind: int) -> Val:
        var = e.var if e.arg is None else var_of(e.arg)
        vis = self.visible(e.final)
        test = "True" if var is None else f"NM[{em.names.label_set(var)}, LB[lo + jj]]"
        cnt = em.tmp("cnt")
        em.emit(f"{cnt} = 0", ind)
        if e.arg is None:
            em.emit(f"for jj in range({vis}):", ind)
            em.emit(f"    if {test}:", ind)
            em.emit(f"        {cnt} += 1", ind)
            return Val(str(NUM), cnt)
        acc = em.merge(ind)
        t, n, d = acc
        em.emit(f"for jj in range({vis}):", ind)
        em.emit(f"    if {test}:", ind)
        rowname = em.tmp("row")
        em.emit(f"        {rowname} = RB[lo + jj]", ind)
        x = em.expr(e.arg, self.fixed(rowname, vis), ind + 2)
        if x.b is not None:
            raise refuse("an aggregate of truth values", e)
        em.emit(f"        if {x.t} != {NULL}:", ind)
        body = ind + 3
        em.emit(f"{cnt} += 1", body)
        em.accumulate(e.func, acc, x, body)
        return em.aggregate_value(e.func, acc, cnt, ind)


def define_source(q: S.MatchRecognize, names: Names, integral: frozenset[str], history: History) -> str:
    """`define(v, r, s, pb, pe, mno, VT, VN, VD, SC, LC, AT, AN, AD, H)`: whether row r may be labelled
    variable v (index into names.variables) in match number mno started at row s of the partition [pb, pe),
    the thread's registers H; and `args(a, r, ...)`: aggregate argument a at row r (History.args)."""
    em = SqlEmitter(names, integral)
    em.emit("@njit(DEFINE_SIG, cache=True)", 0)
    em.emit("def define(v, r, s, pb, pe, mno, VT, VN, VD, SC, LC, AT, AN, AD, H):", 0)
    for d in q.define:
        em.emit(f"if v == {names.variables.index(d.var)}:", 1)
        name = em.holds(em.expr(d.cond, DefineCtx(d.var, q, history), 2), 2)
        em.emit(f"return {name}", 2)
    em.emit("return True", 1)
    em.emit("", 0)
    em.emit("", 0)
    em.emit("@njit(cache=True, inline=\"always\")", 0)
    em.emit("def args(a, r, pb, pe, VT, VN, VD, SC, LC):", 0)
    for k, arg in enumerate(history.args):
        em.emit(f"if a == {k}:", 1)
        v = em.number(arg, ArgCtx(), 2)
        em.emit(f"return {v.t}, {v.n}, {v.d}", 2)
    em.emit(f"return {NULL}, 0, 1", 1)
    return "\n".join(em.lines) + "\n"


def measures_source(q: S.MatchRecognize, names: Names, integral: frozenset[str]) -> str:
    """`measure(k, L, vis, LB, RB, lo, pb, pe, mno, VT, VN, VD, SC, LC, NM)`: (tag, numerator, denominator)
    of MEASURES item k over the match at rows RB[lo:lo + L] labelled LB[lo:lo + L], vis of them visible."""
    em = SqlEmitter(names, integral)
    em.emit("@njit(cache=True, inline=\"always\")", 0)
    em.emit("def measure(k, L, vis, LB, RB, lo, pb, pe, mno, VT, VN, VD, SC, LC, NM):", 0)
    for k, m in enumerate(q.measures):
        em.emit(f"if k == {k}:", 1)
        v = em.expr(m.expr, MeasureCtx(), 2)
        if v.b is not None:
            em.emit(f"return ({NULL} if {v.b} == 2 else {BOOL}), (1 if {v.b} == 1 else 0), 1", 2)
        else:
            em.emit(f"return {v.t}, {v.n}, {v.d}", 2)
    em.emit(f"return {NULL}, 0, 1", 1)
    return "\n".join(em.lines) + "\n"
