"""The windowed operators' query text (language "window", suffix .win; docs/language.md "Windowed operators").

One statement; keywords are case-insensitive; `--` starts a comment that runs to the end of the line:

    FILTER WHERE <condition>
    AGGREGATE <f>(<attr>) [, <f>(<attr>) ...] OVER <window> [SKIP EMPTY]
    JOIN ON <condition> WINDOW <window> [RIGHT WINDOW <window>] [ACTIVE STRICT | ACTIVE WARMUP]

    <window>    := TIME <size> [SLIDE <slide>] [ALIGN FIRST | ALIGN ZERO] | COUNT <size> [SLIDE <slide>]
    <f>         := sum | count | min | max | avg          (every aggregate names the same attribute)

Conditions are SQL expressions (cepkit.front.sql.parse.parse_expression); a join's qualifies every column with
L. (the left stream) or R. (the right stream) and ends at the keyword WINDOW. SLIDE defaults to 1, ALIGN to
FIRST (the first event's ts), the right window to the left one, ACTIVE to STRICT (Def 2.9). Every mistake
is a QueryError with the line and column of the query text.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from cepkit.core.errors import QueryError
from cepkit.front.language.ast import Pos
from cepkit.core.query_text import check_text
from cepkit.front.windows.spec import WindowSpec
from cepkit.front.sql.parse import parse_expression
from cepkit.front.sql import ast as S

FUNCS = ("sum", "count", "min", "max", "avg")
_TOKEN = re.compile(r"\s*(?:(--[^\n]*)|([A-Za-z_][A-Za-z_0-9]*)|(-?\d+)|(\S))")


@dataclass(frozen=True)
class WindowQuery:
    """A parsed window query. `condition` is the text of FILTER's WHERE / JOIN's ON (None for AGGREGATE),
    `condition_pos` where it starts; `window` / `right_window` the window specs (None for FILTER)."""

    operator: str                               # 'filter' | 'aggregate' | 'join'
    condition: str | None = None
    attr: str | None = None
    funcs: tuple[str, ...] = ()
    window: WindowSpec | None = None
    right_window: WindowSpec | None = None
    skip_empty: bool = False
    active: str = "strict"                      # join: 'strict' (Def 2.9) | 'warmup' (A12 b)
    pos: Pos = field(default=Pos(1, 1), compare=False)
    condition_pos: Pos | None = field(default=None, compare=False)
    window_pos: Pos | None = field(default=None, compare=False)
    clause_pos: tuple = field(default=(), compare=False)   # (construct, Pos) pairs


class _Tokens:
    def __init__(self, text: str):
        self.text = text
        self.toks: list[tuple[str, str, int]] = []      # (kind, text, offset)
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None or m.end() == pos:
                break
            pos = m.end()
            if m.group(1) is not None:
                continue
            for kind, g in (("word", 2), ("int", 3), ("punct", 4)):
                if m.group(g) is not None:
                    self.toks.append((kind, m.group(g), m.start(g)))
        self.i = 0

    def pos(self, offset: int) -> Pos:
        line = self.text.count("\n", 0, offset) + 1
        return Pos(line, offset - (self.text.rfind("\n", 0, offset) + 1) + 1)

    def here(self) -> Pos:
        return self.pos(self.toks[self.i][2] if self.i < len(self.toks) else len(self.text.rstrip()))

    def error(self, message: str, expected=None, at: Pos | None = None) -> QueryError:
        at = at or self.here()
        return QueryError(message, at.line, at.column, expected)

    def peek(self, *words: str) -> bool:
        return self.i < len(self.toks) and self.toks[self.i][0] == "word" and self.toks[self.i][1].upper() in words

    def word(self, *words: str) -> str:
        if not self.peek(*words):
            raise self.error(f"expected {' or '.join(words)}, found {self.found()}", list(words))
        self.i += 1
        return self.toks[self.i - 1][1].upper()

    def found(self) -> str:
        return f"'{self.toks[self.i][1]}'" if self.i < len(self.toks) else "the end of the query"

    def punct(self, p: str) -> None:
        if self.i >= len(self.toks) or self.toks[self.i][1] != p:
            raise self.error(f"expected '{p}', found {self.found()}", [p])
        self.i += 1

    def name(self) -> tuple[str, Pos]:
        if self.i >= len(self.toks) or self.toks[self.i][0] != "word":
            raise self.error(f"expected a name, found {self.found()}")
        self.i += 1
        return self.toks[self.i - 1][1], self.pos(self.toks[self.i - 1][2])

    def integer(self, what: str) -> int:
        if self.i >= len(self.toks) or self.toks[self.i][0] != "int":
            raise self.error(f"expected {what} (an integer), found {self.found()}")
        self.i += 1
        return int(self.toks[self.i - 1][1])

    def done(self) -> bool:
        return self.i >= len(self.toks)

    def rest_until(self, stop: str | None) -> tuple[str, int]:
        """The text from the current token to the keyword `stop` (outside quotes) or the end; moves past it."""
        start = self.toks[self.i][2] if self.i < len(self.toks) else len(self.text)
        j = self.i
        while j < len(self.toks) and not (stop and self.toks[j][0] == "word" and self.toks[j][1].upper() == stop
                                          and not _in_quotes(self.text, self.toks[j][2])):
            j += 1
        end = self.toks[j][2] if j < len(self.toks) else len(self.text)
        self.i = j
        return _strip_comments(self.text[start:end]), start


def _in_quotes(text: str, offset: int) -> bool:
    return text.count("'", 0, offset) % 2 == 1 or text.count('"', 0, offset) % 2 == 1


def _strip_comments(s: str) -> str:
    return "\n".join(line.split("--", 1)[0] if "'" not in line else line for line in s.split("\n")).rstrip()


def parse(text: str) -> WindowQuery:
    """The query of a window query text (QueryError with line and column)."""
    if not isinstance(text, str):
        raise QueryError(f"a window query is text, not {type(text).__name__}")
    check_text(text)
    t = _Tokens(text)
    if t.done():
        raise t.error("empty window query: expected FILTER, AGGREGATE or JOIN", ["AGGREGATE", "FILTER", "JOIN"])
    start = t.here()
    op = t.word("FILTER", "AGGREGATE", "JOIN")
    clauses: dict[str, Pos] = {op: start}
    if op == "FILTER":
        t.word("WHERE")
        cond, cpos = _condition(t, None, ())
        return WindowQuery("filter", condition=cond, pos=start, condition_pos=cpos, clause_pos=tuple(clauses.items()))
    if op == "AGGREGATE":
        attr, funcs = None, []
        while True:
            fpos = t.here()
            f, _ = t.name()
            if f.lower() not in FUNCS:
                raise t.error(f"unknown aggregate '{f}'", list(FUNCS), fpos)
            t.punct("(")
            a, apos = t.name()
            t.punct(")")
            if attr is not None and a != attr:
                raise t.error(f"every aggregate of a query names the same attribute ('{attr}', not '{a}')", at=apos)
            attr = a
            funcs.append(f.lower())
            if t.i < len(t.toks) and t.toks[t.i][1] == ",":
                t.i += 1
                continue
            break
        wpos = t.here()
        t.word("OVER")
        window = _window(t, clauses)
        skip = False
        if t.peek("SKIP"):
            clauses["SKIP EMPTY"] = t.here()
            t.word("SKIP")
            t.word("EMPTY")
            skip = True
        _end(t)
        return WindowQuery("aggregate", attr=attr, funcs=tuple(funcs), window=window, skip_empty=skip, pos=start,
                           window_pos=wpos, clause_pos=tuple(clauses.items()))
    t.word("ON")
    cond, cpos = _condition(t, "WINDOW", ("L", "R"))
    wpos = t.here()
    t.word("WINDOW")
    window = _window(t, clauses)
    right = window
    active = "strict"
    if t.peek("RIGHT"):
        clauses["RIGHT WINDOW"] = t.here()
        t.word("RIGHT")
        t.word("WINDOW")
        right = _window(t, clauses)
    if t.peek("ACTIVE"):
        apos = t.here()
        t.word("ACTIVE")
        active = t.word("STRICT", "WARMUP").lower()
        if active == "warmup":
            clauses["ACTIVE WARMUP"] = apos
    _end(t)
    return WindowQuery("join", condition=cond, window=window, right_window=right, active=active, pos=start,
                       condition_pos=cpos, window_pos=wpos, clause_pos=tuple(clauses.items()))


def _end(t: _Tokens) -> None:
    if not t.done():
        raise t.error(f"unexpected {t.found()} after the end of the query")


def _condition(t: _Tokens, stop: str | None, variables: tuple[str, ...]) -> tuple[str, Pos]:
    at = t.here()
    cond, offset = t.rest_until(stop)
    if not cond.strip():
        raise t.error("expected a condition" + (f" before {stop}" if stop else ""), at=at)
    try:
        e = parse_expression(cond, variables)
        if variables:
            for n in e.walk():
                if isinstance(n, S.ColRef) and n.var is None:
                    raise QueryError("join conditions qualify every column with L. (first stream) or R. "
                                     "(second)", n.pos.line, n.pos.column)
    except QueryError as exc:
        line, column = exc.line, exc.column
        if line is not None:   # from the condition's text to the query's
            column = column + (at.column - 1 if line == 1 else 0)
            line = line + at.line - 1
        raise QueryError(exc.message, line, column, exc.expected) from None
    if stop and t.done():
        raise t.error(f"expected {stop} after the condition", [stop])
    return cond.strip(), at


def _window(t: _Tokens, clauses: dict) -> WindowSpec:
    at = t.here()
    kind = t.word("TIME", "COUNT").lower()
    clauses.setdefault(f"{kind} window", at)
    size = t.integer("the window size")
    slide = 1
    if t.peek("SLIDE"):
        t.word("SLIDE")
        slide = t.integer("the slide")
    align = "first"
    if t.peek("ALIGN"):
        apos = t.here()
        t.word("ALIGN")
        align = t.word("FIRST", "ZERO").lower()
        if kind == "count":
            raise t.error("ALIGN applies to time windows only", at=apos)
        if align == "zero":
            clauses.setdefault("ALIGN ZERO", apos)
    try:
        return WindowSpec(kind, size, slide, align)
    except QueryError as exc:
        raise QueryError(exc.message, at.line, at.column) from None


CONSTRUCTS = ("FILTER", "AGGREGATE", "JOIN", "time window", "count window", "SKIP EMPTY", "ALIGN ZERO",
              "RIGHT WINDOW", "ACTIVE WARMUP")


def constructs(q: WindowQuery, **_options: Any) -> dict[str, Pos]:
    """The constructs of a window query (names in CONSTRUCTS), each with where it is written."""
    return dict(q.clause_pos) if q.clause_pos else {q.operator.upper(): q.pos}
