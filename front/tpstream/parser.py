"""Parse TPStream query text into a `TPQuery`; every mistake is a QueryError with line and column."""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

from lark import Lark, v_args

from cepkit.core.ast import Node, pos_field
from cepkit.core.errors import QueryError
from cepkit.front.language import ast as A
from cepkit.front.language.sase import ExprToAst, transform_text
from cepkit.core.units import parse_unit
from cepkit.front.tpstream import allen
from cepkit.front.tpstream.query import RETURN_FUNCS, Constraint, Duration, ReturnAgg, SituationDef, TPQuery

_WORDS = {
    "NAME": "a name", "NUMBER": "a number", "LPAR": "'('", "RPAR": "')'", "COMMA": "','", "DOT": "'.'",
    "SEMICOLON": "';'", "PLUS": "'+'", "MINUS": "'-'", "MULOP": "'*', '/' or '%'", "COMPOP": "a comparison",
    "STRING": "a string", "$END": "end of query",
}


@lru_cache(maxsize=1)
def _parser() -> Lark:
    grammar = Path(__file__).with_name("tpstream.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", start=["query", "definitions"], propagate_positions=True,
                maybe_placeholders=True, cache=True)  # fast start: the parse tables from lark's cache file


def _pos(x) -> A.Pos:
    return A.Pos(getattr(x, "line", None) or 0, getattr(x, "column", None) or 0)


def _err(message: str, at, expected: list[str] | None = None) -> QueryError:
    p = at if isinstance(at, A.Pos) else _pos(at)
    return QueryError(message, p.line or None, p.column or None, expected)


def _number(text: str):
    return Fraction(text) if "." in text else int(text)


@v_args(meta=True)
class _ToQuery(ExprToAst):
    clause_types = (TPQuery, SituationDef, Constraint, ReturnAgg, Duration, A.Conventions)

    def query(self, meta, ch):
        _from, source, partition = ch[0], ch[1], ch[2]
        defs = tuple(c for c in ch if isinstance(c, SituationDef))
        pattern = tuple(c for c in ch if isinstance(c, Constraint))
        within = next(c for c in ch if isinstance(c, Duration))
        returns = next((c for c in ch if isinstance(c, list)), [])
        return TPQuery(str(source), tuple(partition or ()), defs, pattern, within, tuple(returns), _pos(meta),
                       A.TPSTREAM_CONVENTIONS)

    def definitions(self, meta, ch):
        return tuple(ch)

    def partition(self, meta, ch):
        names = [t for t in ch if t.type == "NAME"]
        seen: set[str] = set()
        for t in names:
            if str(t) in seen:
                raise _err(f"attribute '{t}' appears twice in PARTITION BY", t)
            seen.add(str(t))
        return tuple(str(t) for t in names)

    def definition(self, meta, ch):
        name, _as, cond, bound = ch
        _check_condition(str(name), cond)
        least, most = bound if bound is not None else (None, None)
        return SituationDef(str(name), cond, least, most, _pos(name))

    def at_least(self, meta, ch):
        return (ch[2], None)

    def at_most(self, meta, ch):
        d = ch[2]
        if d.amount == 0:
            raise _err("AT MOST 0 is an empty duration range: a situation always lasts longer than 0", d.pos)
        return (None, d)

    def between(self, meta, ch):
        lo, hi = ch[1], ch[3]
        if (lo.unit is None) != (hi.unit is None):
            raise _err("BETWEEN mixes a duration with a unit and one without", hi.pos)
        lo_v = lo.amount if lo.unit is None else lo.nanos()
        hi_v = hi.amount if hi.unit is None else hi.nanos()
        if lo_v > hi_v:
            raise _err(f"inverted duration range: BETWEEN {_show(lo)} AND {_show(hi)} "
                       f"(the lower bound is larger than the upper)", lo.pos)
        if hi_v == 0:
            raise _err("BETWEEN 0 AND 0 is an empty duration range: a situation always lasts longer "
                       "than 0", hi.pos)
        return (lo, hi)

    def duration(self, meta, ch):
        number, unit = ch
        amount = _number(str(number))
        return Duration(amount, None if unit is None else parse_unit(str(unit), _pos(unit)), _pos(number))

    def constraint(self, meta, ch):
        left, rels, right = ch[0], ch[1:-1], ch[-1]
        if str(left) == str(right):
            raise _err(f"a situation cannot be related to itself ('{left} ... {right}')", right)
        return Constraint(str(left), frozenset(rels), str(right), _pos(left), _pos(right))

    def relation(self, meta, ch):
        text = "".join(str(t) for t in ch)
        rel = allen.lookup(text)
        if rel is None:
            raise _err(f"unknown relation '{text}'; did you mean '{allen.closest(text)}'?", ch[0],
                       list(allen.RELATIONS))
        return rel

    def within(self, meta, ch):
        _w, minus, d = ch
        if minus is not None or d.amount <= 0:
            raise _err(f"WITHIN must be a positive duration, got {'-' if minus else ''}{_show(d)}", d.pos)
        return d

    def returns(self, meta, ch):
        return [c for c in ch if isinstance(c, ReturnAgg)]

    def return_item(self, meta, ch):
        func, sit, attr, _as, name = ch
        f = str(func).lower()
        if f not in RETURN_FUNCS:
            close = difflib.get_close_matches(f, RETURN_FUNCS, n=1, cutoff=0.0)
            raise _err(f"unknown aggregate '{func}'; did you mean '{close[0].upper()}'?", func,
                       [x.upper() for x in RETURN_FUNCS])
        label = str(name) if name is not None else f"{f}_{sit}_{attr}"
        return ReturnAgg(f, str(sit), str(attr), label, _pos(func))

    # -------------------------------------------------------------- conditions (shared rules: ExprToAst)
    def bare_ref(self, meta, ch):
        return A.AttrRef("", str(ch[0]), None, _pos(ch[0]))

    def qualified_ref(self, meta, ch):
        return A.AttrRef(str(ch[0]), str(ch[1]), None, _pos(ch[0]))

    def call(self, meta, ch):
        func, args = ch
        return _Call(str(func), tuple(args or ()), _pos(func))

    def call_args(self, meta, ch):
        return tuple(ch)


@dataclass(frozen=True)
class _Call(Node):
    """A function call inside a condition: always an error, kept until the situation's name is known."""

    func: str
    args: tuple
    pos: A.Pos = pos_field()


def _show(d: Duration) -> str:
    return f"{d.amount}" + (f" {d.unit}" if d.unit else "")


def _check_condition(name: str, cond) -> None:
    """A condition reads only the event being tested: no aggregates, no other situation's attributes."""
    for node in cond.walk():
        if isinstance(node, _Call):
            ref = next((a for a in node.args if isinstance(a, A.AttrRef)), None)
            other = ref.var if ref is not None and ref.var not in ("", name) else None
            if node.func.lower() in RETURN_FUNCS and other:
                raise _err(f"the condition of {name} references an aggregate of situation {other} "
                           f"({node.func}({other}.{ref.attr})); conditions may not reference aggregates of "
                           "other situations (thesis §5.3)", node.pos)
            if node.func.lower() in RETURN_FUNCS:
                raise _err(f"the condition of {name} uses the aggregate {node.func}(...); a condition is "
                           "tested on each event and cannot aggregate", node.pos)
            raise _err(f"unknown function '{node.func}' in the condition of {name}", node.pos)
        if isinstance(node, A.AttrRef) and node.var not in ("", name):
            raise _err(f"the condition of {name} reads {node.var}.{node.attr}, an attribute of another "
                       f"situation; a condition reads only the event being tested (write {node.attr} or "
                       f"{name}.{node.attr})", node.pos)


def _validate(q: TPQuery) -> TPQuery:
    defined: dict[str, SituationDef] = {}
    for d in q.definitions:
        if d.name in defined:
            raise _err(f"situation '{d.name}' is defined twice", d.pos)
        defined[d.name] = d
    used: set[str] = set()
    for c in q.pattern:
        for n, pos in ((c.left, c.pos), (c.right, c.right_pos)):
            if n not in defined:
                close = difflib.get_close_matches(n, list(defined), n=1)
                hint = f"; did you mean '{close[0]}'?" if close else ""
                raise _err(f"situation '{n}' is used in PATTERN but not defined{hint}", pos, sorted(defined))
            used.add(n)
    for d in q.definitions:
        if d.name not in used:
            raise _err(f"situation '{d.name}' is defined but not used in PATTERN", d.pos)
    names: set[str] = set()
    for r in q.returns:
        if r.situation not in defined:
            raise _err(f"RETURN reads situation '{r.situation}', which is not defined", r.pos, sorted(defined))
        if r.name in names:
            raise _err(f"RETURN names '{r.name}' twice", r.pos)
        names.add(r.name)
    units = {d.unit is None for d in _durations(q)}
    if len(units) > 1:
        raise _err("the query mixes durations with a time unit and durations without one (ticks)", q.within.pos)
    return q


def _durations(q: TPQuery):
    yield q.within
    for d in q.definitions:
        yield from (x for x in (d.at_least, d.at_most) if x is not None)


def parse_tpstream(text: str) -> TPQuery:
    """Parse and validate a TPStream query."""
    return _validate(_parse(text, "query"))


def parse_definitions(text: str) -> tuple[SituationDef, ...]:
    """Parse `name AS cond [duration], ...` alone (used to inspect derivation)."""
    defs = _parse(text, "definitions")
    seen: set[str] = set()
    for d in defs:
        if d.name in seen:
            raise _err(f"situation '{d.name}' is defined twice", d.pos)
        seen.add(d.name)
    return defs


def _parse(text: str, start: str):
    return transform_text(text, lambda t: _parser().parse(t, start=start), _ToQuery(), _WORDS)
