"""A pattern as the lazy-NFA paper defines it (spec/001 §2.7): per OR alternative, positive variables
with a partial order, Kleene variables, negated variables, and the WHERE clauses placed like NFA^b's.

Every engine of `reference/pattern` and `reference/lazy` evaluates the same `Branch` objects, so they
differ only in the order in which they bind variables, never in what a clause means.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from cepkit.core.errors import QueryError
from cepkit.front.language import ast as A
from cepkit.front.language.printer import expr_to_text
from cepkit.front.language.validate import alternatives
from cepkit.front.nfab.compile import Formula, conjuncts, compile_nfab

BEGIN, TAKE, PROCEED, NEG = "begin", "take", "proceed", "neg"


@dataclass(frozen=True)
class Var:
    """A variable of one alternative: its accepted types, and whether it is Kleene or negated."""

    name: str
    types: tuple[str, ...]
    kleene: bool
    negated: bool
    pos: A.Pos
    text_index: int  # place among the alternative's positive variables in text order (-1 if negated)


@dataclass(frozen=True)
class Check:
    """WHERE clauses evaluated together, at a place NFA^b would evaluate them (see `cepkit.reference.pattern.clauses`).

    kind BEGIN: on `var`'s first event; TAKE: on every element of Kleene `var` from the 2nd on;
    PROCEED: on Kleene `var`'s completed closure; NEG: on a candidate event of negated `var`.
    `needs`: the positive variables that must be bound first."""

    kind: str
    var: str
    clauses: tuple[A.Expr, ...]
    needs: frozenset[str]


@dataclass(frozen=True)
class Branch:
    """One alternative of the pattern (an OR expanded into its alternatives)."""

    positives: tuple[Var, ...]  # text order
    negations: tuple[Var, ...]
    before: frozenset[tuple[str, str]]  # (u, v): every event of u precedes every event of v
    checks: tuple[Check, ...]  # positive checks (BEGIN / TAKE / PROCEED)
    neg_checks: dict = field(hash=False, compare=False)  # negated var name -> Check (NEG)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(v.name for v in self.positives)

    def var(self, name: str) -> Var:
        return next(v for v in self.positives + self.negations if v.name == name)

    def preds(self, name: str) -> frozenset[str]:
        """Positive variables that must precede `name`."""
        return frozenset(u for u, v in self.before if v == name and u in self.names)

    def succs(self, name: str) -> frozenset[str]:
        """Positive variables that must follow `name`."""
        return frozenset(v for u, v in self.before if u == name and v in self.names)

    def unary(self, name: str) -> tuple[A.Expr, ...]:
        """Clauses that test one event of a non-Kleene variable alone (usable as a buffer filter)."""
        return tuple(c for ch in self.checks if ch.kind == BEGIN and ch.var == name and ch.needs == {name}
                     for c in ch.clauses)


@dataclass(frozen=True)
class Pattern:
    query: A.Query
    branches: tuple[Branch, ...]

    @property
    def dialect(self) -> str:
        return self.query.dialect

    @property
    def variables(self) -> tuple[str, ...]:
        """Every positive variable name, in text order, once."""
        return tuple(dict.fromkeys(v.name for b in self.branches for v in b.positives))

    def types(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(t for b in self.branches for v in b.positives + b.negations for t in v.types))


def _order(node: A.PatternNode, alt: tuple[A.Component, ...]) -> frozenset[tuple[str, str]]:
    """The precedence pairs the pattern tree puts on one alternative's leaves.

    A leaf belongs to the alternative by identity (`alternatives` returns the tree's own Component
    objects), never by equality: AST equality ignores positions, so `A a` in `SEQ(A a, C c)` equals `A a`
    in `SEQ(C c, A a)`, and matching by equality gave every alternative the other alternatives' orders
    (`OR(SEQ(A a, C c), SEQ(C c, A a))` got both `a < c` and `c < a`, and matched nothing)."""
    mine = {id(c) for c in alt}
    pairs: set[tuple[str, str]] = set()

    def visit(n: A.PatternNode) -> set[str]:
        """The variables of this alternative under n."""
        if isinstance(n, A.Component):
            return {n.var} if id(n) in mine else set()
        groups = [visit(child) for child in n.children()]
        if isinstance(n, A.Seq):
            for i, earlier in enumerate(groups):
                for later in groups[i + 1:]:
                    pairs.update((u, v) for u in earlier for v in later)
        return set().union(*groups) if groups else set()

    visit(node)
    return frozenset(pairs)


def _needs(clauses, positives: set[str]) -> frozenset[str]:
    return frozenset(getattr(n, "var") for c in clauses for n in c.walk()
                     if isinstance(n, (A.AttrRef, A.LenRef, A.Agg)) and n.var in positives)


def _split_check(q: A.Query, clause: A.Expr, negated: str) -> None:
    """SASE RFID: a predicate on a negated variable must be part of P- as a whole (spec/002 §2.3, §7 A9)."""
    items = clause.items if isinstance(clause, A.Or) else (clause,)
    for item in items:
        if not any(getattr(n, "var", None) == negated for n in item.walk()):
            raise QueryError(f"'{expr_to_text(clause)}' mixes a condition on the negated variable {negated} with "
                             f"one that does not mention it; the SASE RFID language needs the predicates to split "
                             f"into P+ (no negated variable) AND P- (spec/002 §2.3)",
                             clause.pos.line or None, clause.pos.column or None)


def _branch(q: A.Query, alt: tuple[A.Component, ...]) -> Branch:
    flat = A.Query(A.Seq(alt, q.pattern.pos), A.Strategy.SKIP_TILL_ANY_MATCH, _where_for(q, alt), q.window,
                   (), False, q.pos, q.dialect, q.conventions)
    nfa = compile_nfab(flat)
    positives = tuple(Var(c.var, c.types, c.kleene, False, c.pos, j) for j, c in enumerate(nfa.components))
    negations = tuple(Var(c.var, c.types, False, True, c.pos, -1) for c in alt if c.negated)
    pos_names = {v.name for v in positives}
    checks: list[Check] = []
    for j, v in enumerate(positives):
        for kind, formula in ((BEGIN, nfa.begin[j]), (TAKE, nfa.take[j]), (PROCEED, nfa.proceed[j])):
            if formula is not None and formula.clauses:
                checks.append(Check(kind, v.name, formula.clauses, _needs(formula.clauses, pos_names) | {v.name}))
    neg_checks = {}
    for neg in nfa.negations:
        var = neg.component.var
        if q.dialect == "rfid":
            for clause in neg.formula.clauses:
                _split_check(q, clause, var)
        neg_checks[var] = Check(NEG, var, neg.formula.clauses, _needs(neg.formula.clauses, pos_names))
    return Branch(positives, negations, _order(q.pattern, alt), tuple(checks), neg_checks)


def _where_for(q: A.Query, alt: tuple[A.Component, ...]) -> A.Expr | None:
    """The WHERE conjuncts that apply to one alternative: those whose variables it binds. A conjunct whose
    variables no alternative binds together is a QueryError."""
    if q.where is None:
        return None
    names = {c.var for c in alt}
    every = {c.var for c in A.leaves(q.pattern)}
    alts = alternatives(q.pattern)
    kept = []
    for conj in conjuncts(q.where):
        used = {n.var for n in conj.walk() if isinstance(n, (A.AttrRef, A.LenRef, A.Agg)) and n.var in every}
        if not any(used <= {c.var for c in a} for a in alts):
            raise QueryError(f"'{expr_to_text(conj)}' uses variables of different OR branches "
                             f"({', '.join(sorted(used))}), which are never bound together",
                             conj.pos.line or None, conj.pos.column or None)
        if used <= names:
            kept.append(conj)
    if not kept:
        return None
    return kept[0] if len(kept) == 1 else A.And(tuple(kept), q.where.pos)


def compile_pattern(q: A.Query) -> Pattern:
    """The pattern model of a validated query (QueryError for what the semantics cannot give a meaning)."""
    if q.strategy is not A.Strategy.SKIP_TILL_ANY_MATCH:
        raise QueryError(f"this evaluation is defined for skip_till_any_match only, not {q.strategy.value}",
                         q.pos.line or None, q.pos.column or None)
    if q.dialect == "rfid" and q.window is None:
        for c in A.leaves(q.pattern):
            if c.negated:
                comps = q.pattern.components
                k = comps.index(c)
                if all(x.negated for x in comps[:k]) or all(x.negated for x in comps[k + 1:]):
                    raise QueryError("a negated start or end needs WITHIN in the SASE RFID language "
                                     "(spec/002 §2.3: it is of use only with a window)",
                                     c.pos.line or None, c.pos.column or None)
    _one_type_set_per_name(q)
    return Pattern(q, tuple(_branch(q, alt) for alt in alternatives(q.pattern)))


def _one_type_set_per_name(q: A.Query) -> None:
    """QueryError for a variable name bound to different event types in different places (`OR(A x, C x)`):
    the engines read one type set per name, so such a query would silently match one alternative's types."""
    seen: dict[str, tuple] = {}
    for c in A.leaves(q.pattern):
        first = seen.setdefault(c.var, tuple(c.types))
        if tuple(c.types) != first:
            raise QueryError(f"variable '{c.var}' stands for {' | '.join(first)} in one place and "
                             f"{' | '.join(c.types)} in another: a variable has one set of event types in the "
                             f"whole pattern (use another name, or ANY({', '.join(dict.fromkeys(first + tuple(c.types)))}) "
                             f"in both places; docs/semantics.md L6)", c.pos.line or None, c.pos.column or None)


def describe_pattern(p: Pattern) -> str:
    """A readable account of the pattern model: per alternative, variables, order, checks, negations."""
    lines = []
    for k, b in enumerate(p.branches, 1):
        lines.append(f"alternative {k}:")
        for v in b.positives:
            lines.append(f"  {v.name}: {' | '.join(v.types)}{' (Kleene)' if v.kleene else ''}")
        order = sorted(b.before)
        lines.append("  order: " + (", ".join(f"{u} < {v}" for u, v in order) if order else "none (any order)"))
        for ch in b.checks:
            lines.append(f"  {ch.kind} {ch.var}: " + " and ".join(expr_to_text(c) for c in ch.clauses))
        for n in b.negations:
            ch = b.neg_checks[n.name]
            cond = " and ".join(expr_to_text(c) for c in ch.clauses) or "true"
            lines.append(f"  not {n.name}: {' | '.join(n.types)} after {sorted(b.preds(n.name)) or 'nothing'} "
                         f"and before {sorted(b.succs(n.name)) or 'nothing'} where {cond}")
    return "\n".join(lines)


__all__ = ["Var", "Check", "Branch", "Pattern", "compile_pattern", "describe_pattern", "BEGIN", "TAKE", "PROCEED", "NEG", "Formula"]
