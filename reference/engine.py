"""The reference engine: SASE+ queries run by the NFA^b run semantics of spec/000 (the oracle)."""
from __future__ import annotations

from reference.language import parse
from reference.language.ast import Query
from reference.nfab.compile import compile_nfab
from reference.nfab.runs import NFAbProgram


class ReferenceEngine:
    """Compile queries to NFA^b programs; the pure-Python executable specification."""

    name = "reference"

    def compile(self, query: str | Query, language: str = "sase", selection: str = "all") -> NFAbProgram:
        q = parse(query, language) if isinstance(query, str) else query
        return NFAbProgram(compile_nfab(q), selection=selection)
