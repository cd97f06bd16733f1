"""Whatever rows a user gives, a run answers with matches, an EventError or a QueryError, never another exception."""
from __future__ import annotations

import math

import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from cepkit import run
from cepkit.core.errors import EventError, QueryError

VALUES = st.one_of(st.none(), st.integers(-3, 3), st.floats(allow_nan=True, allow_infinity=True, width=32),
                   st.sampled_from(["1", "2.5", "abc", "", " 3 ", "1e3", "NaN", "2008-06-10T09:01:00"]),
                   st.booleans())
QUERIES = [
    "PATTERN SEQ(A+ a[], B b) WHERE skip_till_next_match { a[i].x > avg(a[..i-1].x) and b.x < a[a.LEN].x * 2 }",
    "PATTERN SEQ(A a, !(C c), B b) WHERE partition_contiguity { [g] and b.x % 2 = a.x % 2 } WITHIN 3",
    "PATTERN SEQ(A a, B b) WHERE skip_till_any_match { a.g = b.g } RETURN a.x + b.x AS s, a.x / b.x AS r",
]


@st.composite
def frames(draw):
    n = draw(st.integers(0, 6))
    cols = {"ts": draw(st.lists(st.one_of(st.integers(0, 5), VALUES), min_size=n, max_size=n)),
            "type": draw(st.lists(st.sampled_from(["A", "B", "C", None, "a"]), min_size=n, max_size=n)),
            "x": draw(st.lists(VALUES, min_size=n, max_size=n)),
            "g": draw(st.lists(VALUES, min_size=n, max_size=n))}
    if draw(st.booleans()):
        cols["id"] = draw(st.lists(st.one_of(st.integers(0, 3), st.text(max_size=2)), min_size=n, max_size=n))
    drop = draw(st.sampled_from([None, "x", "g", "type", "ts"]))
    if drop:
        del cols[drop]
    return pd.DataFrame(cols)


@given(frames(), st.sampled_from(QUERIES), st.booleans())
def test_messy_rows_give_matches_or_a_clear_error(frame, query, sort):
    try:
        matches = run(query, frame, read_options={"sort": sort})
    except (EventError, QueryError) as exc:
        assert str(exc)
        return
    for m in matches:
        for _, value in m.payload:
            assert value is None or not isinstance(value, float) or not math.isnan(value)
