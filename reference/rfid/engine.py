"""The SASE RFID engine (spec/002 §3–4): the optimized plan SSC → σ → (WD) → NG → TF as a second reference.

`SSCEngine().compile(query)` returns an `SSCProgram` with the interface of the NFA^b reference program
(`feed`, `close`, `run`, `counters`, `engine_name`). It runs flat SEQ patterns of single-event components
(ANY(...) allowed, negation anywhere) under skip-till-any-match, in both dialects ("rfid" for the
`EVENT ...` form: the missing-attribute rule and the A4(a) negated-end rule; "sase+" for `PATTERN ...`).
Everything else is refused at compile time with `Unsupported`.

Plan options (defaults: the paper's final configuration, Fig. 6):
- `pais`: partition the stacks on the first equivalence test [attr] (PAIS);
- `equivalence`: how the further equivalence tests run: "df" (Dynamic Filtering in construction),
  "multi_pais" (Multi-PAIS in the scan, then σ) or "sigma" (σ only);
- `push_predicates`: one-variable predicates filter transitions in the scan (else σ);
- `push_window`: the window prunes the stacks and stops the DFS (else a WD operator after σ).
With all four off (and equivalence="sigma") the plan is the paper's basic plan.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from cepkit.front.binding import WindowBound, attribute_uses, bind_batch, resolve_type
from cepkit.core.errors import QueryError, Unsupported
from cepkit.front.evaluate import Env, evaluate, truth
from cepkit.core.events import EventBatch
from cepkit.front.language import ast as A
from cepkit.front.language.printer import expr_to_text
from cepkit.core.contract import Engine, Program
from cepkit.core.match import Match
from cepkit.core.match_table import Layout
from cepkit.front.nfab.compile import conjuncts, expand_equiv, to_cnf
from cepkit.reference.nfab.runs import EventStore, drive
from cepkit.core.counters import Counters
from cepkit.reference.rfid.negation import Negation, NegationOperator
from cepkit.reference.rfid.ssc import SSC

ENGINE = "reference-ssc"
EQUIVALENCE_MODES = ("df", "multi_pais", "sigma")
DEFAULTS: dict[str, Any] = {"selection": "all", "pais": True, "equivalence": "df",
                            "push_predicates": True, "push_window": True}


@dataclass
class Plan:
    """Where every part of the query runs."""

    query: A.Query
    positives: tuple[A.Component, ...]
    negations: list[Negation]
    simple: list[list[A.Expr]]            # per positive component: predicates pushed into the scan
    sigma: list[A.Expr]                   # σ: the remaining predicates over the positives
    eq_attrs: tuple[str, ...]             # top-level equivalence tests [attr], in text order
    partition: str | None                 # PAIS attribute
    df: tuple[str, ...]                   # Dynamic Filtering attributes
    multi: tuple[str, ...]                # Multi-PAIS further attributes
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def rfid(self) -> bool:
        return self.query.dialect == "rfid"

    def describe(self) -> str:
        o = self.options
        comps = ", ".join(f"{c.var}:{'|'.join(c.types)}" for c in self.positives)
        window = ("none" if self.query.window is None else
                  "pushed into SS and SC" if o["push_window"] else "WD after σ")
        lines = [f"SSC({comps})  dialect={self.query.dialect}  window={window}"]
        lines.append(f"  PAIS on [{self.partition}]" if self.partition else "  AIS (no partitioning)")
        if self.df:
            lines.append(f"  Dynamic Filtering on {', '.join(f'[{a}]' for a in self.df)}")
        if self.multi:
            lines.append(f"  Multi-PAIS on {', '.join(f'[{a}]' for a in self.multi)}")
        for c, preds in zip(self.positives, self.simple):
            if preds:
                lines.append(f"  scan filter {c.var}: " + " ∧ ".join(expr_to_text(p) for p in preds))
        lines.append("σ: " + (" ∧ ".join(expr_to_text(p) for p in self.sigma) or "True"))
        for neg in self.negations:
            lines.append(f"NG !({'|'.join(neg.component.types)} {neg.component.var}) gap {neg.gap}: "
                         + (" ∧ ".join(expr_to_text(p) for p in neg.clauses) or "True"))
        lines.append("TF")
        return "\n".join(lines)


def _unsupported(construct: str, pos: A.Pos) -> Unsupported:
    return Unsupported(ENGINE, construct, pos.line or None, pos.column or None)



def _check_options(options: dict[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(options) - set(DEFAULTS))
    if unknown:
        raise QueryError(f"engine '{ENGINE}' has no option '{unknown[0]}'", expected=list(DEFAULTS))
    opts = {**DEFAULTS, **options}
    sel = opts["selection"]
    if sel == "non_overlap":
        raise Unsupported(ENGINE, "the non-overlap output selection")
    if sel != "all":
        raise QueryError(f"unknown output selection '{sel}'", expected=["all", "non_overlap"])
    if opts["equivalence"] not in EQUIVALENCE_MODES:
        raise QueryError(f"unknown equivalence plan '{opts['equivalence']}'", expected=list(EQUIVALENCE_MODES))
    for name in ("pais", "push_predicates", "push_window"):
        if not isinstance(opts[name], bool):
            raise QueryError(f"option '{name}' must be true or false, not {opts[name]!r}")
    if opts["equivalence"] == "multi_pais" and not opts["pais"]:
        raise QueryError("equivalence='multi_pais' needs pais=True (construction runs in the first PAIS)")
    return opts


def _refuse(q: A.Query) -> tuple[A.Component, ...]:
    """The components of a flat SEQ this engine runs, or Unsupported naming the first construct it cannot."""
    if q.dialect == "sase1":
        raise _unsupported("SASE 1.0 dialect", q.pos)
    p = q.pattern
    items = (p,) if isinstance(p, A.Component) else None
    if isinstance(p, A.Conj):
        raise _unsupported("AND(...) patterns", p.pos)
    if isinstance(p, A.Disj):
        raise _unsupported("OR(...) patterns", p.pos)
    if items is None:
        items = p.components
    for item in items:
        if isinstance(item, A.Conj):
            raise _unsupported("AND(...) patterns", item.pos)
        if isinstance(item, A.Disj):
            raise _unsupported("OR(...) patterns", item.pos)
        if not isinstance(item, A.Component):
            raise _unsupported("nested patterns", item.pos)
    for c in items:
        if c.kleene:
            raise _unsupported(f"Kleene closure ({c.event_type}+ {c.var}[])", c.pos)
    if q.strategy is not A.Strategy.SKIP_TILL_ANY_MATCH:
        raise _unsupported(f"the {q.strategy.value} event selection strategy (only skip_till_any_match)", q.pos)
    roots = ([q.where] if q.where is not None else []) + [r.expr for r in q.returns]
    for root in roots:
        for node in root.walk():
            if isinstance(node, A.AttrRef) and node.index is not None:
                raise _unsupported(f"a[i]-style indexing ({node.var}[{node.index.value}])", node.pos)
            if isinstance(node, A.LenRef):
                raise _unsupported(f"{node.var}.LEN", node.pos)
            if isinstance(node, A.Agg):
                raise _unsupported(f"aggregates ({node.func})", node.pos)
    return tuple(items)


def compile_plan(q: A.Query, **options: Any) -> Plan:
    """Check that the engine can run the query and decide where each predicate goes."""
    opts = _check_options(options)
    comps = _refuse(q)
    positives = tuple(c for c in comps if not c.negated)
    if not positives:
        raise QueryError("the pattern needs at least one component that is not negated", q.pattern.pos.line or None,
                         q.pattern.pos.column or None)
    if q.dialect == "rfid" and q.window is None:  # spec/002 §7 A6 (a), as the pattern model decides
        for k, c in enumerate(comps):
            if c.negated and (all(x.negated for x in comps[:k]) or all(x.negated for x in comps[k + 1:])):
                raise QueryError("a negated start or end needs WITHIN in the SASE RFID language "
                                 "(spec/002 §2.3: it is of use only with a window)", c.pos.line or None,
                                 c.pos.column or None)
    n = len(positives)
    index = {c.var: j for j, c in enumerate(positives)}
    negated = {c.var for c in comps if c.negated}
    neg_clauses: dict[str, list[A.Expr]] = {v: [] for v in negated}
    simple: list[list[A.Expr]] = [[] for _ in range(n)]
    sigma: list[A.Expr] = []
    eq_attrs: list[str] = []
    eq_clauses: dict[str, list[A.Expr]] = {}

    def place(clause: A.Expr, eq_attr: str | None) -> None:
        vars_ = {node.var for node in clause.walk() if isinstance(node, A.AttrRef)}
        negs = vars_ & negated
        if len(negs) > 1:
            raise QueryError("a predicate may mention only one negated variable (" + ", ".join(sorted(negs)) + ")",
                             clause.pos.line or None, clause.pos.column or None)
        if negs:
            neg_clauses[negs.pop()].append(clause)
        elif eq_attr is not None:
            eq_clauses.setdefault(eq_attr, []).append(clause)
        elif len(vars_) == 1 and opts["push_predicates"]:
            simple[index[vars_.pop()]].append(clause)
        else:
            sigma.append(clause)

    if q.where is not None:
        for conj in conjuncts(q.where):
            eq_attr = None
            if isinstance(conj, A.EquivTest) and conj.value is None:
                eq_attr = conj.attr
                if eq_attr in eq_attrs:
                    continue
                eq_attrs.append(eq_attr)
            for clause in to_cnf(expand_equiv(conj, comps)):
                place(clause, eq_attr)

    partition, df, multi = None, (), ()
    attrs = tuple(a for a in eq_attrs if eq_clauses.get(a)) if n > 1 else ()
    if attrs:
        if opts["pais"]:
            partition, rest = attrs[0], attrs[1:]
        else:
            rest = attrs
        if opts["equivalence"] == "df":
            df = rest
        else:
            if opts["equivalence"] == "multi_pais":
                multi = rest
            for a in rest:
                sigma.extend(eq_clauses[a])

    negations, gap = [], 0
    for c in comps:
        if c.negated:
            negations.append(Negation(c, gap, tuple(neg_clauses[c.var])))
        else:
            gap += 1
    return Plan(q, positives, negations, simple, sigma, tuple(eq_attrs), partition, tuple(df), tuple(multi), opts)


class SSCEngine(Engine):
    """Compile queries to SSC programs (spec/002's optimized plan)."""

    name = ENGINE
    language = "sase"
    state_note = ("its state is its active instance stacks, one instance per event and state (no Kleene "
                  "closure), linear in the events it keeps; bound the output with limit (--limit)")

    def build(self, q: A.Query, **options: Any) -> "SSCProgram":
        return SSCProgram(compile_plan(q, **options))


class SSCProgram(Program):
    """A compiled query ready to consume a stream: `feed(batch)` then `close()`."""

    engine_name = ENGINE
    language = "sase"

    def __init__(self, plan: Plan):
        self.plan = plan
        q = plan.query
        self.query = q
        self.counters = Counters()
        self.store = EventStore(sorted(attribute_uses(q)))
        self.vars = [c.var for c in plan.positives]
        self.missing_true = plan.rfid
        self.null_logic = q.conventions.null_logic   # read once: every Env evaluates under it
        self.types: dict[str, tuple[str, ...]] | None = None
        self.ts_unit: str | None = None
        self.window: WindowBound | None = None
        o = plan.options
        self.ssc = SSC(len(plan.positives), ts=self.store.ts, types=self.store.types, value=self.store.value,
                       admit=self._admit, counters=self.counters, partition=plan.partition, df=plan.df,
                       multi=plan.multi, window_in_scan=o["push_window"], window_in_construction=o["push_window"],
                       missing_true=self.missing_true)
        self.ng = NegationOperator(plan.negations, len(plan.positives), self.vars, ts=self.store.ts,
                                   types=self.store.types, value=self.store.value, counters=self.counters,
                                   missing_true=self.missing_true, rfid=plan.rfid, null_logic=self.null_logic)

    @property
    def sequences_constructed(self) -> int:
        """Sequences SSC has emitted (after Dynamic Filtering, before σ)."""
        return self.ssc.sequences_constructed

    def explain(self) -> str:
        return self.plan.describe()

    @property
    def variables(self) -> list[str]:
        """The positive variables, in pattern order (the output columns)."""
        return [c.var for c in self.plan.positives]

    def stacks(self) -> list[dict[Any, list[tuple[Any, Any]]]]:
        """Per positive component, per partition: [(event id, RIP event id or None)] bottom first."""
        ids = self.store.ids
        return [{key: [(ids[p], None if r is None else ids[r]) for p, r in rows] for key, rows in state.items()}
                for state in self.ssc.snapshot()]

    # ------------------------------------------------------------------ stream interface
    def _feed(self, batch: EventBatch, progress: Callable[[int, int], None] | None = None) -> list[Match]:
        """Consume a batch; return the matches it completes (and held ones it releases), in order."""
        self._bind(batch)
        return drive(self.store.add(batch), self._on_event, progress, self.budget)

    def _close(self) -> list[Match]:
        """End of stream: release the matches held for a trailing negation that nothing blocked."""
        return [self._match(seq) for seq in self.ng.close()]

    @property
    def layout(self) -> Layout:
        """Positive variables in pattern order, then the RETURN items."""
        return Layout(tuple(self.variables), tuple(r.name for r in self.query.returns))

    # ------------------------------------------------------------------ binding
    def _bind(self, batch: EventBatch) -> None:
        comps = [c for c in self.plan.positives] + [n.component for n in self.plan.negations]
        types = {c.var: tuple(resolve_type(t, batch.type_names, c.pos) for t in c.types) for c in comps}
        if bind_batch(self, self.query, batch, types, self.store.ts[-1] if self.store.ts else None):
            self.ssc.bind([frozenset(self.types[c.var]) for c in self.plan.positives], self.window)
            for neg in self.plan.negations:
                neg.types = frozenset(self.types[neg.component.var])
            self.ng.bind(self.window)

    # ------------------------------------------------------------------ operators
    def _clause(self, clause: A.Expr, env: Env) -> bool:
        self.counters.predicate_evaluations += 1
        return truth(evaluate(clause, env))

    def _admit(self, i: int, pos: int) -> bool:
        """The simple predicates of positive component i, pushed into the scan."""
        preds = self.plan.simple[i]
        if not preds:
            return True
        env = Env({}, self.store.value, self.vars[i], pos, self.missing_true, self.null_logic)
        return all(self._clause(c, env) for c in preds)

    def _sigma(self, seq: tuple[int, ...]) -> bool:
        if not self.plan.sigma:
            return True
        env = Env({v: (p,) for v, p in zip(self.vars, seq)}, self.store.value, missing_true=self.missing_true,
                  null_logic=self.null_logic)
        return all(self._clause(c, env) for c in self.plan.sigma)

    def _wd(self, seq: tuple[int, ...]) -> bool:
        """WD when the window is not pushed into SSC: last − first inside the window."""
        if self.window is None or self.plan.options["push_window"]:
            return True
        ts = self.store.ts
        return self.window.inside(ts[seq[0]], seq[0], ts[seq[-1]], seq[-1])

    def _on_event(self, pos: int) -> list[Match]:
        self.ng.observe(pos)
        released = self.ng.release(pos)
        confirmed = [seq for seq in self.ssc.on_event(pos) if self._sigma(seq) and self._wd(seq) and self.ng.emit(seq)]
        self.ng.prune(pos)
        return [self._match(seq) for seq in released + sorted(confirmed)]

    def _match(self, seq: tuple[int, ...]) -> Match:
        """TF: the positive events' ids per variable; ts of the last positive; RETURN values if any."""
        ids = self.store.ids
        bindings = {var: (ids[p],) for var, p in zip(self.vars, seq)}
        payload = {}
        if self.query.returns:
            env = Env({v: (p,) for v, p in zip(self.vars, seq)}, self.store.value, null_logic=self.null_logic)
            payload = {r.name: evaluate(r.expr, env) for r in self.query.returns}
        return Match.make(bindings, self.store.ts[seq[-1]], payload)
