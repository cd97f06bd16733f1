"""Events read straight from Arrow columns equal what the pandas path reads from the same table."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cepkit.core.arrow_events import columnar_batch
from cepkit.core.errors import EventError
from cepkit.core.readers import from_arrow, from_pandas


def _same(a, b) -> None:
    assert (a.type_names, a.ts_unit, a.positional_ids) == (b.type_names, b.ts_unit, b.positional_ids)
    for x, y in ((a.type_codes, b.type_codes), (a.ts, b.ts), (a.ids, b.ids), (a.source_rows, b.source_rows)):
        assert x.tolist() == y.tolist()
    assert list(a.columns) == list(b.columns)
    for name in a.columns:
        assert a.columns[name].dtype == b.columns[name].dtype, name
        assert pd.Series(a.columns[name]).equals(pd.Series(b.columns[name])), name


@settings(max_examples=100, deadline=None)
@given(n=st.integers(0, 30), seed=st.integers(0, 10**6), shuffle_ids=st.booleans(), chunks=st.integers(1, 3))
def test_columnar_batch_equals_the_pandas_path(n, seed, shuffle_ids, chunks):
    rng = np.random.default_rng(seed)
    ids = rng.permutation(n) * 3 if shuffle_ids else np.arange(n) * 3
    frame = pd.DataFrame({
        "id": ids, "ts": np.sort(rng.integers(0, 10, n)), "type": rng.choice([" A", "B", "C "], n),
        "i": rng.integers(-5, 5, n), "f": np.where(rng.random(n) < 0.3, np.nan, rng.random(n)),
        "b": rng.random(n) < 0.5, "s": pd.Series(rng.choice(["x", "y", None], n), dtype=object),
        "ni": pd.array(np.where(rng.random(n) < 0.3, None, rng.integers(0, 9, n)), dtype="Int64"),
    })
    table = pa.Table.from_pandas(frame, preserve_index=False)
    if chunks > 1 and n:
        cut = n // chunks
        table = pa.concat_tables([table.slice(0, cut), table.slice(cut)])
    fast = columnar_batch(table)
    if n == 0 and fast is None:  # an empty text column has Arrow's null type: the pandas path reads it
        return
    assert fast is not None
    _same(fast, from_pandas(table.to_pandas()))


@pytest.mark.parametrize("frame", [
    pd.DataFrame({"id": [1, 1], "ts": [0, 1], "type": ["A", "A"]}),            # repeated ids
    pd.DataFrame({"id": [1, 2], "ts": [0, 1], "type": ["A", None]}),           # a missing type
    pd.DataFrame({"id": [1, 2], "ts": [0, 1], "type": ["A", " "]}),            # a blank type
    pd.DataFrame({"id": [1, 2], "ts": ["0", "1"], "type": ["A", "B"]}),        # text timestamps
    pd.DataFrame({"id": ["a", "b"], "ts": [0, 1], "type": ["A", "B"]}),        # text ids
])
def test_other_shapes_go_through_pandas_with_its_errors(frame):
    table = pa.Table.from_pandas(frame, preserve_index=False)
    assert columnar_batch(table) is None
    try:
        expected = from_pandas(frame)
    except EventError as exc:
        with pytest.raises(EventError, match=str(exc.message)[:20]):
            from_arrow(table)
    else:
        _same(from_arrow(table), expected)


def test_out_of_order_timestamps_are_reported_by_row():
    table = pa.table({"id": [1, 2, 3], "ts": [0, 2, 1], "type": ["A", "A", "A"]})
    with pytest.raises(EventError) as err:
        from_arrow(table)
    assert (err.value.row, err.value.column) == (3, "ts")
