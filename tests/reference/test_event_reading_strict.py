"""Issue 14, "one event reader": every format reads numbers by one rule, keeps integers exact, and refuses
ragged rows, wrong kinds of values and unreadable files with an EventError (exit 3) naming the row and
column; never a silent null, a rounded integer or a traceback (docs/semantics.md, "Reading events")."""
from __future__ import annotations

import gzip
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from cepkit.cli import main
from cepkit.front.afa.afafile import loads_afa
from cepkit.front.afa.eventfile import read_stream, to_elements
from cepkit.core.errors import EventError
from cepkit.front.evaluate import aggregate
from cepkit.core.inputs import to_batch
from cepkit.core.event_chunks import iter_events
from cepkit.core.numbers_text import NotANumber, parse_number
from cepkit.core.readers import from_arrow, from_pandas, read_csv, read_events, read_jsonl
from cepkit.reference.sql.engine import to_table
from cepkit.front.sql.parse import parse as parse_sql

SASE = "PATTERN SEQ(A a, B b) WHERE a.x < b.x\n"
SASE_AVG = "PATTERN SEQ(A a, B+ b[ ]) WHERE a.x < avg(b[ ].x)\nWITHIN 5\nRETURN avg(b[ ].x) AS m\n"
SQL = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.x AS ax ONE ROW PER MATCH "
       "PATTERN (A B) DEFINE B AS B.x > A.x)")


def cli(capsys, tmp_path, query: str, suffix: str, events, *options) -> tuple[int, str]:
    q = tmp_path / f"q{suffix}"
    q.write_text(query)
    code = main(["run", str(q), str(events), "--no-progress", *map(str, options)])
    out, err = capsys.readouterr()
    return code, out + err


def write(tmp_path, name: str, text: str):
    p = tmp_path / name
    p.write_text(text)
    return p


# ------------------------------------------------------------------------------------ the one number rule
@pytest.mark.parametrize("text, value", [
    ("5", 5), (" -7 ", -7), ("+3", 3), ("007", 7), ("0.1", Fraction(1, 10)), (".5", Fraction(1, 2)),
    ("5.", 5), ("1e3", 1000), ("1.5E+3", 1500), ("1e309", 10**309), ("1e400", 10**400),
    ("-1e-400", Fraction(-1, 10**400)), ("99999999999999999999999999999999", 10**32 - 1),
])
def test_number_text_reads_exactly(text, value):
    assert parse_number(text) == value and type(parse_number(text)) is type(value)


@pytest.mark.parametrize("text", ["abc", "1_000", "inf", "-Infinity", "nan", "0x10", "١٢٣", "", "  ", "1e",
                                  "true", "1/2", "1e99999"])
def test_number_text_refuses(text):
    with pytest.raises(NotANumber):
        parse_number(text)


# ---------------------------------------------------------------- numbers that became null (1e309, 1_000)
def test_csv_large_exponents_are_exact_not_null(tmp_path):
    batch = read_csv(write(tmp_path, "e.csv", "type,ts,x\nA,1,5\nB,2,1e309\nB,3,1e400\n"))
    assert [batch.exact_value("x", i) for i in range(3)] == [5, 10**309, 10**400]


@pytest.mark.parametrize("cell", ["1_000", "abc", "inf", "0x10"])
@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_a_cell_that_is_not_a_number_exits_3_naming_row_and_column(capsys, tmp_path, cell, fmt):
    if fmt == "csv":
        events = write(tmp_path, "e.csv", f"type,ts,x\nA,1,5\nB,2,{cell}\n")
    else:
        events = write(tmp_path, "e.jsonl", f'{{"type":"A","ts":1,"x":5}}\n{{"type":"B","ts":2,"x":"{cell}"}}\n')
    code, text = cli(capsys, tmp_path, SASE, ".sase", events)
    assert code == 3 and "row 2, column 'x'" in text and "Traceback" not in text
    # JSON: text among numbers is a value of the wrong kind, whatever the query does with it
    assert ("non-numeric value" if fmt == "csv" else "text value") in text


def test_a_json_column_holds_one_kind(tmp_path):
    """JSON says what each value is: text in a column of numbers is refused even where the query only tests
    equality ([attr] or =), where it would silently change the partition (fuzz: changed answer, json-kind)."""
    events = write(tmp_path, "e.jsonl", '{"type":"A","ts":1,"k":5}\n{"type":"B","ts":2,"k":"12x"}\n')
    with pytest.raises(EventError, match="text value '12x' in a column of numbers") as info:
        read_jsonl(events)
    assert (info.value.row, info.value.column) == (2, "k")
    mixed_ok = write(tmp_path, "f.jsonl", '{"type":"A","ts":1,"k":5}\n{"type":"B","ts":2,"k":1.5}\n'
                                          '{"type":"B","ts":3,"k":null}\n')
    assert read_jsonl(mixed_ok).exact_value("k", 1) == Fraction(3, 2)


def test_require_numeric_and_the_csv_reader_agree(tmp_path):
    """Text read as a number later (a mixed column) follows the same rule as a numeric CSV column."""
    cells = ["5", "1e309", "0.1", "-3"]
    typed = read_csv(write(tmp_path, "a.csv", "type,ts,x\n" + "".join(f"A,{i},{c}\n" for i, c in enumerate(cells))))
    mixed = from_pandas(pd.DataFrame({"type": ["A"] * 5, "ts": range(5), "x": cells + ["word"]}))
    mixed.require_numeric("x", np.array([True] * 4 + [False]))
    assert [typed.exact_value("x", i) for i in range(4)] == [mixed.exact_value("x", i) for i in range(4)]


# --------------------------------------------------------------------------------- exact integers
BIG = 10**32 - 1


def test_big_integers_are_exact_in_every_format(tmp_path):
    csv = read_csv(write(tmp_path, "e.csv", f"type,ts,x\nA,1,{BIG}\nA,2,1\n"))
    jsonl = read_jsonl(write(tmp_path, "e.jsonl", f'{{"type":"A","ts":1,"x":{BIG}}}\n{{"type":"A","ts":2,"x":1}}\n'))
    frame = from_pandas(pd.DataFrame({"type": ["A", "A"], "ts": [1, 2], "x": pd.Series([BIG, 1], dtype=object)}))
    for batch in (csv, jsonl, frame):
        assert batch.exact_value("x", 0) == BIG and batch.exact_value("x", 1) == 1


def test_int64_with_nulls_stays_exact_beyond_2_53():
    big = 2**53 + 1
    frame = pd.DataFrame({"type": ["A", "A"], "ts": [1, 2], "x": pd.array([big, None], dtype="Int64")})
    for batch in (from_pandas(frame), from_arrow(pa.Table.from_pandas(frame, preserve_index=False))):
        assert batch.exact_value("x", 0) == big and batch.exact_value("x", 1) is None


def test_long_decimals_are_exact(tmp_path):
    batch = read_csv(write(tmp_path, "e.csv", "type,ts,x\nA,1,0.10000000000000001\nA,2,0.5\n"))
    assert batch.exact_value("x", 0) == Fraction(10000000000000001, 10**17)
    assert batch.exact_value("x", 1) == Fraction(1, 2)
    jsonl = read_jsonl(write(tmp_path, "e.jsonl", '{"type":"A","ts":1,"x":0.10000000000000001}\n'))
    assert jsonl.exact_value("x", 0) == Fraction(10000000000000001, 10**17)


# ------------------------------------------------------------------------ ragged and truncated rows
@pytest.mark.parametrize("text, row", [
    ("type,ts,x\nA,1,5\nB,2\nA,3,7\n", 2),        # short
    ("type,ts,x\nA,1,5\nB,2,6,9\n", 2),           # long
    ("type,ts,x\nA,1,5\nB,2,6\nA,3", 3),          # cut mid-row
])
def test_ragged_rows_are_refused_by_every_csv_path(tmp_path, text, row):
    p = write(tmp_path, "e.csv", text)
    for read in (read_csv, lambda path: list(iter_events(path, 1)), lambda path: read_stream(path, loads_afa(AFA))):
        with pytest.raises(EventError, match="cells, found") as info:
            read(p)
        assert info.value.row == row


def test_ragged_row_exits_3(capsys, tmp_path):
    code, text = cli(capsys, tmp_path, SASE, ".sase", write(tmp_path, "e.csv", "type,ts,x\nA,1,5\nB,2\n"))
    assert code == 3 and "row 2" in text and "expected 3 cells, found 2" in text


def test_duplicate_csv_column_is_refused(tmp_path):
    with pytest.raises(EventError, match="duplicate column 'x'"):
        read_csv(write(tmp_path, "e.csv", "type,ts,x,x\nA,1,5,6\n"))


# -------------------------------------------------------------------------------- JSON kinds
@pytest.mark.parametrize("value", ["true", "[1]", '{"a": 1}'])
def test_json_value_of_the_wrong_kind_exits_3(capsys, tmp_path, value):
    events = write(tmp_path, "e.jsonl", f'{{"type":"A","ts":1,"x":5}}\n{{"type":"B","ts":2,"x":{value}}}\n')
    code, text = cli(capsys, tmp_path, SASE, ".sase", events)
    assert code == 3 and "row 2, column 'x'" in text
    assert ("a boolean value True in a column of numbers" if value == "true" else "is not an event attribute value") in text


@pytest.mark.parametrize("value", [[1], {"a": 1}, (1, 2)])
def test_nested_values_are_refused_from_every_source(value):
    """An array or object is no attribute value, even in a column the query only partitions or tests with
    `=` (a TPStream partition attribute holding an object was a TypeError traceback)."""
    df = pd.DataFrame({"type": ["A", "B"], "ts": [1, 2], "x": [5, None]})
    df["x"] = pd.Series([5, value], dtype=object)
    arrow = pa.table({"type": ["A", "B"], "ts": [1, 2], "x": pa.array([None, [1, 2]], pa.list_(pa.int64()))})
    for events in (df, arrow):
        with pytest.raises(EventError, match="is not an event attribute value") as info:
            to_batch(events)
        assert info.value.row == 2 and info.value.column == "x"


def test_json_line_that_is_not_an_object(tmp_path):
    p = write(tmp_path, "e.jsonl", '{"type":"A","ts":1}\n\n[1, 2]\n')
    for read in (read_jsonl, lambda path: list(iter_events(path, 1))):
        with pytest.raises(EventError, match="an array, not a JSON object") as info:
            read(p)
        assert info.value.row == 2   # rows count non-blank lines


def test_json_nan_and_infinity_are_not_json(tmp_path):
    with pytest.raises(EventError, match="Infinity is not a JSON number") as info:
        read_jsonl(write(tmp_path, "e.jsonl", '{"type":"A","ts":1,"x":1}\n{"type":"A","ts":2,"x":-Infinity}\n'))
    assert info.value.row == 2


def test_corrupt_gzip_is_an_event_error(capsys, tmp_path):
    data = gzip.compress(b'{"type":"A","ts":1,"x":5}\n' * 2000)
    p = tmp_path / "e.jsonl.gz"
    p.write_bytes(data[: len(data) // 2])
    for read in (read_events, lambda path: list(iter_events(path, 100))):
        with pytest.raises(EventError, match="cannot read .*EOFError"):
            read(p)
    code, text = cli(capsys, tmp_path, SASE, ".sase", p)
    assert code == 3 and "Traceback" not in text
    p.write_bytes(gzip.compress(b'{"type":"A","ts":1,"x":5}\n'))
    assert len(read_events(p)) == 1


# ------------------------------------------------------------------------------ infinity and NaN
def test_infinite_floats_are_refused_and_nan_is_null(tmp_path):
    frame = pd.DataFrame({"type": ["A", "B", "B"], "ts": [1, 2, 3], "x": [1.0, np.nan, -np.inf]})
    for read in (from_pandas, lambda df: from_arrow(pa.Table.from_pandas(df, preserve_index=False))):
        with pytest.raises(EventError, match="infinite value -inf") as info:
            read(frame)
        assert (info.value.row, info.value.column) == (3, "x")
    frame.loc[2, "x"] = 2.0
    assert from_pandas(frame).exact_value("x", 1) is None
    p = tmp_path / "e.parquet"
    pd.DataFrame({"type": ["A"], "ts": [1], "x": [math.inf]}).to_parquet(p)
    with pytest.raises(EventError, match="infinite value inf") as info:
        read_events(p)
    assert (info.value.row, info.value.column) == (1, "x")


def test_inf_in_an_averaged_attribute_exits_3_not_a_traceback(capsys, tmp_path):
    code, text = cli(capsys, tmp_path, SASE_AVG, ".sase", write(tmp_path, "e.csv", "type,ts,x\nA,1,5\nB,2,inf\n"))
    assert code == 3 and "row 2, column 'x'" in text and "Traceback" not in text
    code, text = cli(capsys, tmp_path, SASE_AVG, ".sase", write(tmp_path, "f.csv", "type,ts,x\nA,1,5\nB,2,1e309\n"))
    assert code == 0 and '"m": 1' + "0" * 309 in text


def test_the_evaluator_refuses_a_non_finite_value_in_avg():
    with pytest.raises(EventError, match="non-finite value inf in AVG"):
        aggregate("avg", [1, math.inf])
    with pytest.raises(EventError, match="MAX over text and numbers"):
        aggregate("max", [1, "a"])


# ------------------------------------------------------------------------- MATCH_RECOGNIZE: same rule
def test_sql_text_in_a_compared_column_exits_3_like_sase(capsys, tmp_path):
    events = write(tmp_path, "e.csv", "type,ts,x\nA,1,5\nB,2,abc\nA,3,7\n")
    code, sql = cli(capsys, tmp_path, SQL, ".sql", events)
    assert code == 3 and "row 2, column 'x': non-numeric value 'abc' in a compared attribute" in sql
    code, sase = cli(capsys, tmp_path, SASE, ".sase", events)
    assert code == 3 and "row 2, column 'x': non-numeric value 'abc' in a compared attribute" in sase


def test_sql_reads_numeric_text_as_numbers():
    q = parse_sql(SQL)
    batch = to_table(pd.DataFrame({"ts": [1, 2], "x": ["5", "10"]}), q)
    assert batch.exact_value("x", 0) == 5 and batch.columns["x"].dtype.kind == "i"


# ----------------------------------------------------------------------------------- AFA: one reader
AFA = """\
window: 10
register: {n: 0}
states: [q0, q1, q2]
start: q0
final: [q2]
arcs:
  - {name: a0, from: q0, to: q1, fence: "e.type = 'A'", transfer: {n: "r.n + e.v"}}
  - {name: a1, from: q1, to: q2, fence: "e.type = 'B' and e.w > 2", transfer: {n: "r.n + e.v"}}
"""


def test_afa_missing_attribute_column_names_it(tmp_path):
    afa = loads_afa(AFA)
    with pytest.raises(EventError, match="missing attribute column 'w'") as info:
        read_stream(write(tmp_path, "e.csv", "type,le,v\nA,1,1\nB,2,2\n"), afa)
    assert info.value.column == "w"
    with pytest.raises(EventError, match="missing attribute column 'v'"):
        to_elements(pd.DataFrame({"type": ["A"], "le": [1], "w": [3]}), afa)


@pytest.mark.parametrize("name, text", [
    ("e.csv", "type,le,v,w\nA,1,1,3\nB,2,2,abc\n"),
    ("e.jsonl", '{"type":"A","le":1,"v":1,"w":3}\n{"type":"B","le":2,"v":2,"w":true}\n'),
])
def test_afa_text_in_a_compared_attribute_is_refused(tmp_path, name, text):
    with pytest.raises(EventError, match="non-numeric value|boolean value True in a column of numbers") as info:
        read_stream(write(tmp_path, name, text), loads_afa(AFA))
    assert (info.value.row, info.value.column) == (2, "w")


def test_afa_payload_values_stay_exact(tmp_path):
    elements = read_stream(write(tmp_path, "e.csv", f"type,le,v,w\nA,1,0.1,3\nB,2,{BIG},4\n"), loads_afa(AFA))
    payloads = [dict(x.event.payload) for _, x in elements]
    assert payloads == [{"type": "A", "v": Fraction(1, 10), "w": 3}, {"type": "B", "v": BIG, "w": 4}]


# --------------------------------------------------------------------- header-only file with a duration
@pytest.mark.parametrize("query, suffix, header", [
    ("PATTERN SEQ(A a, B b) WHERE a.x < b.x\nWITHIN 5 s\n", ".sase", "type,ts,x\n"),
    (SQL.replace("DEFINE", "WITHIN 5 SECONDS DEFINE"), ".sql", "ts,x\n"),
])
def test_header_only_file_with_a_duration_window_gives_no_matches(capsys, tmp_path, query, suffix, header):
    code, text = cli(capsys, tmp_path, query, suffix, write(tmp_path, "e.csv", header))
    assert code == 0 and "from 0 events" in text


def test_header_only_tpstream_with_a_duration_window(capsys, tmp_path):
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "examples" / "tpstream"
    header = (root / "car_sensors.csv").read_text().splitlines()[0] + "\n"
    code = main(["run", str(root / "aggressive_drivers.tps"), str(write(tmp_path, "e.csv", header)), "--no-progress"])
    assert code == 0 and "from 0 events" in capsys.readouterr().err

