"""Odd and valid option values on valid inputs: exit 0, or 2 naming the option (always 2 for a value that
is wrong by itself, like --ts-unit fortnight); never exit 1 or a traceback."""
import pytest
from hypothesis import given, strategies as st

from tests.fuzz.properties import usage_refused
from tests.fuzz.seeds import LANGS
from tests.fuzz.settings import explain, fuzz_settings
from tests.fuzz.strategies import option_cases


@pytest.mark.parametrize("lang", LANGS)
@fuzz_settings(0.5)
@given(data=st.data())
def test_odd_options_are_handled(lang, data):
    case = data.draw(option_cases(lang))
    out, problem = usage_refused(case)
    assert problem is None, explain(case, out, problem)
