"""The base of every language's AST: the node base (children and walk), source positions (kept for error
messages, left out of equality) and the conventions a query is read under (null logic, window bound)."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from typing import Literal


class Node:
    """The base of every AST node (each a frozen dataclass): the nodes it holds, and a walk over them."""

    __slots__ = ()

    def children(self) -> tuple[Node, ...]:
        """The nodes this node holds, in field order: a field holds a node, a tuple of nodes, or no node."""
        out: list[Node] = []
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, Node):
                out.append(value)
            elif isinstance(value, tuple):
                out.extend(v for v in value if isinstance(v, Node))
        return tuple(out)

    def walk(self) -> Iterator[Node]:
        """Every node of the tree under this one, this one first (depth first, children in field order)."""
        stack: list[Node] = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children()))


@dataclass(frozen=True)
class Pos:
    line: int
    column: int


NOPOS = Pos(0, 0)


def pos_field() -> Pos:
    """The `pos` field of an AST node: NOPOS by default, left out of equality and repr."""
    return field(default=NOPOS, compare=False, repr=False)


# ----------------------------------------------------------------------------- conventions
NullLogic = Literal["three_valued", "two_valued"]
WindowBoundKind = Literal["strict", "inclusive"]
NULL_LOGICS = ("three_valued", "two_valued")
WINDOW_BOUNDS = ("strict", "inclusive")


@dataclass(frozen=True)
class Conventions:
    """The semantic conventions a query is read under, set by its front end (docs/semantics.md,
    "Conventions on the query"); evaluators and code generators read them, never the language.

    `null_logic`: "three_valued" (SQL: a comparison with null is unknown; AND/OR/NOT propagate unknown;
    a condition holds only when true) or "two_valued" (SASE, TPStream: a comparison with null is false,
    then ordinary boolean logic). `window_bound`: "strict" (span < W) or "inclusive" (span <= W)."""

    null_logic: NullLogic = "two_valued"
    window_bound: WindowBoundKind = "strict"

    def __post_init__(self) -> None:
        if self.null_logic not in NULL_LOGICS:
            raise ValueError(f"null_logic must be one of {NULL_LOGICS}, not {self.null_logic!r}")
        if self.window_bound not in WINDOW_BOUNDS:
            raise ValueError(f"window_bound must be one of {WINDOW_BOUNDS}, not {self.window_bound!r}")

    @property
    def three_valued(self) -> bool:
        return self.null_logic == "three_valued"

    @property
    def strict(self) -> bool:
        return self.window_bound == "strict"


SASE_CONVENTIONS = Conventions("two_valued", "strict")        # SASE+ (the papers): WITHIN is span < W
SASE1_CONVENTIONS = Conventions("two_valued", "inclusive")    # SASE 1.0's engine: last ts - first ts <= W
SQL_CONVENTIONS = Conventions("three_valued", "inclusive")    # MATCH_RECOGNIZE: WITHIN is span <= W (thesis)
TPSTREAM_CONVENTIONS = Conventions("two_valued", "inclusive")  # TPStream: max te - min ts <= W (spec/004)
