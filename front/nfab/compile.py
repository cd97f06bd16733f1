"""Compile a SASE+ query to NFA^b edge formulas (spec/000 §4.2).

WHERE is put in conjunctive normal form (equivalence tests expanded); each clause goes onto the edge
of the state that instantiates its *last identifier*: the begin edge of a singleton or `a[1]`, the take
edge of `a[i]` (for `a[i]`, `a[i-1]`, `agg(a[..i-1])`), or the proceed edge of `a[i]` (for
`a[a.LEN]`, `a.LEN`, `agg(a[])`). Clauses that mention a negated variable form that negation's filter.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from cepkit.core.errors import QueryError, Unsupported
from cepkit.front.language import ast as A
from cepkit.front.language.dialects import sase1_where
from cepkit.front.language.printer import expr_to_text, window_to_text

MAX_CLAUSES = 512

BEGIN, TAKE, PROCEED = 0, 1, 2


@dataclass(frozen=True)
class Formula:
    """An edge formula: an optional event-type check plus clauses that must all hold."""

    event_type: str | None
    clauses: tuple[A.Expr, ...] = ()

    def text(self) -> str:
        parts = [f"e.type = {self.event_type}"] if self.event_type else []
        parts += [expr_to_text(c, 3) for c in self.clauses]
        return " ∧ ".join(parts) if parts else "True"


@dataclass(frozen=True)
class Negation:
    """A negated component in gap `gap` (0 = before the first positive, n = after the last)."""

    component: A.Component
    gap: int
    formula: Formula


@dataclass(frozen=True)
class NFAb:
    """The compiled automaton: per positive component j, begin/take/proceed formulas."""

    query: A.Query
    components: tuple[A.Component, ...]
    begin: tuple[Formula, ...]
    take: tuple[Formula | None, ...]
    proceed: tuple[Formula | None, ...]
    negations: tuple[Negation, ...]
    partition_attrs: tuple[str, ...]
    strategy: A.Strategy
    window: A.Window | None
    index: dict[str, int] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return len(self.components)


def _ref_level(node: A.Expr, index: dict[str, int], negated: set[str]) -> tuple | None:
    """(component, BEGIN|TAKE|PROCEED) at which an identifier is instantiated; ('neg', var) for negated."""
    var = getattr(node, "var", None)
    if var is None or not isinstance(node, (A.AttrRef, A.LenRef, A.Agg)):
        return None
    if var in negated:
        return ("neg", var)
    j = index[var]
    if isinstance(node, A.AttrRef):
        if node.index in (None, A.Index.FIRST):
            return (j, BEGIN)
        if node.index in (A.Index.CURRENT, A.Index.PREV):
            return (j, TAKE)
        return (j, PROCEED)
    if isinstance(node, A.Agg) and node.scope is A.AggScope.PREFIX:
        return (j, TAKE)
    return (j, PROCEED)


def expand_equiv(e: A.Expr, comps: tuple[A.Component, ...]) -> A.Expr:
    """Replace `[attr]` by equalities of every variable with the first positive variable."""
    if isinstance(e, A.EquivTest) and e.value is not None:  # [attr = 'v']: every variable has that value
        eqs = []
        for c in comps:
            eqs.append(A.Compare("=", A.AttrRef(c.var, e.attr, A.Index.FIRST if c.kleene else None, e.pos), e.value, e.pos))
            if c.kleene:
                eqs.append(A.Compare("=", A.AttrRef(c.var, e.attr, A.Index.CURRENT, e.pos), e.value, e.pos))
        return A.And(tuple(eqs), e.pos)
    if isinstance(e, A.EquivTest):
        first = next(c for c in comps if not c.negated)
        anchor_ref = A.AttrRef(first.var, e.attr, A.Index.FIRST if first.kleene else None, e.pos)
        eqs: list[A.Expr] = []
        for c in comps:
            if c.kleene:
                if c is not first:
                    eqs.append(A.Compare("=", A.AttrRef(c.var, e.attr, A.Index.FIRST, e.pos), anchor_ref, e.pos))
                eqs.append(A.Compare("=", A.AttrRef(c.var, e.attr, A.Index.CURRENT, e.pos), anchor_ref, e.pos))
            elif c is not first:
                eqs.append(A.Compare("=", A.AttrRef(c.var, e.attr, None, e.pos), anchor_ref, e.pos))
        return A.And(tuple(eqs), e.pos) if eqs else A.Const(True, e.pos)
    if isinstance(e, A.And):
        return A.And(tuple(expand_equiv(x, comps) for x in e.items), e.pos)
    if isinstance(e, A.Or):
        return A.Or(tuple(expand_equiv(x, comps) for x in e.items), e.pos)
    if isinstance(e, A.Not):
        return A.Not(expand_equiv(e.operand, comps), e.pos)
    return e


def to_cnf(e: A.Expr) -> list[A.Expr]:
    """Clauses whose conjunction equals e. NOT is pushed onto atoms; comparisons are never flipped
    (flipping would change the meaning of a comparison with null)."""

    def clauses(x: A.Expr, negate: bool) -> list[list[A.Expr]]:
        if isinstance(x, A.Not):
            return clauses(x.operand, not negate)
        if isinstance(x, (A.And, A.Or)):
            conj = isinstance(x, A.And) != negate
            parts = [clauses(item, negate) for item in x.items]
            if conj:
                return [c for p in parts for c in p]
            out: list[list[A.Expr]] = [[]]
            for p in parts:
                out = [a + b for a in out for b in p]
                if len(out) > MAX_CLAUSES:
                    raise QueryError(f"WHERE is too complex: its conjunctive normal form has more than "
                                     f"{MAX_CLAUSES} clauses", x.pos.line or None, x.pos.column or None)
            return out
        if isinstance(x, A.Const) and isinstance(x.value, bool):
            return [[A.Const(x.value != negate, x.pos)]]
        return [[A.Not(x, x.pos) if negate else x]]

    result = []
    for lits in clauses(e, False):
        result.append(lits[0] if len(lits) == 1 else A.Or(tuple(lits), lits[0].pos))
    return result


def conjuncts(e: A.Expr):
    """The top-level conjuncts of an expression (nested ANDs flattened)."""
    if isinstance(e, A.And):
        for item in e.items:
            yield from conjuncts(item)
    else:
        yield e


def _fail(msg: str, pos: A.Pos) -> QueryError:
    return QueryError(msg, pos.line or None, pos.column or None)


def compile_nfab(q: A.Query) -> NFAb:
    """Build the NFA^b of a validated query."""
    comps = q.pattern.components
    positive = q.pattern.positive
    index = {c.var: j for j, c in enumerate(positive)}
    negated = {c.var for c in comps if c.negated}
    n = len(positive)
    begin: list[list[A.Expr]] = [[] for _ in range(n)]
    take: list[list[A.Expr]] = [[] for _ in range(n)]
    proceed: list[list[A.Expr]] = [[] for _ in range(n)]
    neg_clauses: dict[str, list[A.Expr]] = {v: [] for v in negated}
    partition_attrs: list[str] = []

    # SASE 1.0 reads a second [attr] as a predicate of its own (front/language/dialects.py sase1_where)
    where = sase1_where(q) if q.dialect == "sase1" else q.where
    if where is not None:
        for node in conjuncts(where):  # [attr] under OR/NOT is a predicate, not a partition
            if isinstance(node, A.EquivTest) and node.attr not in partition_attrs:
                partition_attrs.append(node.attr)
        where = expand_equiv(where, comps)
        for clause in to_cnf(where):
            levels = [(lvl, node) for node in clause.walk()
                      if (lvl := _ref_level(node, index, negated)) is not None]
            negs = {lvl[1] for lvl, _ in levels if lvl[0] == "neg"}
            pos_levels = [(lvl, node) for lvl, node in levels if lvl[0] != "neg"]
            if len(negs) > 1:
                raise _fail("a predicate may mention only one negated variable ("
                            + ", ".join(sorted(negs)) + ")", clause.pos)
            if negs:
                for lvl, node in pos_levels:
                    if lvl[1] == TAKE:
                        raise _fail(f"{expr_to_text(node)} cannot be used with a negated variable: "
                                    f"it only exists while {node.var}'s closure is being built", node.pos)
                neg_clauses[negs.pop()].append(clause)
                continue
            if not pos_levels:
                begin[0].append(clause)
                continue
            last = max(lvl for lvl, _ in pos_levels)
            for lvl, node in pos_levels:
                if lvl[1] == TAKE and lvl != last:
                    raise _fail(f"{expr_to_text(node)} is only defined while the closure of {node.var} is "
                                f"being built, but this predicate also needs "
                                f"{'the completed closure' if last[0] == lvl[0] else 'a later variable'}",
                                node.pos)
            j, kind = last
            (begin, take, proceed)[kind][j].append(clause)

    negations = []
    gap = 0
    for c in comps:
        if c.negated:
            negations.append(Negation(c, gap, Formula(c.event_type, tuple(neg_clauses[c.var]))))
        else:
            gap += 1
    return NFAb(
        query=q,
        components=positive,
        begin=tuple(Formula(c.event_type, tuple(begin[j])) for j, c in enumerate(positive)),
        take=tuple(Formula(c.event_type, tuple(take[j])) if c.kleene else None for j, c in enumerate(positive)),
        proceed=tuple(Formula(None, tuple(proceed[j])) if c.kleene else None for j, c in enumerate(positive)),
        negations=tuple(negations),
        partition_attrs=tuple(partition_attrs),
        strategy=q.strategy,
        window=q.window,
        index=index,
    )


def describe(nfa: NFAb) -> str:
    """The states, edges and edge formulas, as `cepkit explain` prints them."""
    s = nfa.strategy
    lines = [f"NFA^b  strategy={s.value}  window={_window_text(nfa.window)}"
             f"  partition={list(nfa.partition_attrs) or 'whole stream'}"]
    win = " ∧ in_window" if nfa.window else ""
    for j, c in enumerate(nfa.components):
        nxt = nfa.components[j + 1].var if j + 1 < nfa.n else "F"
        start = " (start)" if j == 0 else ""
        if c.kleene:
            lines.append(f"state {c.var}[1]{start}")
            lines.append(f"  begin   -> {c.var}[i] : {nfa.begin[j].text()}{win}")
            if j > 0:
                lines.append(f"  ignore  (loop)   : {_ignore_text(s, nfa.begin[j])}{win}")
            lines.append(f"state {c.var}[i]")
            lines.append(f"  take    (loop)   : {nfa.take[j].text()}{win}")
            lines.append(f"  ignore  (loop)   : {_ignore_text(s, nfa.take[j])}{win}")
            if nxt == "F":
                lines.append(f"  proceed -> F     : {nfa.proceed[j].text()}  (checked at every begin/take: "
                             f"each prefix of a trailing closure is a match)")
            else:
                lines.append(f"  proceed -> {nxt} : {nfa.proceed[j].text()} ∧ (θ_{nxt}.begin"
                             f" ∨ (¬take ∧ ¬ignore))   [Step 6 peek]")
        else:
            lines.append(f"state {c.var}{start}")
            lines.append(f"  begin   -> {nxt} : {nfa.begin[j].text()}{win}")
            if j > 0:
                lines.append(f"  ignore  (loop)   : {_ignore_text(s, nfa.begin[j])}{win}")
    lines.append("state F (final)")
    for neg in nfa.negations:
        where = {0: "before the first event"}.get(neg.gap, "after the last event" if neg.gap == nfa.n else
                                                   f"between {nfa.components[neg.gap - 1].var} and "
                                                   f"{nfa.components[neg.gap].var}")
        lines.append(f"negation !({neg.component.event_type} {neg.component.var}) {where}: "
                     f"no event with {neg.formula.text()}")
    return "\n".join(lines)


def _ignore_text(s: A.Strategy, f: Formula) -> str:
    if s is A.Strategy.STRICT_CONTIGUITY:
        return "False"
    if s is A.Strategy.PARTITION_CONTIGUITY:
        return "¬partition(e)"
    if s is A.Strategy.SKIP_TILL_NEXT_MATCH:
        return f"¬({f.text()})"
    return "True"


def _window_text(w: A.Window | None) -> str:
    if w is None:
        return "none"

    return window_to_text(w).replace("WITHIN ", "< ")


SELECTIONS = ("all", "non_overlap")


def is_nfab_query(q: A.Query) -> bool:
    """Whether the NFA^b engine runs this query (a flat SASE+ sequence of single types)."""
    return A.is_flat_seq(q.pattern) and q.dialect == "sase+"


def check_selection(nfa, selection: str, engine: str) -> None:
    """QueryError for an unknown output selection; Unsupported for non-overlap with a trailing negation
    (the run-based engines cannot tell when such a match is final and still the latest start)."""
    if selection not in SELECTIONS:
        raise QueryError(f"unknown output selection '{selection}'", expected=list(SELECTIONS))
    if selection == "non_overlap" and any(neg.gap == nfa.n for neg in nfa.negations):
        neg = next(neg for neg in nfa.negations if neg.gap == nfa.n)
        raise Unsupported(engine, "the non-overlap output format with a trailing negation",
                          neg.component.pos.line or None, neg.component.pos.column or None)
