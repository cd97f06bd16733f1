"""What generated MATCH_RECOGNIZE code cannot hold is refused by name (Unsupported), never a Numba typing
traceback or an allocation of the offset's size; without an engine named the reference runs it."""
from __future__ import annotations

import pandas as pd
import pytest

import cepkit
from cepkit.core.errors import Unsupported
from cepkit.engine_choice import EngineFallback

ROWS = pd.DataFrame({"id": [1, 2, 3], "value": [10, 20, 30], "ts": [1, 2, 3]})
QUERY = ("SELECT id, measure FROM t MATCH_RECOGNIZE (ORDER BY id MEASURES {m} AS measure ALL ROWS PER MATCH "
         "PATTERN (A+) DEFINE A AS {d})")


@pytest.mark.parametrize("measure, define, construct", [
    ("LAST(value, 9999999999999999999999999999999999999999)", "true", "a navigation offset of 9999"),
    ("LAST(value)", "FIRST(A.value, 100000) IS NULL", "FIRST / LAST with an offset of 100,000 rows in DEFINE"),
])
def test_offsets_generated_code_cannot_hold_are_refused_by_name(measure, define, construct):
    text = QUERY.format(m=measure, d=define)
    with pytest.raises(Unsupported, match=construct):
        cepkit.run(text, ROWS, language="sql", engine="optimized")
    with pytest.warns(EngineFallback, match="engine reference runs it"):
        got = cepkit.run(text, ROWS, language="sql")
    assert got.to_pandas().equals(cepkit.run(text, ROWS, language="sql", engine="reference").to_pandas())
    assert len(got) == 3
