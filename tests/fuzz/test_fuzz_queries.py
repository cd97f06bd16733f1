"""Mutated and deeply nested queries of every language: exit 0, or 2 naming line and column; never a
traceback or a hang."""
import pytest
from hypothesis import given, strategies as st

from tests.fuzz.properties import well_handled
from tests.fuzz.seeds import LANGS
from tests.fuzz.settings import explain, fuzz_settings
from tests.fuzz.strategies import query_cases


@pytest.mark.parametrize("lang", LANGS)
@fuzz_settings()
@given(data=st.data())
def test_mutated_queries_are_handled(lang, data):
    case = data.draw(query_cases(lang))
    out, problem = well_handled(case)
    assert problem is None, explain(case, out, problem)
