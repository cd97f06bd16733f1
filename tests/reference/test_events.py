"""Tests of reading events into an EventBatch (cepkit.core.events)."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cepkit.core.errors import EventError
from cepkit.core.events import TIME_UNITS, EventBatch
from cepkit.core.readers import from_arrow, from_pandas, read_csv, read_events, read_jsonl, read_parquet, to_pandas


def sample_frame() -> pd.DataFrame:
    return pd.DataFrame({
        "type": ["A", "B", "A", "C"],
        "ts": [1, 2, 2, 5],
        "id": ["e1", "e2", "e3", "e4"],
        "price": [12.1, 5.0, np.nan, 3.0],
        "qty": [1, 2, 3, 4],
        "name": ["x", None, "z", "w"],
        "flag": [True, False, True, False],
    })


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    return path


def assert_same_column(a: np.ndarray, b: np.ndarray) -> None:
    assert a.dtype == b.dtype
    assert len(a) == len(b)
    for x, y in zip(a, b):
        if isinstance(x, float) and np.isnan(x):
            assert isinstance(y, float) and np.isnan(y)
        else:
            assert x == y and type(x) is type(y)


def assert_same_batch(a: EventBatch, b: EventBatch) -> None:
    assert a.type_names == b.type_names
    assert list(a.columns) == list(b.columns)
    for name in a.columns:
        assert_same_column(a.columns[name], b.columns[name])
    for field in ("type_codes", "ts", "ids", "source_rows"):
        assert_same_column(getattr(a, field), getattr(b, field))
    assert a.ts_unit == b.ts_unit


# ---------------------------------------------------------------------------------------------
# Readers agree.

def expected_checks(batch: EventBatch) -> None:
    assert len(batch) == 4
    assert batch.type_names == ("A", "B", "C")
    assert batch.type_codes.dtype == np.int32
    assert [batch.type_of(i) for i in range(4)] == ["A", "B", "A", "C"]
    assert batch.ts.dtype == np.int64 and batch.ts.tolist() == [1, 2, 2, 5]
    assert batch.ids.tolist() == ["e1", "e2", "e3", "e4"]
    assert all(type(i) is str for i in batch.ids)
    assert batch.source_rows.tolist() == [1, 2, 3, 4]
    assert batch.ts_unit is None
    assert set(batch.columns) == {"price", "qty", "name", "flag"}
    assert batch.columns["price"].dtype == np.float64
    assert np.isnan(batch.columns["price"][2])
    assert batch.columns["qty"].dtype == np.int64
    assert batch.columns["flag"].dtype == np.bool_
    assert batch.columns["name"].dtype == object
    assert batch.columns["name"].tolist() == ["x", None, "z", "w"]


def via_pandas(tmp_path):
    return from_pandas(sample_frame())


def via_arrow(tmp_path):
    return from_arrow(pa.Table.from_pandas(sample_frame(), preserve_index=False))


def via_record_batch(tmp_path):
    return from_arrow(pa.RecordBatch.from_pandas(sample_frame(), preserve_index=False))


def via_csv(tmp_path):
    path = tmp_path / "events.csv"
    sample_frame().to_csv(path, index=False)
    return read_csv(path)


def via_parquet(tmp_path):
    path = tmp_path / "events.parquet"
    sample_frame().to_parquet(path, index=False)
    return read_parquet(path)


def via_jsonl(tmp_path):
    path = tmp_path / "events.jsonl"
    sample_frame().to_json(path, orient="records", lines=True)
    return read_jsonl(path)


def via_read_events(tmp_path):
    batches = []
    for name in ("e.csv", "e.parquet", "e.pq", "e.jsonl", "e.ndjson", "e.json"):
        path = tmp_path / name
        if name.endswith(".csv"):
            sample_frame().to_csv(path, index=False)
        elif name.endswith(("parquet", "pq")):
            sample_frame().to_parquet(path, index=False)
        else:
            sample_frame().to_json(path, orient="records", lines=True)
        batches.append(read_events(path))
    for b in batches[1:]:
        assert_same_batch(batches[0], b)
    return batches[0]


READERS = [via_pandas, via_arrow, via_record_batch, via_csv, via_parquet, via_jsonl, via_read_events]


@pytest.mark.parametrize("reader", READERS, ids=lambda f: f.__name__)
def test_each_reader_gives_the_same_batch(tmp_path, reader):
    batch = reader(tmp_path)
    expected_checks(batch)
    assert_same_batch(batch, from_pandas(sample_frame()))


def test_json_array_file(tmp_path):
    path = tmp_path / "events.json"
    sample_frame().to_json(path, orient="records")
    assert_same_batch(read_events(path), from_pandas(sample_frame()))


def test_explicit_format_overrides_extension(tmp_path):
    path = tmp_path / "events.txt"
    sample_frame().to_csv(path, index=False)
    assert_same_batch(read_events(path, format="csv"), from_pandas(sample_frame()))
    with pytest.raises(EventError, match="unknown events format"):
        read_events(path, format="xml")


def test_reader_keywords_are_passed_on(tmp_path):
    path = write(tmp_path, "e.csv", "kind,time,x\nA,3,1\nB,1,2\n")
    batch = read_events(path, type_col="kind", ts_col="time", ts_unit="ms", sort=True)
    assert batch.ts.tolist() == [1, 3]
    assert batch.ts_unit == "ms"
    assert [batch.type_of(i) for i in range(2)] == ["B", "A"]
    assert list(batch.columns) == ["x"]


# ---------------------------------------------------------------------------------------------
# Timestamps.

def test_time_units():
    assert TIME_UNITS == {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 10**9, "min": 60 * 10**9,
                          "h": 3600 * 10**9, "d": 86400 * 10**9}


def test_datetime_timestamps_become_nanoseconds(tmp_path):
    stamps = pd.to_datetime(["2024-01-01T00:00:00", "2024-01-01T00:00:01.5"], format="ISO8601")
    df = pd.DataFrame({"type": ["A", "B"], "ts": stamps})
    expected = [1704067200 * 10**9, 1704067201 * 10**9 + 500_000_000]
    batch = from_pandas(df, ts_unit="ms")  # a unit given for datetimes is ignored
    assert batch.ts.dtype == np.int64
    assert batch.ts.tolist() == expected
    assert batch.ts_unit == "ns"

    aware = df.assign(ts=stamps.tz_localize("Europe/Paris"))
    assert from_pandas(aware).ts.tolist() == [t - 3600 * 10**9 for t in expected]

    # Parquet keeps microsecond timestamps; they still come back as nanoseconds.
    table = pa.table({"type": ["A", "B"], "ts": pa.array(stamps, pa.timestamp("us"))})
    pq.write_table(table, tmp_path / "t.parquet")
    batch = read_parquet(tmp_path / "t.parquet")
    assert batch.ts.tolist() == expected and batch.ts_unit == "ns"


def test_iso_strings_in_csv_become_nanoseconds(tmp_path):
    path = write(tmp_path, "e.csv",
                 "type,ts,x\nA,2024-01-01T00:00:00Z,1\nB,2024-01-01 00:00:02.25,2\nA,2024-01-01T02:00:03+02:00,3\n")
    batch = read_csv(path)
    base = 1704067200 * 10**9
    assert batch.ts.tolist() == [base, base + 2_250_000_000, base + 3 * 10**9]
    assert batch.ts_unit == "ns"


def test_integer_strings_are_ticks_with_the_given_unit():
    df = pd.DataFrame({"type": ["A", "A"], "ts": pd.Series([" 10", "20"], dtype=object)})
    batch = from_pandas(df, ts_unit="s")
    assert batch.ts.tolist() == [10, 20] and batch.ts.dtype == np.int64
    assert batch.ts_unit == "s"
    assert from_pandas(df).ts_unit is None


def test_unreadable_timestamp_names_row_and_column(tmp_path):
    path = write(tmp_path, "e.csv", "type,ts\nA,2024-01-01\nA,2024-01-02\nB,xyz\n")
    with pytest.raises(EventError) as info:
        read_csv(path)
    assert info.value.row == 3 and info.value.column == "ts"
    assert "cannot read timestamp 'xyz'" in info.value.message
    assert "ISO-8601" in info.value.message


def test_float_timestamps(tmp_path):
    df = pd.DataFrame({"type": ["A", "A", "A"], "ts": [1.0, 2.0, 3.0]})
    batch = from_pandas(df)
    assert batch.ts.dtype == np.int64 and batch.ts.tolist() == [1, 2, 3]
    with pytest.raises(EventError) as info:
        from_pandas(df.assign(ts=[1.0, 2.5, 3.0]))
    assert info.value.row == 2 and info.value.column == "ts"


def test_null_timestamp_names_row(tmp_path):
    path = write(tmp_path, "e.csv", "type,ts,x\nA,1,1\nA,,2\n")
    with pytest.raises(EventError) as info:
        read_csv(path)
    assert info.value.row == 2 and info.value.column == "ts"


def test_unknown_ts_unit():
    with pytest.raises(EventError, match="unknown time unit 'weeks'"):
        from_pandas(sample_frame(), ts_unit="weeks")
    for unit in TIME_UNITS:
        assert from_pandas(sample_frame(), ts_unit=unit).ts_unit == unit


def test_unknown_ts_unit_through_a_reader(tmp_path):
    path = write(tmp_path, "e.csv", "type,ts\nA,1\n")
    with pytest.raises(EventError, match="unknown time unit"):
        read_events(path, ts_unit="fortnight")


def test_unsorted_timestamps_name_the_row():
    df = pd.DataFrame({"type": ["A", "B", "C", "D"], "ts": [1, 5, 3, 7]})
    with pytest.raises(EventError) as info:
        from_pandas(df)
    assert info.value.row == 3 and info.value.column == "ts"
    assert "timestamps are not in order" in info.value.message
    assert "--sort" in info.value.message


def test_sort_is_stable_on_many_ties():
    rng = np.random.default_rng(7)
    ts = rng.integers(0, 4, size=500)
    batch = from_pandas(pd.DataFrame({"type": ["A"] * 500, "ts": ts}), sort=True)
    expected = sorted(range(500), key=lambda i: ts[i])  # Python's sort is stable
    assert batch.source_rows.tolist() == [i + 1 for i in expected]
    assert batch.ids.tolist() == expected


def test_sort_is_stable_and_keeps_source_rows():
    df = pd.DataFrame({"type": ["A", "B", "C", "D", "E"], "ts": [5, 3, 5, 1, 3], "v": [0, 1, 2, 3, 4]})
    batch = from_pandas(df, sort=True)
    assert batch.ts.tolist() == [1, 3, 3, 5, 5]
    assert [batch.type_of(i) for i in range(5)] == ["D", "B", "E", "A", "C"]
    assert batch.source_rows.tolist() == [4, 2, 5, 1, 3]
    assert batch.ids.tolist() == [3, 1, 4, 0, 2]  # positions in the source, not after sorting
    assert batch.columns["v"].tolist() == [3, 1, 4, 0, 2]


# ---------------------------------------------------------------------------------------------
# Types, ids and missing columns.

def test_missing_type_column_names_it_and_default_type():
    df = pd.DataFrame({"ts": [1, 2], "x": [1, 2]})
    with pytest.raises(EventError) as info:
        from_pandas(df)
    assert info.value.column == "type"
    assert "missing event type column 'type'" in info.value.message
    assert "default_type" in info.value.message and "--default-type" in info.value.message

    batch = from_pandas(df, default_type="Tick")
    assert batch.type_names == ("Tick",)
    assert [batch.type_of(i) for i in range(2)] == ["Tick", "Tick"]
    assert batch.type_code("Tick") == 0 and batch.type_code("Other") is None


def test_custom_type_column_name_in_error():
    with pytest.raises(EventError) as info:
        from_pandas(pd.DataFrame({"ts": [1]}), type_col="kind")
    assert info.value.column == "kind" and "'kind'" in info.value.message


def test_missing_ts_column_names_it():
    with pytest.raises(EventError) as info:
        from_pandas(pd.DataFrame({"type": ["A"], "time": [1]}))
    assert info.value.column == "ts"


@pytest.mark.parametrize("bad", [None, "", "  "])
def test_null_or_empty_type_names_row(bad):
    df = pd.DataFrame({"type": ["A", "B", bad], "ts": [1, 2, 3]})
    with pytest.raises(EventError) as info:
        from_pandas(df)
    assert info.value.row == 3 and info.value.column == "type"


def test_type_dictionary():
    batch = from_pandas(pd.DataFrame({"type": ["Sell", "Buy", "Sell"], "ts": [1, 2, 3]}))
    assert batch.type_names == ("Buy", "Sell")
    assert batch.type_codes.tolist() == [1, 0, 1]
    assert batch.type_code("Sell") == 1 and batch.type_code("Hold") is None
    assert batch.type_of(1) == "Buy"


def test_given_id_column_is_kept():
    df = pd.DataFrame({"type": ["A", "A"], "ts": [1, 2], "id": [100, 7]})
    batch = from_pandas(df)
    assert batch.ids.dtype == np.int64 and batch.ids.tolist() == [100, 7]
    assert "id" not in batch.columns
    df = pd.DataFrame({"type": ["A", "A"], "ts": [1, 2], "key": ["k9", "k1"]})
    batch = from_pandas(df, id_col="key")
    assert batch.ids.tolist() == ["k9", "k1"] and "key" not in batch.columns


def test_absent_id_column_gives_positions():
    batch = from_pandas(pd.DataFrame({"type": ["A", "A", "A"], "ts": [1, 2, 3]}))
    assert batch.ids.dtype == np.int64 and batch.ids.tolist() == [0, 1, 2]


def test_duplicate_ids_name_the_second_occurrence(tmp_path):
    path = write(tmp_path, "e.csv", "type,ts,id\nA,1,a\nA,2,b\nA,3,c\nA,4,b\n")
    with pytest.raises(EventError) as info:
        read_csv(path)
    assert info.value.row == 4 and info.value.column == "id"
    assert "duplicate" in info.value.message


def test_require_columns():
    batch = from_pandas(sample_frame())
    batch.require_columns(["price", "qty"])
    with pytest.raises(EventError) as info:
        batch.require_columns(["price", "volume", "other"], context={"volume": "a.volume > 3"})
    assert info.value.column == "volume"
    assert info.value.message == "missing attribute column 'volume' (needed by a.volume > 3)"
    with pytest.raises(EventError) as info:
        batch.require_columns(["other"])
    assert info.value.message == "missing attribute column 'other'"


# ---------------------------------------------------------------------------------------------
# Attribute values.

def test_exact_value():
    batch = from_pandas(sample_frame())
    assert batch.exact_value("price", 0) == Fraction("12.1")
    assert isinstance(batch.exact_value("price", 0), Fraction)
    five = batch.exact_value("price", 1)
    assert five == 5 and type(five) is int
    assert batch.exact_value("price", 2) is None
    assert batch.exact_value("qty", 3) == 4 and type(batch.exact_value("qty", 3)) is int
    assert batch.exact_value("name", 0) == "x" and batch.exact_value("name", 1) is None
    assert batch.exact_value("flag", 0) is True and batch.exact_value("flag", 1) is False


def test_exact_value_from_csv_text(tmp_path):
    path = write(tmp_path, "e.csv", "type,ts,p\nA,1,0.1\nA,2,0.2\nA,3,0.3\n")
    batch = read_csv(path)
    total = sum(batch.exact_value("p", i) for i in range(2))
    assert total == batch.exact_value("p", 2) == Fraction(3, 10)


def test_jsonl_floats_are_read_exactly(tmp_path):
    # Shortest-repr decimals that a fast (imprecise) JSON float parser gets wrong by one ulp.
    texts = ["2.1060533511106927", "5.709129450392925", "0.8447179488895173", "1.4632322837967449"]
    path = write(tmp_path, "e.jsonl",
                 "".join(f'{{"type": "A", "ts": {i}, "x": {t}}}\n' for i, t in enumerate(texts)))
    batch = read_jsonl(path)
    assert [batch.exact_value("x", i) for i in range(len(texts))] == [Fraction(t) for t in texts]


def test_non_numeric_value_names_row_and_column(tmp_path):
    path = write(tmp_path, "e.csv", "type,ts,price\nA,1,1.5\nA,2,2\nB,3,abc\nA,4,\n")
    batch = read_csv(path)
    with pytest.raises(EventError) as info:
        batch.require_numeric("price", context="in a.price > 1")
    assert info.value.row == 3 and info.value.column == "price"
    assert info.value.message.startswith("non-numeric value 'abc' in a compared attribute")
    assert "a.price > 1" in info.value.message


def test_non_numeric_value_names_source_row_after_sorting(tmp_path):
    path = write(tmp_path, "e.csv", "type,ts,price\nA,9,1\nA,2,oops\nA,5,3\n")
    batch = read_csv(path, sort=True)
    assert batch.source_rows.tolist() == [2, 3, 1]
    with pytest.raises(EventError) as info:
        batch.require_numeric("price")
    assert info.value.row == 2 and info.value.column == "price"


def test_require_numeric_converts_numeric_strings(tmp_path):
    df = pd.DataFrame({"type": ["A", "A", "A"], "ts": [1, 2, 3],
                       "p": pd.Series(["12.1", None, "7"], dtype=object)})
    batch = from_pandas(df)
    assert batch.exact_value("p", 0) == "12.1"
    batch.require_numeric("p")
    assert batch.columns["p"].dtype.kind == "f"
    assert batch.exact_value("p", 0) == Fraction("12.1")
    assert batch.exact_value("p", 1) is None
    assert batch.exact_value("p", 2) == 7 and type(batch.exact_value("p", 2)) is int


def test_require_numeric_checks_only_the_given_rows():
    df = pd.DataFrame({"type": ["A", "B", "A"], "ts": [1, 2, 3],
                       "v": pd.Series(["1.5", "text", "2"], dtype=object)})
    batch = from_pandas(df)
    is_a = batch.type_codes == batch.type_code("A")
    batch.require_numeric("v", rows=is_a)              # the B event's text is not compared
    assert batch.exact_value("v", 0) == Fraction(3, 2)
    assert batch.exact_value("v", 2) == 2
    assert batch.exact_value("v", 1) == "text"
    with pytest.raises(EventError) as info:
        batch.require_numeric("v", rows=np.array([1]))
    assert info.value.row == 2 and info.value.column == "v"


def test_require_numeric_accepts_numeric_columns():
    batch = from_pandas(sample_frame())
    for name in ("price", "qty"):
        batch.require_numeric(name)
    with pytest.raises(EventError, match="non-numeric value True"):  # a boolean is not a number (issue 14)
        batch.require_numeric("flag")
    with pytest.raises(EventError) as info:
        batch.require_numeric("name")
    assert info.value.row == 1 and "'x'" in info.value.message
    with pytest.raises(EventError):
        batch.require_numeric("missing")


# ---------------------------------------------------------------------------------------------
# Batch helpers.

def test_slice_and_to_pandas():
    batch = from_pandas(sample_frame())
    part = batch.slice(1, 3)
    assert len(part) == 2
    assert part.ts.tolist() == [2, 2] and part.ids.tolist() == ["e2", "e3"]
    assert part.source_rows.tolist() == [2, 3]
    assert part.type_of(0) == "B" and part.type_names == batch.type_names
    assert part.exact_value("price", 0) == 5

    df = to_pandas(batch)
    assert list(df.columns) == ["type", "ts", "id", "price", "qty", "name", "flag"]
    assert_same_batch(from_pandas(df), batch)


def test_header_only_csv_is_an_empty_batch(tmp_path):
    path = write(tmp_path, "e.csv", "type,ts,id,price\n")
    batch = read_csv(path, ts_unit="ms")
    assert len(batch) == 0
    assert list(batch.columns) == ["price"]
    assert batch.ts.dtype == np.int64 and batch.ts_unit == "ms"
    assert batch.type_names == ()


# ---------------------------------------------------------------------------------------------
# File errors.

def test_unknown_extension(tmp_path):
    path = write(tmp_path, "events.xml", "<events/>")
    with pytest.raises(EventError) as info:
        read_events(path)
    assert "'.xml'" in info.value.message and ".csv" in info.value.message


def test_missing_file(tmp_path):
    for name in ("nope.csv", "nope.parquet", "nope.jsonl"):
        with pytest.raises(EventError, match="no such file"):
            read_events(tmp_path / name)
    with pytest.raises(EventError):
        read_csv(tmp_path / "nope.csv")


def test_malformed_csv(tmp_path):
    path = write(tmp_path, "e.csv", "type,ts\nA,1\nA,2,3\n")
    with pytest.raises(EventError) as info:
        read_csv(path)
    assert info.value.row == 2
    with pytest.raises(EventError, match="empty"):
        read_csv(write(tmp_path, "empty.csv", ""))


def test_malformed_jsonl_names_the_line(tmp_path):
    path = write(tmp_path, "e.jsonl", '{"type": "A", "ts": 1}\n{"type": "A", "ts": 2\n')
    with pytest.raises(EventError) as info:
        read_jsonl(path)
    assert info.value.row == 2


def test_not_a_parquet_file(tmp_path):
    path = write(tmp_path, "e.parquet", "type,ts\nA,1\n")
    with pytest.raises(EventError, match="Parquet"):
        read_parquet(path)


def test_empty_jsonl_is_an_empty_batch(tmp_path):
    batch = read_jsonl(write(tmp_path, "e.jsonl", ""))
    assert len(batch) == 0 and batch.columns == {}


def test_csv_keeps_na_like_names_as_text(tmp_path):
    path = write(tmp_path, "e.csv", "type,ts,sym,p\nNA,1,None,\nB,2,NA,1.5\n")
    batch = read_csv(path)
    assert batch.type_names == ("B", "NA")
    assert batch.columns["sym"].tolist() == ["None", "NA"]
    assert batch.exact_value("p", 0) is None
