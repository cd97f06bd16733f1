"""The reference engine: the oracle. A plain SASE+ sequence runs on the NFA^b run semantics of spec/000
(every strategy); AND / OR / nested patterns, ANY and the SASE RFID dialect run on the eager NFA of the
pattern model (spec/001 §2.7, skip-till-any-match); a query in the SASE 1.0 dialect runs SASE 1.0's runs
(reference/nfab/sase1.py). The brute-force engine (the §3.2 definition by
enumeration, reference/brute.py and reference/pattern/brute.py) picks its program the same way."""
from __future__ import annotations

from cepkit.reference.brute import BruteForceProgram
from cepkit.core.contract import Engine
from cepkit.core.errors import Unsupported
from cepkit.front.language import ast as A
from cepkit.front.language.constructs import SASE1_DIALECT
from cepkit.front.nfab.compile import compile_nfab, is_nfab_query
from cepkit.reference.nfab.runs import NFAbProgram
from cepkit.reference.nfab.sase1 import Sase1Program


class _SaseEngine(Engine):
    """An NFA^b program for a flat SASE+ sequence, else a program over the pattern model (all matches only)."""

    language = "sase"

    def build(self, q: A.Query, selection: str = "all"):
        if q.dialect == "sase1":
            return self.sase1_program(compile_nfab(q), selection=selection)
        if is_nfab_query(q):
            return self.nfab_program(compile_nfab(q), selection=selection)
        from cepkit.reference.pattern.engines import all_only  # lazy: AND / OR / ANY only (start-up of a plain SEQ)
        from cepkit.front.pattern.model import compile_pattern  # lazy: AND / OR / ANY only (start-up of a plain SEQ)

        all_only(self.name, selection)
        program = self.pattern_program()(compile_pattern(q))
        program.engine_name = self.name
        return program


class ReferenceEngine(_SaseEngine):
    """NFA^b programs, or eager pattern programs: the executable specification."""

    name = "reference"
    nfab_program = NFAbProgram
    sase1_program = Sase1Program
    counts_state = True  # NFA^b runs and held matches; eager instances (reference/pattern/eager.py)

    @staticmethod
    def pattern_program():
        from cepkit.reference.pattern.eager import EagerProgram  # lazy: AND / OR / ANY only (start-up of a plain SEQ)

        return EagerProgram


class BruteForceEngine(_SaseEngine):
    """The brute-force definition as an engine, for tiny inputs and differential tests."""

    name = "brute"
    nfab_program = BruteForceProgram

    def sase1_program(self, nfa, selection: str = "all"):
        raise Unsupported(self.name, SASE1_DIALECT, nfa.query.pos.line or None, nfa.query.pos.column or None)

    state_note = ("it holds no partial matches: it enumerates the assignments of at most 200 events "
                   "(2^14 subsets per Kleene variable) at the end of the stream")

    @staticmethod
    def pattern_program():
        from cepkit.reference.pattern.brute import PatternBruteProgram  # lazy: AND / OR / ANY only (start-up of a plain SEQ)

        return PatternBruteProgram
