"""Semantic checks of a parsed SASE+ query: every mistake becomes a QueryError at its position."""
from __future__ import annotations

import difflib

from cepkit.core.errors import QueryError
from cepkit.front.language import ast as A


def _fail(msg: str, pos: A.Pos, expected: list[str] | None = None) -> QueryError:
    return QueryError(msg, pos.line or None, pos.column or None, expected)


def alternatives(node: A.PatternNode) -> list[tuple[A.Component, ...]]:
    """The leaves of each alternative of a pattern (OR expanded; text order kept)."""
    if isinstance(node, A.Component):
        return [(node,)]
    if isinstance(node, A.Disj):
        return [alt for item in node.items for alt in alternatives(item)]
    combos: list[tuple[A.Component, ...]] = [()]
    for item in node.children():
        combos = [c + alt for c in combos for alt in alternatives(item)]
    return combos


def _check_pattern(node: A.PatternNode, dialect: str) -> None:
    """Variables unique except across OR alternatives; constructs allowed by the dialect."""
    if isinstance(node, A.Component):
        if dialect == "rfid" and node.kleene:
            raise _fail("Kleene closure is not part of the SASE RFID language (EVENT ...); "
                        "write the query with PATTERN", node.pos)
        return
    if dialect == "rfid" and isinstance(node, (A.Conj, A.Disj)):
        raise _fail(f"{'AND' if isinstance(node, A.Conj) else 'OR'}(...) is not part of the SASE RFID language "
                    f"(EVENT ...); write the query with PATTERN", node.pos)
    if dialect == "rfid" and isinstance(node, A.Seq) and any(not isinstance(c, A.Component) for c in node.components):
        raise _fail("nested patterns are not part of the SASE RFID language (EVENT ...); write the query with "
                    "PATTERN", node.pos)
    for child in node.children():
        _check_pattern(child, dialect)
    if isinstance(node, A.Disj):
        declared: dict[str, A.Component] = {}
        for c in A.leaves(node):
            other = declared.setdefault(c.var, c)
            if (other.kleene, other.negated) != (c.kleene, c.negated):
                raise _fail(f"variable '{c.var}' is declared in two OR branches with different roles "
                            f"(Kleene or negated in one, not in the other)", c.pos)
        return
    seen: dict[str, A.Component] = {}
    for child in node.children():
        for var in {c.var for c in A.leaves(child)}:
            if var in seen:
                first = next(c for c in A.leaves(child) if c.var == var)
                raise _fail(f"variable '{var}' is declared twice", first.pos)
            seen[var] = child


def validate(q: A.Query) -> A.Query:
    """Check variables, Kleene indexing, aggregates and RETURN items; return the query unchanged."""
    comps = A.leaves(q.pattern)
    if isinstance(q.pattern, A.Component):
        raise _fail("a pattern is SEQ(...), AND(...) or OR(...)", q.pattern.pos)
    _check_pattern(q.pattern, q.dialect)
    alts = alternatives(q.pattern)
    for alt in alts:
        if all(c.negated for c in alt):
            raise _fail("the pattern needs at least one component that is not negated"
                        + (" in every OR branch" if len(alts) > 1 else ""), (alt[0] if len(alts) > 1 else q.pattern).pos)
    if (q.strategy is not A.Strategy.SKIP_TILL_ANY_MATCH and not A.is_flat_seq(q.pattern)):
        what = "AND(...)" if any(isinstance(n, A.Conj) for n in q.pattern.walk()) else \
            "OR(...)" if any(isinstance(n, A.Disj) for n in q.pattern.walk()) else \
            "ANY(...)" if any(c.any_of for c in comps) else "a nested pattern"
        raise _fail(f"{what} is defined only under skip_till_any_match (spec/001 §2.4), not "
                    f"{q.strategy.value}", q.pattern.pos)
    seen: dict[str, A.Component] = {}
    for c in comps:
        seen.setdefault(c.var, c)
    for item in q.returns:
        for node in item.expr.walk():
            var = getattr(node, "var", None)
            if isinstance(node, (A.AttrRef, A.LenRef, A.Agg)) and var in seen:
                missing = [alt for alt in alts if var not in {c.var for c in alt}]
                if missing:
                    raise _fail(f"RETURN uses '{var}', but an OR branch ({', '.join(c.var for c in missing[0])}) "
                                f"does not bind it; bind the same variable name in every branch, e.g. "
                                f"OR(B {var}, C {var})", node.pos)
    for node in q.where.walk() if q.where is not None else ():
        _check_ref(node, seen, in_return=False)
        _check_arith(node)
    for item in q.returns:
        for node in item.expr.walk():
            _check_ref(node, seen, in_return=True)
            _check_arith(node)
            if isinstance(node, A.EquivTest):
                raise _fail("an equivalence test cannot be returned", node.pos)
    names = [r.name for r in q.returns]
    reserved = {"bindings", "ts"} | set(seen)
    for r in q.returns:
        if r.name in reserved:
            raise _fail(f"RETURN name '{r.name}' is taken by the match itself (bindings, ts, or a variable); "
                        f"choose another with AS", r.pos)
        if names.count(r.name) > 1:
            raise _fail(f"RETURN names '{r.name}' twice; rename one with AS", r.pos)
    return q


def _check_arith(node: A.Expr) -> None:
    """Arithmetic needs numbers: a string or boolean constant there is a mistake."""
    operands = [node.left, node.right] if isinstance(node, A.BinOp) else \
        [node.operand] if isinstance(node, A.Neg) else []
    for x in operands:
        if isinstance(x, A.Const) and isinstance(x.value, (str, bool)):
            raise _fail(f"arithmetic needs numbers, not {x.value!r}", x.pos)


def _check_ref(node: A.Expr, comps: dict[str, A.Component], in_return: bool) -> None:
    var = getattr(node, "var", None)
    if var is None or not isinstance(node, (A.AttrRef, A.LenRef, A.Agg)):
        return
    comp = comps.get(var)
    if comp is None:
        close = difflib.get_close_matches(var, list(comps), n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise _fail(f"unknown variable '{var}'{hint}", node.pos, expected=list(comps))
    if isinstance(node, A.AttrRef):
        if comp.kleene and node.index is None:
            raise _fail(f"'{var}' is a Kleene variable: write {var}[1], {var}[i], {var}[i-1] or "
                        f"{var}[{var}.LEN] before .{node.attr}", node.pos)
        if not comp.kleene and node.index is not None:
            raise _fail(f"'{var}' is not a Kleene variable, so it cannot be indexed ({var}[...])", node.pos)
        if in_return and node.index in (A.Index.CURRENT, A.Index.PREV):
            raise _fail(f"{var}[{node.index.value}] has no meaning in RETURN; use {var}[1] or "
                        f"{var}[{var}.LEN]", node.pos)
    else:
        if not comp.kleene:
            what = "an aggregate" if isinstance(node, A.Agg) else f"{var}.LEN"
            raise _fail(f"{what} needs a Kleene variable, and '{var}' is not one", node.pos)
        if in_return and isinstance(node, A.Agg) and node.scope is A.AggScope.PREFIX:
            raise _fail(f"{node.func}({var}[..i-1]) has no meaning in RETURN; use {var}[]", node.pos)
    if comp.negated and in_return:
        raise _fail(f"negated variable '{var}' binds no event and cannot be returned", node.pos)
