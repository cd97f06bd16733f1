"""Messy event values give matches or an EventError naming the row and column, never a traceback."""
from __future__ import annotations

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from cepkit.core.errors import EventError
from cepkit.core.readers import from_pandas
from cepkit.front.tpstream.parser import parse_tpstream
from cepkit.reference.tpstream.run import run_query

QUERY = parse_tpstream("FROM s PARTITION BY k DEFINE A AS x > 1, B AS y = 'on' OR y > 2 "
                       "PATTERN A overlaps;meets;before B WITHIN 20 RETURN avg(A.x) AS ax, last(B.y) AS ly")
VALUES = st.one_of(st.none(), st.integers(-3, 5), st.floats(allow_nan=True, allow_infinity=False, width=16),
                   st.sampled_from(["on", "off", "3", "x", ""]))


@settings(max_examples=max(50, settings().max_examples // 5))
@given(st.lists(st.tuples(st.integers(0, 2), VALUES, VALUES, st.sampled_from([1, "a", None])), max_size=16),
       st.sampled_from(["exact", "early"]))
def test_messy_values(rows, mode):
    frame = pd.DataFrame([{"ts": i // 2, "k": k, "x": x, "y": y} for i, (_d, x, y, k) in enumerate(rows)],
                         columns=["ts", "k", "x", "y"])
    try:
        batch = from_pandas(frame, default_type="E")
        run_query(QUERY, batch, mode)
    except EventError as err:
        assert err.row is not None or err.column is not None
