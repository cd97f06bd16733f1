"""The optimized TPStream engine (issue 15): exact and early output (docs/semantics.md T9)."""
from __future__ import annotations

from cepkit.optimized.tpstream.program import ENGINE, OptimizedTPStreamProgram
from cepkit.core.contract import Engine
from cepkit.core.errors import QueryError
from cepkit.front.tpstream.query import TPQuery

MODES = ("exact", "early")


class OptimizedTPStreamEngine(Engine):
    name = ENGINE
    language = "tpstream"
    state_note = ("it keeps the situations WITHIN can still join and the events of runs still open; its "
                  "state is not counted: bound the output with limit (--limit)")

    def build(self, query: TPQuery, mode: str = "exact") -> OptimizedTPStreamProgram:
        if mode not in MODES:
            raise QueryError(f"unknown TPStream mode '{mode}'", expected=list(MODES))
        return OptimizedTPStreamProgram(query, mode)
