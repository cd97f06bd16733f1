"""A valid input with matches and one cell the query reads made wrong must exit 3, never answer
differently with exit 0 (the "silently changed answer" property)."""
import pytest
from hypothesis import given, strategies as st

from tests.fuzz.properties import refused
from tests.fuzz.seeds import LANGS
from tests.fuzz.settings import explain, fuzz_settings
from tests.fuzz.strategies import changed_cases


@pytest.mark.parametrize("lang", LANGS)
@fuzz_settings()
@given(data=st.data())
def test_changed_cell_is_refused_not_answered(lang, data):
    case = data.draw(changed_cases(lang))
    out, problem = refused(case)
    assert problem is None, explain(case, out, problem)
