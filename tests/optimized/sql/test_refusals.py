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


def test_ids_read_from_another_column_are_the_id_column_once(tmp_path):
    """Ids read from another column (--id-col ts): the `id` column holds the ids, once, as the reference
    writes it (the optimized engine gave two columns named id, a KeyError in the writer; the fuzz:
    MR-unmatched-rows with --id-col ts)."""
    events = pd.DataFrame({"id": [7, 5, 9, 4], "ts": [1, 2, 3, 4], "price": [10, 8, 6, 9]})
    text = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES CLASSIFIER() AS cls ALL ROWS PER MATCH "
            "PATTERN (B+) DEFINE B AS price < PREV(price))")
    got, want = (cepkit.run(text, events, language="sql", engine=e, id_col="ts").to_pandas()
                 for e in ("optimized", "reference"))
    assert list(got.columns).count("id") == 1 and got.equals(want)
    assert list(got["id"]) == [2, 3]   # the ids: the ts values


def test_ids_beyond_64_bits_are_refused_by_name_and_the_reference_runs_them():
    events = pd.DataFrame({"id": [10**40, 10**40 + 1], "ts": [1, 2], "b": [1, 1]})
    text = "SELECT * FROM u MATCH_RECOGNIZE (ORDER BY ts MEASURES A.b AS x PATTERN (A) DEFINE A AS (b = 1))"
    with pytest.raises(Unsupported, match="event ids beyond 64-bit integers"):
        cepkit.run(text, events, language="sql", engine="optimized")
    with pytest.warns(EngineFallback):
        assert len(cepkit.run(text, events, language="sql")) == 2
