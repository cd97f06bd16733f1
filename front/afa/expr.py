"""Fences and transfers written in the project's expression language (front/language/ast).

An expression reads `e.<attr>` (the event: `le`, `re`, `seq` or a payload field; null when absent),
`r.<field>` (a register field of the schema) and `p.<name>` (a constant parameter of the AFA file).
Evaluation is exact (front/evaluate.py). A register is a tuple of values in schema order.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Mapping

from lark import Lark

from cepkit.core.errors import QueryError
from cepkit.front.evaluate import Env, evaluate
from cepkit.front.language import ast as A
import cepkit.front.language.sase as sase

_BOOLEAN = (A.Compare, A.And, A.Or, A.Not)
_EVENT, _REGISTER, _PARAM = 0, 1, 2
_BOUND = {"e": (_EVENT,), "r": (_REGISTER,), "p": (_PARAM,)}


@lru_cache(maxsize=1)
def _parser() -> Lark:
    grammar = Path(sase.__file__).with_name("sase.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=True, start="expr")


def parse_expression(text: str, line: int = 1, column: int = 1) -> A.Expr:
    """Parse one expression; (line, column) is where its text starts in the file, for error messages."""

    def shift(err: QueryError) -> QueryError:
        if err.line is None:
            return QueryError(err.message, line, column, err.expected)
        l, c = err.line, err.column
        return QueryError(err.message, line + l - 1, (column + c - 1) if l == 1 else c, err.expected)

    if not isinstance(text, str) or not text.strip():
        raise QueryError("empty expression", line, column)
    try:
        return sase.transform_text(text, _parser().parse, sase.ToAst())
    except QueryError as exc:
        raise shift(exc) from None


def check_expression(e: A.Expr, schema: tuple[str, ...], params: Mapping[str, Any], *, what: str,
                     line: int, column: int, event: bool = True) -> None:
    """Refs must be e.*, r.<schema field> or p.<param>; no aggregates; no event refs where `event` is False."""

    def where(node) -> tuple[int, int]:
        p = getattr(node, "pos", A.NOPOS)
        if not p.line:
            return line, column
        return line + p.line - 1, (column + p.column - 1) if p.line == 1 else p.column

    for node in e.walk():
        if isinstance(node, (A.Agg, A.LenRef, A.EquivTest)):
            raise QueryError(f"{what}: aggregates, .LEN and [attr] are not part of AFA expressions", *where(node))
        if isinstance(node, A.AttrRef):
            if node.index is not None:
                raise QueryError(f"{what}: indexed references are not part of AFA expressions", *where(node))
            if node.var == "e":
                if not event:
                    raise QueryError(f"{what}: an ε-arc sees only the register, not e.{node.attr}", *where(node))
            elif node.var == "r":
                if node.attr not in schema:
                    raise QueryError(f"{what}: register field '{node.attr}' is not in the register schema "
                                     f"({', '.join(schema) or 'empty'})", *where(node), expected=list(schema))
            elif node.var == "p":
                if node.attr not in params:
                    raise QueryError(f"{what}: unknown parameter 'p.{node.attr}'", *where(node),
                                     expected=[f"p.{k}" for k in params])
            else:
                raise QueryError(f"{what}: unknown name '{node.var}' (use e.<attr>, r.<field> or p.<param>)",
                                 *where(node), expected=["e", "r", "p"])


def is_boolean_shape(e: A.Expr) -> bool:
    """False for expressions that can never be a boolean (arithmetic, number or string constants)."""
    if isinstance(e, _BOOLEAN):
        return True
    if isinstance(e, A.Const):
        return isinstance(e.value, bool)
    return isinstance(e, A.AttrRef)  # a boolean event attribute; checked when evaluated


def _env(e: Any, r: tuple, schema_index: Mapping[str, int], params: Mapping[str, Any]) -> Env:
    def value(pos: int, attr: str) -> Any:
        if pos == _EVENT:
            return None if e is None else e.get(attr)
        if pos == _REGISTER:
            return r[schema_index[attr]]
        return params[attr]

    return Env(bound=_BOUND, value=value)


def constant(e: A.Expr, params: Mapping[str, Any] | None = None) -> Any:
    """The value of an expression that may read only parameters."""
    return evaluate(e, _env(None, (), {}, params or {}))


def compile_fence(e: A.Expr, schema: tuple[str, ...], params: Mapping[str, Any]) -> Callable[[Any, tuple], Any]:
    index = {f: i for i, f in enumerate(schema)}

    def f(ev: Any, r: tuple) -> Any:
        v = evaluate(e, _env(ev, r, index, params))
        return False if v is None else v  # null is false (front/evaluate.py); other non-booleans are errors

    return f


def compile_transfer(assign: Mapping[str, A.Expr], schema: tuple[str, ...],
                     params: Mapping[str, Any]) -> Callable[[Any, tuple], tuple]:
    index = {f: i for i, f in enumerate(schema)}
    plan = [(i, assign.get(f)) for i, f in enumerate(schema)]

    def g(ev: Any, r: tuple) -> tuple:
        env = _env(ev, r, index, params)
        return tuple(r[i] if x is None else evaluate(x, env) for i, x in plan)

    return g
