"""The optimized TPStream engine (issue 15): exact output only. Its registry entry does not declare
"early output", so `compile(..., mode="early")` is refused by name at compile time."""
from __future__ import annotations

from optimized.tpstream.program import ENGINE, OptimizedTPStreamProgram
from reference.contract import Engine
from reference.errors import Unsupported
from reference.tpstream.query import TPQuery


class OptimizedTPStreamEngine(Engine):
    name = ENGINE
    language = "tpstream"
    state_note = ("it keeps the situations WITHIN can still join and the events of runs still open; its "
                  "state is not counted: bound the output with limit (--limit)")

    def build(self, query: TPQuery, mode: str = "exact") -> OptimizedTPStreamProgram:
        if mode != "exact":
            raise Unsupported(self.name, "early output")
        return OptimizedTPStreamProgram(query)
