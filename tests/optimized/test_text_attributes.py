"""Text attributes: dictionary codes, equality only, exactly as the reference (text = text, text against a
number unequal, [attr] partitions on text); ordering against a text constant is refused by name."""
from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

from cepkit import compile
from cepkit.core.errors import QueryError, Unsupported
from cepkit.core.readers import from_pandas
from tests.reference.sase_strategies import STRATEGIES

QUERIES = [
    "PATTERN SEQ(A a, B b) WHERE {s} {{ [s] and a.x >= 1 }} WITHIN 4",
    "PATTERN SEQ(A+ a[], B b) WHERE {s} {{ a[i].s = a[1].s and b.s != a[a.LEN].s and a[1].s != 'u' }}",
    "PATTERN SEQ(A a, !(C z), B b) WHERE {s} {{ z.s = a.s and (b.s = 'v' or b.s = '') }} WITHIN 5",
    "PATTERN SEQ(A+ a[], B b) WHERE {s} {{ a[1].s = b.x or count(a[].s) = 1 }}",
]


@st.composite
def text_streams(draw):
    rows, ts = [], 0
    for i in range(draw(st.integers(0, 10))):
        ts += draw(st.integers(0, 2))
        s = draw(st.sampled_from(["u", "v", "", None]))
        rows.append({"id": i, "ts": ts, "type": draw(st.sampled_from("ABC")), "s": s, "x": draw(st.integers(0, 2))})
    return pd.DataFrame(rows, columns=["id", "ts", "type", "s", "x"])


@settings(max_examples=max(40, settings().max_examples // 10), deadline=None)
@given(template=st.sampled_from(QUERIES), strategy=st.sampled_from(STRATEGIES), frame=text_streams(),
       cut=st.integers(0, 10))
def test_text_attributes_equal_reference(template, strategy, frame, cut):
    text = template.format(s=strategy)
    note(text)
    note(frame.to_string())
    batch = from_pandas(frame)
    program = compile(text, engine="optimized")
    cut = min(cut, len(batch))
    got = program.feed(batch.slice(0, cut)) + program.feed(batch.slice(cut, len(batch))) + program.close()
    assert got == compile(text).run(batch)


def test_text_constant_ordering_refused_by_name():
    with pytest.raises(Unsupported, match="ordering comparison with a text constant") as err:
        compile("PATTERN SEQ(A a, B b) WHERE skip_till_any_match { a.s < 'm' }", engine="optimized")
    assert (err.value.line, err.value.column) == (1, 57)  # the text constant


def test_query_errors_are_the_references():
    text = "PATTERN SEQ(A a, B b) WHERE skip_till_any_match { a.x + 'k' = 1 }"
    with pytest.raises(QueryError) as ours:
        compile(text, engine="optimized")
    with pytest.raises(QueryError) as theirs:
        compile(text)
    assert str(ours.value) == str(theirs.value) and not isinstance(ours.value, Unsupported)


def test_number_like_text_in_a_column_refused_by_name():
    frame = pd.DataFrame({"id": [1, 2], "ts": [0, 1], "type": ["A", "B"], "s": ["7", "abc"]})
    program = compile("PATTERN SEQ(A a, B b) WHERE skip_till_any_match { a.s = b.s }", engine="optimized")
    with pytest.raises(Unsupported, match="column 's'"):
        program.run(from_pandas(frame))
