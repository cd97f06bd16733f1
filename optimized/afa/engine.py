"""The optimized AFA engine: registered as ("afa", "optimized") in core/registry.py.

It runs every flavour of the reference: basic (Algorithm 1, maximally speculative, with retractions and
punctuations), seq (AFA+O: sequence numbers, no speculation; input retractions refused when fed, as the
reference does) and cleanse (Cleanse(sigma) in front of the basic flavour) in optimized/afa/kernel.py, and
ignorable (AFA+ignore) in optimized/afa/ignorable.py; it declares them (`CONSTRUCTS`). Arc rows in the
input (dynamic patterns: default mode and explicit lifetimes) run under the basic flavour and are refused by
name under the others when fed.
"""
from __future__ import annotations

import math
from typing import Any

from cepkit.optimized.afa.exprgen import ENGINE
from cepkit.optimized.afa.program import OptimizedAfaProgram
from cepkit.core.contract import Engine
from cepkit.front.afa.constructs import sigma_value
from cepkit.core.errors import QueryError



CONSTRUCTS = frozenset({"flavor:basic", "flavor:ignorable", "flavor:seq", "flavor:cleanse", "register", "window",
                        "epsilon arcs", "standby arcs"})


class OptimizedAfaEngine(Engine):
    name = ENGINE
    language = "afa"
    state_note = ("its state is bounded by the window and the punctuations; it is not counted: bound the output "
                  "with limit (--limit)")

    def build(self, afa: Any, flavor: str = "basic", sigma: Any = math.inf) -> OptimizedAfaProgram:
        if flavor not in ("basic", "ignorable", "seq", "cleanse"):
            raise QueryError(f"unknown AFA flavor '{flavor}'", expected=["basic", "ignorable", "seq", "cleanse"])
        return OptimizedAfaProgram(afa, flavor, sigma_value(sigma))
