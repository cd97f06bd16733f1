"""Limits every query parser enforces (docs/semantics.md, "Query limits and odd text"): how deep
expressions and patterns may nest, which characters a query text may hold, and how a query file is read."""
from __future__ import annotations

import dataclasses
from typing import Any

from lark import Tree
from lark.visitors import Transformer_NonRecursive

from cepkit.core.errors import QueryError
from cepkit.front.language.ast import Pos

MAX_DEPTH = 100
"""The most levels an expression or a pattern may nest. Each operator, NOT, unary minus, comparison,
function call, nested SEQ / AND / OR or row-pattern node is one level; names, constants, single pattern
components and grouping parentheses are none; clauses (WHERE, DEFINE, RETURN ...) are none."""


def _kids(obj: Any) -> list:
    if isinstance(obj, (tuple, list)):
        return list(obj)
    if isinstance(obj, dict):
        return list(obj.values())
    if isinstance(obj, Tree):
        return list(obj.children)
    if _is_node(obj):
        return [getattr(obj, f.name) for f in dataclasses.fields(obj)]
    return []


def _is_node(obj: Any) -> bool:
    return dataclasses.is_dataclass(obj) and not isinstance(obj, (type, Pos))


class DepthLimited(Transformer_NonRecursive):
    """A lark transformer that needs no recursion and refuses (QueryError naming line and column) an AST
    that nests more than MAX_DEPTH levels, before any rule that walks a subtree sees it.

    `clause_types` are the node classes that do not count as a level (a query, its clauses)."""

    clause_types: tuple[type, ...] = ()

    def _call_userfunc(self, tree, new_children=None):
        result = super()._call_userfunc(tree, new_children)
        self._check(result)
        return result

    def _counts(self, obj: Any) -> bool:
        return _is_node(obj) and not isinstance(obj, self.clause_types)

    def _check(self, result: Any) -> None:
        """Heights: -1 for what holds no node, 0 for a leaf construct, 1 + the highest child for the others."""
        memo: dict[int, tuple[Any, int]] = self.__dict__.setdefault("_heights", {})
        stack: list[tuple[Any, bool]] = [(result, False)]
        while stack:
            obj, expanded = stack.pop()
            if id(obj) in memo:
                continue
            kids = _kids(obj)
            if not expanded and kids:
                stack.append((obj, True))
                stack.extend((k, False) for k in kids if id(k) not in memo)
                continue
            below = max((memo[id(k)][1] for k in kids), default=-1)
            height = max(below, 0) + 1 if self._counts(obj) and below >= 0 else (0 if self._counts(obj) else below)
            memo[id(obj)] = (obj, height)   # the object is kept so that its id is not reused
            if height > MAX_DEPTH:
                raise too_deep(self._at_level(obj, memo))

    def _at_level(self, obj: Any, memo: dict[int, tuple[Any, int]]) -> Any:
        """The construct MAX_DEPTH + 1 levels down the deepest path from `obj` (one that is too deep)."""
        level, at = 0, obj
        while True:
            if self._counts(obj):
                level += 1
                at = obj
                if level > MAX_DEPTH:
                    return at
            kids = [k for k in _kids(obj) if memo[id(k)][1] >= 0]
            if not kids:
                return at
            obj = max(kids, key=lambda k: memo[id(k)][1])


def too_deep(node: Any) -> QueryError:
    pos = getattr(node, "pos", None)
    return QueryError(f"nested more than {MAX_DEPTH} levels deep: expressions and patterns nest at most "
                      f"{MAX_DEPTH} levels (a chain of binary operators nests one level per operator)",
                      getattr(pos, "line", None) or None, getattr(pos, "column", None) or None)
