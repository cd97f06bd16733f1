"""The optimized AFA engine: registered as ("afa", "optimized") in reference/registry.py.

It runs the basic flavour (Algorithm 1, maximally speculative, with retractions and punctuations) and AFA+O
(seq: sequence numbers, no speculation; input retractions refused when fed, as the reference does) and
declares them (`CONSTRUCTS`); the other flavours (ignorable, cleanse) are refused at compile time by the
registry, naming the engines that run them; arc rows in the input (dynamic patterns) are refused by name
when fed.
"""
from __future__ import annotations

import math
from typing import Any

from optimized.afa.exprgen import ENGINE
from optimized.afa.program import OptimizedAfaProgram
from reference.contract import Engine
from reference.errors import QueryError

CONSTRUCTS = frozenset({"flavor:basic", "flavor:seq", "register", "window", "epsilon arcs", "standby arcs"})


class OptimizedAfaEngine(Engine):
    name = ENGINE
    language = "afa"
    state_note = ("its state is bounded by the window and the punctuations; it is not counted: bound the output "
                  "with limit (--limit)")

    def build(self, afa: Any, flavor: str = "basic", sigma: Any = math.inf) -> OptimizedAfaProgram:
        if flavor not in ("basic", "seq"):   # the registry refuses the other flavours first, by construct
            raise QueryError(f"unknown AFA flavor '{flavor}'", expected=["basic", "seq"])
        return OptimizedAfaProgram(afa, flavor)
