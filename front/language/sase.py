"""Parse SASE+ query text (paper spelling and SASE 1.0 query files) into the AST."""
from __future__ import annotations

import difflib
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from cepkit.core.errors import QueryError
from cepkit.front.language import ast as A
from cepkit.core.query_text import check_text
from cepkit.front.language.limits import DepthLimited
from cepkit.core.units import parse_unit
from cepkit.front.language.printer import expr_to_text

STRATEGY_NAMES = {
    "strict_contiguity": A.Strategy.STRICT_CONTIGUITY,
    "partition_contiguity": A.Strategy.PARTITION_CONTIGUITY,
    "skip_till_next_match": A.Strategy.SKIP_TILL_NEXT_MATCH,
    "skip_till_any_match": A.Strategy.SKIP_TILL_ANY_MATCH,
}
DEFAULT_STRATEGY = A.Strategy.SKIP_TILL_ANY_MATCH
IMPLICIT_VAR = "e"  # the variable of a single-event pattern written without one (`EVENT SHELF-READING`)
BARE = ""  # placeholder variable of a bare attribute name until it is resolved

_TOKEN_WORDS = {
    "NAME": "a name", "NUMBER": "a number", "LPAR": "'('", "RPAR": "')'", "LSQB": "'['", "RSQB": "']'",
    "LBRACE": "'{'", "RBRACE": "'}'", "COMMA": "','", "DOT": "'.'", "PLUS": "'+'", "MINUS": "'-'",
    "MULOP": "'*', '/' or '%'", "COMPOP": "a comparison", "AND": "AND", "OR": "OR", "NOT": "NOT",
    "WHERE": "WHERE", "WITHIN": "WITHIN", "RETURN": "RETURN", "AS": "AS", "SEQ": "SEQ",
    "PATTERN": "PATTERN", "NEGATION": "'!' or '~'", "STRING": "a string", "AGG": "an aggregate",
    "HYPHEN_WORD": "a strategy name", "PERCENT": "a percentage", "DOTDOT": "'..'", "$END": "end of query",
    "TRUE": "TRUE", "FALSE": "FALSE", "EVENT": "EVENT", "ANY": "ANY",
}


@lru_cache(maxsize=1)
def _parser() -> Lark:
    grammar = (Path(__file__).with_name("sase.lark")).read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=True, cache=True)  # fast start


def _pos(meta_or_token) -> A.Pos:
    line = getattr(meta_or_token, "line", None)
    column = getattr(meta_or_token, "column", None)
    return A.Pos(line or 0, column or 0)


def _number(text: str):
    return Fraction(text) if "." in text else int(text)


def strategy_from_name(name: str, pos: A.Pos) -> A.Strategy:
    """The strategy for a name in either spelling (underscores or hyphens), or a QueryError."""
    key = name.lower().replace("-", "_")
    if key in STRATEGY_NAMES:
        return STRATEGY_NAMES[key]
    close = difflib.get_close_matches(key, list(STRATEGY_NAMES), n=1)
    hint = f"; did you mean {close[0]}?" if close else ""
    raise QueryError(f"unknown event selection strategy '{name}'{hint}", pos.line, pos.column,
                     expected=list(STRATEGY_NAMES))


@v_args(meta=True)
class ExprToAst(DepthLimited):
    """Expression rules shared by every cepkit grammar: OR / AND / NOT, comparisons, arithmetic, literals."""

    clause_types = (A.Query, A.ReturnItem, A.Window, A.Conventions)

    def or_expr(self, meta, children):
        return A.Or(tuple(c for c in children if not isinstance(c, Token)), _pos(meta))

    or_noand = or_expr

    def and_expr(self, meta, children):
        return A.And(tuple(c for c in children if not isinstance(c, Token)), _pos(meta))

    def not_(self, meta, children):
        return A.Not(children[1], _pos(meta))

    def comparison(self, meta, children):
        left, op, right = children
        o = {"==": "=", "<>": "!=", "≠": "!=", "≥": ">=", "≤": "<="}.get(str(op), str(op))
        return A.Compare(o, left, right, _pos(op))

    def sum(self, meta, children):
        return self._fold(children)

    def product(self, meta, children):
        return self._fold(children)

    @staticmethod
    def _fold(children):
        acc = children[0]
        for i in range(1, len(children), 2):
            op = children[i]
            acc = A.BinOp(str(op), acc, children[i + 1], _pos(op))
        return acc

    def neg(self, meta, children):
        operand = children[1]
        if isinstance(operand, A.Const) and not isinstance(operand.value, (str, bool)):
            return A.Const(-operand.value, _pos(meta))
        return A.Neg(operand, _pos(meta))

    def number(self, meta, children):
        return A.Const(_number(str(children[0])), _pos(children[0]))

    def percent(self, meta, children):
        return A.Const(Fraction(str(children[0])[:-1]) / 100, _pos(children[0]))

    def string(self, meta, children):
        return A.Const(str(children[0])[1:-1], _pos(children[0]))

    def true(self, meta, children):
        return A.Const(True, _pos(children[0]))

    def false(self, meta, children):
        return A.Const(False, _pos(children[0]))



@v_args(meta=True)
class ToAst(ExprToAst):
    # -------------------------------------------------------------- clauses
    def start(self, meta, children):
        (dialect, pattern), where, window, returns = children
        strategy, expr, defaulted = where if where is not None else (DEFAULT_STRATEGY, None, True)
        if dialect == "rfid" and where is not None and not defaulted:
            raise QueryError("a SASE RFID query (EVENT ...) has no event selection strategy: it always matches "
                             "every combination; write PATTERN ... to choose one", meta.line, meta.column)
        expr = _resolve_bare(expr, pattern)
        returns = tuple(A.ReturnItem(_resolve_bare(r.expr, pattern), r.name, r.pos) for r in returns or ())
        return A.Query(pattern, strategy, expr, window, returns, defaulted, _pos(meta), dialect, A.SASE_CONVENTIONS)

    def pattern_clause(self, meta, children):
        return ("sase+", children[1])

    def event_clause(self, meta, children):
        return ("rfid", children[1])

    def single(self, meta, children):
        (event_type, any_of, pos), var_tok = children
        var = str(var_tok) if var_tok is not None else IMPLICIT_VAR
        return A.Seq((A.Component(event_type, var, False, False, pos, any_of),), pos)

    def seq(self, meta, children):
        return A.Seq(self._items(children), _pos(meta))

    def conj(self, meta, children):
        return A.Conj(self._items(children), _pos(meta))

    def disj(self, meta, children):
        return A.Disj(self._items(children), _pos(meta))

    @staticmethod
    def _items(children):
        return tuple(c for c in children if isinstance(c, (A.Component, A.Seq, A.Conj, A.Disj)))

    def positive(self, meta, children):
        (event_type, any_of, pos), plus, var_tok, brackets = children
        kleene = plus is not None
        if brackets is not None and not kleene:
            raise QueryError(f"'{var_tok}[]' marks a Kleene variable but its type has no '+'"
                             f" (write {event_type}+ {var_tok}[])", var_tok.line, var_tok.column)
        return A.Component(event_type, str(var_tok), kleene, False, pos, any_of)

    def negated(self, meta, children):
        _neg, (event_type, any_of, pos), var_tok, brackets = children
        if brackets is not None:
            raise QueryError("a negated component cannot be a Kleene closure", var_tok.line, var_tok.column)
        return A.Component(event_type, str(var_tok), False, True, pos, any_of)

    def type_name(self, meta, children):
        tok = children[0]
        return (str(tok), (), _pos(tok))

    def type_any(self, meta, children):
        names = tuple(dict.fromkeys(c for c in children[1:] if isinstance(c, str)))
        return ("ANY", names, _pos(children[0]))

    def type_alt(self, meta, children):
        return str(children[0])

    def brackets(self, meta, children):
        return True

    def where_paper(self, meta, children):
        _where, strategy, expr = children
        return (strategy, expr, False)

    def strategy_call(self, meta, children):
        name = children[0]
        return strategy_from_name(str(name), _pos(name))

    def arg(self, meta, children):
        return children[0]

    def where_items(self, meta, children):
        strategies, exprs = [], []
        for item in children[1:]:
            if isinstance(item, Token):
                continue  # AND separator
            kind, value, pos = item
            (strategies if kind == "strategy" else exprs).append((value, pos))
        if len(strategies) > 1:
            pos = strategies[1][1]
            raise QueryError("more than one event selection strategy", pos.line, pos.column)
        expr = None
        if exprs:
            expr = exprs[0][0] if len(exprs) == 1 else A.And(tuple(e for e, _ in exprs), exprs[0][1])
        if strategies:
            return (strategies[0][0], expr, False)
        return (DEFAULT_STRATEGY, expr, True)

    def strategy_item(self, meta, children):
        tok = children[0]
        return ("strategy", strategy_from_name(str(tok), _pos(tok)), _pos(tok))

    def expr_item(self, meta, children):
        return ("expr", children[0], _pos(meta))

    def within_clause(self, meta, children):
        _within, minus, number, unit_tok = children
        amount = _number(str(number))
        if minus is not None or amount <= 0:
            raise QueryError(f"the window must be positive, got {'-' if minus else ''}{number}",
                             number.line, number.column)
        if unit_tok is None:
            return A.Window(amount, None, "time", False, _pos(number))
        if str(unit_tok).lower() in ("events", "event"):
            if not isinstance(amount, int):
                raise QueryError("an event-count window needs a whole number", number.line, number.column)
            return A.Window(amount, None, "events", False, _pos(number))
        unit = parse_unit(str(unit_tok), _pos(unit_tok))
        return A.Window(amount, unit, "time", False, _pos(number))

    def return_clause(self, meta, children):
        return [c for c in children if isinstance(c, A.ReturnItem)]

    def return_item(self, meta, children):
        expr, _as, name = children
        label = str(name) if name is not None else _default_name(expr)
        return A.ReturnItem(expr, label, _pos(meta))

    def equiv(self, meta, children):
        tests = tuple(c for c in children if isinstance(c, A.EquivTest))
        return tests[0] if len(tests) == 1 else A.And(tests, _pos(meta))

    def equiv_item(self, meta, children):
        name, op, value = children
        if op is not None and str(op) not in ("=", "=="):
            raise QueryError(f"an equivalence test takes '=' and a constant ([{name} = ...]), not '{op}'",
                             op.line, op.column)
        return A.EquivTest(str(name), _pos(name), value)

    def neg_number(self, meta, children):
        return A.Const(-_number(str(children[1])), _pos(children[0]))

    def bare_ref(self, meta, children):
        tok = children[0]
        return A.AttrRef(BARE, str(tok), None, _pos(tok))

    def simple_ref(self, meta, children):
        var, attr = children
        if str(attr).upper() == "LEN":
            return A.LenRef(str(var), _pos(var))
        return A.AttrRef(str(var), str(attr), None, _pos(var))

    def indexed_ref(self, meta, children):
        var, index, attr = children
        kind, pos = index
        if kind == "len-of":
            of = pos[0]
            if of != str(var):
                raise QueryError(f"'{var}[{of}.LEN]' mixes two variables; write {var}[{var}.LEN]",
                                 pos[1].line, pos[1].column)
            kind = A.Index.LAST
        return A.AttrRef(str(var), str(attr), kind, _pos(var))

    def index_number(self, meta, children):
        tok = children[0]
        if str(tok) != "1":
            raise QueryError(f"unsupported Kleene index [{tok}]", tok.line, tok.column,
                             expected=["[1]", "[i]", "[i-1]", "[a.LEN]"])
        return (A.Index.FIRST, _pos(tok))

    def index_name(self, meta, children):
        tok = children[0]
        if str(tok) != "i":
            raise QueryError(f"unsupported Kleene index [{tok}]", tok.line, tok.column,
                             expected=["[1]", "[i]", "[i-1]", "[a.LEN]"])
        return (A.Index.CURRENT, _pos(tok))

    def index_minus(self, meta, children):
        name, _minus, num = children
        if str(name) != "i" or str(num) != "1":
            raise QueryError(f"unsupported Kleene index [{name}-{num}]", name.line, name.column,
                             expected=["[1]", "[i]", "[i-1]", "[a.LEN]"])
        return (A.Index.PREV, _pos(name))

    def index_len(self, meta, children):
        var, attr = children
        if str(attr).upper() != "LEN":
            raise QueryError(f"unsupported Kleene index [{var}.{attr}]", attr.line, attr.column,
                             expected=["[1]", "[i]", "[i-1]", f"[{var}.LEN]"])
        return ("len-of", (str(var), _pos(var)))

    def agg(self, meta, children):
        func, var, scope, attr = children
        if scope is None:
            scope = A.AggScope.ALL
        return A.Agg(str(func).lower(), str(var), str(attr), scope, _pos(func))

    def scope_prefix(self, meta, children):
        _dd, name, _minus, num = children
        if str(name) != "i" or str(num) != "1":
            raise QueryError(f"unsupported aggregate range [..{name}-{num}]", name.line, name.column,
                             expected=["[..i-1]", "[]", "[..a.LEN]"])
        return A.AggScope.PREFIX

    def scope_len(self, meta, children):
        attr = children[-1]
        if str(attr).upper() != "LEN":
            raise QueryError(f"unsupported aggregate range ending in .{attr}", attr.line, attr.column,
                             expected=["[..i-1]", "[]", "[..a.LEN]"])
        return A.AggScope.ALL

    def scope_len_from1(self, meta, children):
        num = children[0]
        if str(num) != "1":
            raise QueryError(f"an aggregate range must start at 1, got {num}", num.line, num.column)
        return self.scope_len(meta, children[1:])


def _resolve_bare(expr, pattern):
    """Bare attribute names (`category = 'food'`) belong to the pattern's only event."""
    if expr is None:
        return None
    import dataclasses

    def fix(e):
        if isinstance(e, A.AttrRef) and e.var == BARE:
            positives = [c for c in A.leaves(pattern) if not c.negated]
            if len(A.leaves(pattern)) != 1:
                raise QueryError(f"bare attribute name '{e.attr}' needs a pattern of a single event; "
                                 f"write variable.{e.attr}", e.pos.line, e.pos.column)
            return dataclasses.replace(e, var=positives[0].var)
        if not dataclasses.is_dataclass(e) or isinstance(e, A.Const):
            return e
        changes = {}
        for f in dataclasses.fields(e):
            v = getattr(e, f.name)
            if isinstance(v, tuple):
                changes[f.name] = tuple(fix(x) for x in v)
            elif dataclasses.is_dataclass(v) and not isinstance(v, A.Pos):
                changes[f.name] = fix(v)
        return dataclasses.replace(e, **changes) if changes else e

    return fix(expr)


def _default_name(expr: A.Expr) -> str:
    """A column name for an unnamed RETURN item: its text with non-identifier characters as '_'."""
    import re

    return re.sub(r"_+", "_", re.sub(r"[^A-Za-z0-9_]", "_", expr_to_text(expr))).strip("_") or "value"


def parse_sase(text: str) -> A.Query:
    """Parse a SASE+ query (either spelling) into an unvalidated AST; syntax errors become QueryError."""
    return transform_text(text, _parser().parse, ToAst())


def transform_text(text: str, parse, transformer, words: dict[str, str] = _TOKEN_WORDS):
    """`transformer` applied to `parse(text)`; lark's syntax errors and the QueryErrors the transformer
    raises come out as QueryError (with line, column and what was expected, named by `words`); a control
    character in the text or nesting deeper than MAX_DEPTH is a QueryError too (cepkit.front.language.limits)."""
    check_text(text)
    try:
        return transformer.transform(parse(text))
    except VisitError as exc:  # an error raised inside the transformer
        if isinstance(exc.orig_exc, QueryError):
            raise exc.orig_exc from None
        if isinstance(exc.orig_exc, RecursionError):
            raise too_deep_to_read() from None
        raise
    except RecursionError:
        raise too_deep_to_read() from None
    except UnexpectedInput as exc:
        raise syntax_error(exc, text, words) from None


def too_deep_to_read() -> QueryError:
    """A query whose chains (of WITH names, subqueries, expressions) are too deep to follow."""
    return QueryError("the query nests too deeply to read (a chain of WITH names, subqueries or expressions "
                      "hundreds of levels deep); write it with fewer levels", 1, 1)


def syntax_error(exc: UnexpectedInput, text: str, words: dict[str, str] = _TOKEN_WORDS) -> QueryError:
    """A lark syntax error as a QueryError naming the line, the column and the expected tokens."""
    def named(names) -> list[str]:
        return sorted({words.get(t, t) for t in names if not t.startswith("__")})

    if isinstance(exc, UnexpectedToken):
        expected = named(exc.accepts or exc.expected)
        tok = exc.token
        if tok.type == "$END":
            line, col = _end_position(text)
            return QueryError("unexpected end of query", line, col, expected)
        return QueryError(f"unexpected '{tok}'", tok.line, tok.column, expected)
    if isinstance(exc, UnexpectedCharacters):
        ch = text[exc.pos_in_stream] if exc.pos_in_stream < len(text) else ""
        return QueryError(f"unexpected character '{ch}'", exc.line, exc.column, named(exc.allowed or ()))
    if isinstance(exc, UnexpectedEOF):
        line, col = _end_position(text)
        return QueryError("unexpected end of query", line, col, named(exc.expected))
    return QueryError(str(exc), getattr(exc, "line", None), getattr(exc, "column", None))


def _end_position(text: str) -> tuple[int, int]:
    stripped = text.rstrip()
    lines = stripped.split("\n") if stripped else [""]
    return len(lines), len(lines[-1]) + 1
