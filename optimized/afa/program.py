"""The optimized AFA program: the engine contract (core/contract.py) over the Numba kernel.

Each feed reads the batch into typed arrays (optimized/afa/inputs.py), runs the kernel over all of it in
one call and returns the output rows as a match table with the reference's layout (reference/afa/engine.py:
sign, lifetime_start, lifetime_end, ts = LE, one column per register field). An element the reference
refuses gets the reference's error (EventError, same message, row and column); the elements before it are
applied and their rows are handed over with the next feed or close, as the reference does.
"""
from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from typing import Any

import numpy as np

from cepkit.optimized.afa import kernel as K
from cepkit.optimized.afa.automaton import automaton
from cepkit.optimized.afa.exprgen import ENGINE, HEAD, Texts, fire_source, refuse
from cepkit.optimized.afa.inputs import ARC, read_batch
from cepkit.optimized.afa.state import State
from cepkit.optimized.bytecode import INT64_MAX, NULL, NUM, STR
from cepkit.optimized.cache import bounded, load_module
from cepkit.front.afa.changes import ChangeRecords
from cepkit.front.afa.stream import OutPunctuation, Output
from cepkit.core.contract import Program
from cepkit.core.errors import EventError, QueryError, Unsupported
from cepkit.core.match_table import Layout, MatchTable
from cepkit.front.afa.model import INF as PINF
from cepkit.front.afa.model import Lifetime, admitted_arc
from cepkit.front.afa.stream import ArcDelete, ArcInsert, ArcPunctuate
from cepkit.optimized.afa.automaton import lifetime_row
from cepkit.optimized.afa.inputs import Batch
from cepkit.optimized.afa.loop import IGNORABLE, run

MESSAGES = {
    K.ERR_BELOW: "{what} of {event} below the current punctuation {t_e}",
    K.ERR_EMPTY: "insertion of {event}: empty lifetime (LE must be below RE)",
    K.ERR_DUPLICATE: ("insertion of {event}: another event already has LE {le} "
                      "(timestamps must be unique, spec/003 A2)"),
    K.ERR_NEVER: "retraction of {event}, an event never inserted (or already retracted)",
    K.ERR_NO_SEQ: "insertion of {event}: AFA+O needs a sequence number",
    K.ERR_SEQ_USED: "insertion of {event}: sequence number {seq} is already used",
    K.ERR_SEQ_ORDER: ("insertion of {event}: its sequence number disagrees with the LE order of the events "
                      "received (spec/003 A17)"),
}
COLUMNS = {K.ERR_BELOW: "le", K.ERR_EMPTY: "re", K.ERR_DUPLICATE: "le", K.ERR_NEVER: None, K.ERR_NO_SEQ: "seq",
           K.ERR_SEQ_USED: "seq", K.ERR_SEQ_ORDER: "seq"}
FLAVORS = {"basic": K.BASIC, "seq": K.SEQ, "cleanse": K.CLEANSE, "ignorable": IGNORABLE}


def _tagged(t: int, n: int, d: int, texts: Texts) -> Any:
    if t == NULL:
        return None
    if t == STR:
        return texts.values[n]
    return n if d == 1 else Fraction(n, d)


class OptimizedAfaProgram(ChangeRecords, Program):
    """The AFA over the kernel's typed arrays; like the reference's program it keeps the whole change stream
    (`outputs`, `changes()`, the net result: `net_output()`, `net()`), as the kernel's output arrays until
    asked for."""

    engine_name = ENGINE
    language = "afa"

    def __init__(self, afa: Any, flavor: str = "basic", sigma: Any = math.inf):
        self.afa = afa
        self.flavor = flavor
        self.sigma = sigma
        # Cleanse compares integer LEs: LE < t + sigma is LE < t + ceil(sigma)
        self._sigma = (0, 1) if sigma == math.inf else (math.ceil(sigma), 0)
        self._waiting_batches: list = []   # Cleanse: batches with insertions still waiting (for messages)
        self.schema = tuple(afa.schema or ())
        if not self.schema and tuple(afa.initial or ()) != ():
            raise refuse("an AFA built in Python (a register without a schema)")
        self.texts = Texts()
        self.slots: dict[str, int] = {}
        self.auto = automaton(afa)
        constants: list[int] = []   # what `fire` reads from S (its source depends on the AFA's shape only)
        self.fire = load_module(bounded(fire_source(afa, self.texts, self.slots, self.auto.branches, constants),
                                        ENGINE, "fences and transfers"), "cepkit_afa").fire
        self.state = State(len(self.schema), len(self.slots), self._initial(), constants)
        a, st = self.auto, self.state
        K.init_starts(self.fire, st.S, st.R, st.E, a.start, a.eps_ptr, a.eps_arc, a.dst, a.branch, a.lifetimes, 0)
        st.S[K.N_RESV] = max(int(st.S[K.N_START]), a.closure)   # rows kept for the start closure
        st.S[K.N_NODE] = st.S[K.N_RESV]
        # dynamic patterns: the arcs as the reference keeps them (for its checks)
        self._arcs = [arc for _, arc in a.instances]    # every arc instance not cleaned by a punctuation
        self._live = {arc.name: i for i, (_, arc) in enumerate(a.instances)}   # active arcs by name
        self._states = set(afa.states)
        self._arc_floor: Any = -math.inf   # the latest arc punctuation
        self.closed = False
        self.elements = 0
        self._outputs: list = []     # the change stream converted so far (Output / OutPunctuation)
        self._pending: list = []     # the kernel output and punctuation arrays handed over since `outputs` was read
        self.punctuations: list = []
        self._layout = Layout(payload=self.schema, speculative=True)

    def _initial(self) -> np.ndarray:
        """The initial register as a node row's register part: (tag, numerator, denominator) per field."""
        nf = len(self.schema)
        t, n, d = np.zeros(nf, np.int64), np.zeros(nf, np.int64), np.ones(nf, np.int64)
        for k, v in enumerate(tuple(self.afa.initial or ())):
            if v is None:
                t[k] = NULL
            elif isinstance(v, str):
                t[k], n[k] = STR, self.texts.code(v)
            elif isinstance(v, (int, Fraction)) and not isinstance(v, bool):
                v = Fraction(v)
                if abs(v.numerator) > INT64_MAX or v.denominator > INT64_MAX:
                    raise refuse(f"the initial register value {v} (beyond 64-bit integers)")
                t[k], n[k], d[k] = NUM, v.numerator, v.denominator
            else:
                raise refuse(f"the initial register value {v!r}")
        return np.stack([t, n, d], axis=1).reshape(-1)

    @property
    def layout(self) -> Layout:
        return self._layout

    @property
    def query(self) -> Any:
        """The AFA it runs."""
        return self.afa

    @property
    def outputs(self) -> list:
        """The change stream so far: Output and OutPunctuation, in arrival order (converted when asked)."""
        for out, puncts in self._pending:
            self._record(out, (out[:, HEAD::3], out[:, HEAD + 1::3], out[:, HEAD + 2::3]), puncts)
        self._pending = []
        return self._outputs

    # ------------------------------------------------------------------ the contract
    def _feed(self, batch: Any, progress=None) -> MatchTable:
        if self.closed:
            raise EventError("the AFA program is closed: feed comes before close")
        b = read_batch(batch, self.afa, self.slots, self.texts)
        st = self.state
        arcs = np.flatnonzero(b.kind == ARC)
        start = 0
        for end in list(arcs) + [len(b)]:
            end = int(end)
            if end > start:
                part = b.slice(start, end)
                self._run(part, 0)
                status = int(st.S[K.STATUS])
                done = int(st.S[K.AT]) if status != K.OK else len(part)
                self.elements += done
                if status != K.OK:
                    self._error(status, part, done)
            if end < len(b):
                self._arc(b.element(end), b.rows[end])
                self.elements += 1
            start = end + 1
            if progress is not None:
                progress(min(start, len(b)), len(b))
        return self._hand_over()

    # ------------------------------------------------------------------ dynamic patterns (spec/003 §6)
    def _arc(self, element: Any, row: Any) -> None:
        """Apply an arc row as the reference does (reference/afa/operator.py `_arc_insert`, `_arc_delete`): in
        default mode an inserted arc applies to LEs above t_curr and a deleted one up to t_curr, so no stored
        list changes; an explicit lifetime (an inserted arc's, or a retracted arc's) re-derives the lists it
        touches (the kernel's `rediff`)."""

        def refused(construct: str) -> Unsupported:
            exc = Unsupported(ENGINE, construct)
            exc.message = f"{exc.message}, at input row {row}"
            exc.args = (str(exc),)
            return exc

        if self.flavor != "basic":
            raise refused(f"dynamic patterns under flavor {self.flavor}")
        if any(x.epsilon for x in self.afa.standby):
            raise refused("dynamic patterns with standby epsilon-arcs")
        st, a = self.state, self.auto
        if isinstance(element, ArcPunctuate):
            self._arc_floor = max(self._arc_floor, element.t)
            return
        t_p = int(st.S[K.T_P])
        t_p = -PINF if t_p == K.MINF else t_p
        if t_p != -PINF:   # the reference drops the arcs a punctuation ended (and forgets their names)
            kept = [x for x in self._arcs if not x.lifetime.ended_by(t_p)]
            ids = {id(x) for x in kept}
            self._live = {n: i for n, i in self._live.items() if id(a.instances[i][1]) in ids}
            self._arcs = kept
        t_curr = max(int(st.S[K.T_E]), int(st.S[K.MAX_LE]))
        t_curr = -PINF if t_curr == K.MINF else t_curr
        floor = max(t_p, self._arc_floor)
        redo = None
        try:
            if isinstance(element, ArcInsert):
                arc = admitted_arc(element.arc, element.lifetime, self._live, self._states, self._arcs,
                                   self.afa.name, t_curr, floor, EventError)
                lifetime = arc.lifetime
                if arc.dst not in self._states:
                    self._states.add(arc.dst)
                    if arc.is_final:
                        a.final[a.index[arc.dst]] = True
                branch = next(k for k, x in enumerate(a.branches) if x.name == arc.name)
                a.instances.append((branch, arc))
                self._arcs.append(arc)
                self._live[arc.name] = len(a.instances) - 1
                if not (lifetime.lo_open and lifetime.lo >= t_curr):
                    redo = lifetime
            elif isinstance(element, ArcDelete):
                i = self._live.get(element.name)
                if i is None:
                    raise QueryError(f"arc deletion: no active arc named '{element.name}'")
                branch, arc = a.instances[i]
                old = arc.lifetime
                if element.explicit:
                    if old.lo < floor:
                        raise EventError(f"explicit deletion of arc '{element.name}' with lifetime {old}: it "
                                         f"starts below the current punctuation {floor}")
                    a.instances[i] = (branch, arc.with_lifetime(Lifetime(PINF, PINF)))   # never alive
                    self._arcs = [x for x in self._arcs if x is not arc]
                    redo = old
                elif not (old.hi < t_curr or (old.hi == t_curr and not old.hi_closed)):
                    new = arc.with_lifetime(Lifetime(old.lo, t_curr, old.lo_open, hi_closed=True))
                    a.instances[i] = (branch, new)
                    self._arcs = [new if x is arc else x for x in self._arcs]
                del self._live[element.name]
        except Unsupported:
            raise
        except EventError as exc:
            raise EventError(exc.message, row=row, column=exc.column) from None
        except QueryError as exc:
            raise QueryError(f"at input row {row}: {exc.message}", exc.line, exc.column) from None
        a.dynamic = True
        a.build()
        if redo is not None:
            self._rediff(redo)

    def _rediff(self, lt: Any) -> None:
        """Re-derive the lists from the first entry at or after lt.lo to the first unchanged one past lt.hi."""

        lo, _lo_open, hi, hi_closed = lifetime_row(lt)
        if lt.lo != -math.inf:
            lo = math.ceil(lt.lo)   # the first entry with LE >= lo, as bisect_left(keys, lo)
        if lt.hi != math.inf and lt.hi != int(lt.hi):
            hi, hi_closed = math.floor(lt.hi), 1   # past: LE > hi
        elif lt.hi != math.inf:
            hi, hi_closed = int(lt.hi), int(lt.hi_closed)
        row = np.zeros((1, self.state.Q.shape[1]), np.int64)
        row[0, K.E_LE], row[0, K.E_RE], row[0, K.E_HASH] = lo, hi, hi_closed
        self._run(Batch(np.array([K.REDIFF], np.int8), row, [None], None), 0)

    def _run(self, b, flush: int) -> None:
        st, a = self.state, self.auto
        linked = self.flavor == "ignorable"   # its fan also bounds one closure's nodes (optimized/afa/loop.py)
        try:
            grown = run(self.fire, st.S, st.K, st.R, st.X, st.L, st.E, st.O, st.P, st.Q, b.kind, b.rows_x, a.ev_ptr,
                        a.ev_arc, a.eps_ptr, a.eps_arc, a.dst, a.final, a.ignorable,
                        max(a.fan, a.closure) + 1 if linked else a.fan, FLAVORS[self.flavor], self._sigma[0],
                        self._sigma[1], flush, a.branch, a.lifetimes, int(a.dynamic))
        except OverflowError:
            self.closed = True
            raise refuse("values beyond 64-bit integers (a fence or transfer overflowed; "
                         "the program is closed)") from None
        st.take(grown)
        if self.flavor == "cleanse":
            waiting = st.waiting()
            self._waiting_batches = [x for x in self._waiting_batches + [b]
                                     if np.isin(x.rows_x[x.kind == K.INSERT, K.E_LE], waiting).any()]

    def _close(self) -> MatchTable:
        if not self.closed and self.flavor == "cleanse":

            empty = Batch(np.zeros(0, np.int8), np.zeros((0, self.state.Q.shape[1]), np.int64), [], None)
            self._run(empty, 1)   # end of input: Cleanse releases what it still holds
            if int(self.state.S[K.STATUS]) != K.OK:
                self._error(int(self.state.S[K.STATUS]), empty, -1)
        self.closed = True
        return self._hand_over()

    def _error(self, status: int, b, at: int) -> None:
        if status == K.ERR_RETRACT_SEQ:   # as reference/afa/engine.py words a flavour's refusal
            exc = Unsupported(ENGINE, "input retractions under flavor seq (sequence numbers cannot be renumbered, "
                                      "spec/003 A17)")
            exc.message = f"{exc.message}, at input row {b.rows[at]} (flavors that run it: basic)"
            exc.args = (str(exc),)
            raise exc
        if status == K.ERR_RELEASED_EMPTY:   # a waiting insertion, released by punctuation `at` (or the end)
            le = int(self.state.S[K.AUX])
            for x in reversed(self._waiting_batches):
                hit = np.flatnonzero((x.kind == K.INSERT) & (x.rows_x[:, K.E_LE] == le))
                if len(hit):
                    e = x.element(int(hit[-1])).event
                    break
            message = MESSAGES[K.ERR_EMPTY].format(event=e.describe())
            if at < 0:
                raise EventError(f"at the end of input: {message}", column="re")
            raise EventError(message, row=b.rows[at], column="re")
        element = b.element(at)
        e = element.event
        what = "insertion" if b.kind[at] == K.INSERT else "retraction"
        t_e = int(self.state.S[K.T_E])
        message = MESSAGES[status].format(what=what, event=e.describe(), t_e=t_e, le=e.le, seq=e.seq)
        raise EventError(message, row=b.rows[at], column=COLUMNS[status])

    def _hand_over(self) -> MatchTable:
        """The output rows since the last hand-over, as a table; the output buffer starts again."""
        st = self.state
        n = int(st.S[K.N_OUT])
        out = st.O[:n].copy()
        regs = (out[:, HEAD::3], out[:, HEAD + 1::3], out[:, HEAD + 2::3])
        new_p = st.P[:int(st.S[K.N_PUNCT])].copy()   # (a feed that failed hands its rows over now)
        st.S[K.N_OUT] = 0
        st.S[K.N_PUNCT] = 0
        self.punctuations += [int(t) for t in new_p[:, 0]]
        if len(out) or len(new_p):
            self._pending.append((out, new_p))   # the change stream, converted when asked (`outputs`)
        return self._table(out, regs)

    def _payload_column(self, k: int, regs) -> Any:
        t, n, d = regs[0][:, k], regs[1][:, k], regs[2][:, k]
        if (t == NUM).all() and (d == 1).all():
            return n
        return [_tagged(int(a), int(b), int(c), self.texts) for a, b, c in zip(t, n, d)]

    def _table(self, out: np.ndarray, regs) -> MatchTable:
        le, re_ = out[:, K.O_LE], out[:, K.O_RE]
        ends: Any = re_
        if (re_ == K.INF).any():
            ends = [math.inf if x == K.INF else int(x) for x in re_]
        payload = {f: self._payload_column(k, regs) for f, k in zip(self._layout.payload_columns(),
                                                                    range(len(self.schema)))}
        return MatchTable.from_columns(self._layout, {}, le, payload, sign=out[:, K.O_SIGN],
                                       lifetime=(le, ends))

    def _record(self, out: np.ndarray, regs, puncts: np.ndarray) -> None:
        cols = [self._payload_column(k, regs) for k in range(len(self.schema))]
        at = 0
        for t, before in list(map(tuple, puncts)) + [(None, len(out))]:
            for i in range(at, int(before)):
                register = tuple(int(c[i]) if isinstance(c, np.ndarray) else c[i] for c in cols)
                re_ = math.inf if out[i, K.O_RE] == K.INF else int(out[i, K.O_RE])
                self._outputs.append(Output(int(out[i, K.O_SIGN]), register, int(out[i, K.O_LE]), re_))
            at = int(before)
            if t is not None:
                self._outputs.append(OutPunctuation(int(t)))

    def net_output(self) -> Counter:
        """(register, le, re) -> count: output insertions minus retractions."""
        c: Counter = Counter()
        for o in self.outputs:
            if isinstance(o, Output):
                c[o.key] += o.sign
                if c[o.key] == 0:
                    del c[o.key]
        return c

    def live_state(self) -> dict:
        st = self.state
        return {"entries": int(st.S[K.N_ENT]), "nodes": st.live_nodes(), "pool": int(st.S[K.N_NODE]),
                "bytes": st.nbytes()}
