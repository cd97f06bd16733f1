"""The Numba backend reads the query's null logic once, when it compiles the formulas: two-valued
queries (SASE+) run; a query under another null logic is refused by name, never run under the wrong one."""
from __future__ import annotations

import dataclasses
import re

import pytest

from cepkit import compile
from cepkit.optimized.bytecode import FormulaCompiler
from cepkit.optimized.codegen import formulas_source
from cepkit.optimized.nfab.layout import ROW
from cepkit.core.errors import Unsupported
from cepkit.front.language import ast as A
from cepkit.front.language.sase import parse_sase
from cepkit.front.nfab.compile import compile_nfab

QUERY = "PATTERN SEQ(A a, B b) WHERE skip_till_any_match { a.x < b.x } WITHIN 10"


def test_formula_compiler_reads_the_null_logic():
    fc = FormulaCompiler(compile_nfab(parse_sase(QUERY)), ["x"], {"": 0})
    assert fc.null_logic == "two_valued"


def test_a_three_valued_query_is_refused():
    q = dataclasses.replace(parse_sase(QUERY), conventions=A.Conventions("three_valued", "strict"))
    with pytest.raises(Unsupported, match="three-valued null logic"):
        FormulaCompiler(compile_nfab(q), ["x"], {"": 0})


def test_generated_formulas_follow_the_null_logic():
    """The generator implements both logics (SQL's three-valued one for the MATCH_RECOGNIZE engine): a
    three-valued condition holds only when true; a logic it does not know is refused."""
    program = compile(QUERY, engine="optimized")
    two = formulas_source(program.table_dict, program.nfa.n, 0, "two_valued", layout=ROW)
    three = formulas_source(program.table_dict, program.nfa.n, 0, "three_valued", layout=ROW)
    holds3 = re.compile(r"^\s+c\d+ = .+ == 1$", re.MULTILINE)   # a three-valued condition holds when TRUE (1)
    assert "def holds" in two and two != three
    assert holds3.search(three) and not holds3.search(two)
    with pytest.raises(ValueError):
        formulas_source(program.table_dict, program.nfa.n, 0, "four_valued", layout=ROW)
