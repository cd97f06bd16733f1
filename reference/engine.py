"""The reference engine: the oracle. A plain SASE+ sequence runs on the NFA^b run semantics of spec/000
(every strategy); AND / OR / nested patterns, ANY and the SASE RFID dialect run on the eager NFA of the
pattern model (spec/001 §2.7, skip-till-any-match). The brute-force engine (the §3.2 definition by
enumeration, reference/brute.py and reference/pattern/brute.py) picks its program the same way."""
from __future__ import annotations

from reference.brute import BruteForceProgram
from reference.contract import Engine
from reference.language import ast as A
from reference.nfab.compile import compile_nfab
from reference.nfab.runs import NFAbProgram


def is_nfab_query(q: A.Query) -> bool:
    """Whether the NFA^b engine runs this query (a flat SASE+ sequence of single types)."""
    return A.is_flat_seq(q.pattern) and q.dialect == "sase+"


class ReferenceEngine(Engine):
    """Compile queries to NFA^b programs, or to eager pattern programs; the executable specification."""

    name = "reference"
    language = "sase"

    def build(self, q: A.Query, selection: str = "all"):
        if is_nfab_query(q):
            return NFAbProgram(compile_nfab(q), selection=selection)
        from reference.pattern.eager import EagerProgram
        from reference.pattern.engines import all_only
        from reference.pattern.model import compile_pattern

        all_only(self.name, selection)
        program = EagerProgram(compile_pattern(q))
        program.engine_name = self.name
        return program


class BruteForceEngine(Engine):
    """The brute-force definition as an engine, for tiny inputs and differential tests."""

    name = "brute"
    language = "sase"

    def build(self, q: A.Query, selection: str = "all"):
        if is_nfab_query(q):
            return BruteForceProgram(compile_nfab(q), selection=selection)
        from reference.pattern.brute import PatternBruteProgram
        from reference.pattern.engines import all_only
        from reference.pattern.model import compile_pattern

        all_only(self.name, selection)
        return PatternBruteProgram(compile_pattern(q))
