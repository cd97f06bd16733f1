"""Print AST nodes back to SASE+ text (the paper's spelling)."""
from __future__ import annotations

from fractions import Fraction

from cepkit.front.language import ast as A

_PREC = {"or": 1, "and": 2, "not": 3, "cmp": 4, "+": 5, "-": 5, "*": 6, "/": 6, "%": 6, "neg": 7, "atom": 8}


def _const(value) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, str):
        return "'" + value + "'"
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return str(value.numerator)
        text = f"{float(value)!r}"
        return text if Fraction(text) == value else f"({value.numerator}/{value.denominator})"
    return str(value)


def _index(var: str, index: A.Index | None) -> str:
    if index is None:
        return var
    return f"{var}[{var}.LEN]" if index is A.Index.LAST else f"{var}[{index.value}]"


def expr_to_text(e: A.Expr, parent: int = 0) -> str:
    """Render an expression with the fewest parentheses that keep its meaning."""
    if isinstance(e, A.Const):
        text, prec = _const(e.value), _PREC["atom"]
    elif isinstance(e, A.AttrRef):
        text, prec = f"{_index(e.var, e.index)}.{e.attr}", _PREC["atom"]
    elif isinstance(e, A.LenRef):
        text, prec = f"{e.var}.LEN", _PREC["atom"]
    elif isinstance(e, A.Agg):
        scope = "..i-1" if e.scope is A.AggScope.PREFIX else ""
        text, prec = f"{e.func}({e.var}[{scope}].{e.attr})", _PREC["atom"]
    elif isinstance(e, A.EquivTest):
        value = "" if e.value is None else " = " + _const(e.value.value)
        text, prec = f"[{e.attr}{value}]", _PREC["atom"]
    elif isinstance(e, A.Neg):
        prec = _PREC["neg"]
        text = "-" + expr_to_text(e.operand, prec)
    elif isinstance(e, A.BinOp):
        prec = _PREC[e.op]
        text = f"{expr_to_text(e.left, prec)} {e.op} {expr_to_text(e.right, prec + 1)}"
    elif isinstance(e, A.Compare):
        prec = _PREC["cmp"]
        text = f"{expr_to_text(e.left, prec + 1)} {e.op} {expr_to_text(e.right, prec + 1)}"
    elif isinstance(e, A.Not):
        prec = _PREC["not"]
        text = "not " + expr_to_text(e.operand, prec)
    elif isinstance(e, A.And):
        prec = _PREC["and"]
        text = " and ".join(expr_to_text(x, prec + 1) for x in e.items)
    elif isinstance(e, A.Or):
        prec = _PREC["or"]
        text = " or ".join(expr_to_text(x, prec + 1) for x in e.items)
    else:  # pragma: no cover - the AST is closed
        raise TypeError(f"not an expression: {e!r}")
    return f"({text})" if prec < parent else text


def component_to_text(c: A.Component) -> str:
    kind = f"ANY({', '.join(c.any_of)})" if c.any_of else c.event_type
    if c.negated:
        return f"!({kind} {c.var})"
    return f"{kind}+ {c.var}[]" if c.kleene else f"{kind} {c.var}"


def pattern_to_text(node: A.PatternNode) -> str:
    if isinstance(node, A.Component):
        return component_to_text(node)
    head = "SEQ" if isinstance(node, A.Seq) else "AND" if isinstance(node, A.Conj) else "OR"
    return f"{head}(" + ", ".join(pattern_to_text(c) for c in node.children()) + ")"


def window_to_text(w: A.Window) -> str:
    amount = _const(w.amount)
    if w.kind == "events":
        return f"WITHIN {amount} EVENTS"
    return f"WITHIN {amount}" + (f" {w.unit}" if w.unit else "")


def conventions_to_text(c: A.Conventions) -> str:
    """One line naming a query's conventions (for plans and explanations; the query text implies them)."""
    logic = "three-valued (SQL)" if c.null_logic == "three_valued" else "two-valued (null comparisons false)"
    bound = "span < W" if c.window_bound == "strict" else "span <= W"
    return f"null logic {logic}; WITHIN {c.window_bound} ({bound})"


def query_to_text(q: A.Query) -> str:
    """The query in the paper's spelling; parsing it again gives an equal AST."""
    if q.dialect == "rfid":
        parts = ["EVENT " + pattern_to_text(q.pattern)]
        if q.where is not None:
            parts.append(f"WHERE {expr_to_text(q.where)}")
    else:
        parts = ["PATTERN " + pattern_to_text(q.pattern)]
        body = expr_to_text(q.where) if q.where is not None else ""
        parts.append(f"WHERE {q.strategy.value} {{ {body} }}")
    if q.window is not None:
        parts.append(window_to_text(q.window))
    if q.returns:
        parts.append("RETURN " + ", ".join(f"{expr_to_text(r.expr)} AS {r.name}" for r in q.returns))
    return "\n".join(parts)
