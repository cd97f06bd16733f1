"""The Python API a user expects (issue 28 step 6): reading options as keywords, every input form (PyCapsule
streams, lists of row dicts), program.feed over what run reads, and how a MatchTable shows itself."""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

import cepkit
from cepkit.cli import main
from cepkit.core.errors import CepkitError, EventError, QueryError
from cepkit.core.readers import read_events

EX = Path(__file__).resolve().parents[2] / "examples"
QUERY3, FIG3, STOCKS = EX / "query3.sase", EX / "fig3_stream.csv", EX / "stocks.csv"
TPS, CARS = EX / "tpstream/aggressive_drivers.tps", EX / "tpstream/car_sensors.csv"
VSHAPE, TICKER = EX / "sql/v_shape.sql", EX / "sql/ticker.csv"
HAS_POLARS = importlib.util.find_spec("polars") is not None


class Stream:
    """Only the Arrow PyCapsule stream interface (as a polars DataFrame or a DuckDB relation has it)."""

    def __init__(self, table: pa.Table):
        self.table = table

    def __arrow_c_stream__(self, requested_schema=None):
        return self.table.__arrow_c_stream__(requested_schema)


def frame(path: Path) -> pd.DataFrame:
    return pd.read_csv(path)


# ------------------------------------------------------------------ reading options as keywords
def test_ts_unit_keyword_equals_read_options():
    by_keyword = cepkit.run(TPS, CARS, ts_unit="s")
    assert len(by_keyword) > 0
    assert by_keyword == cepkit.run(TPS, CARS, read_options={"ts_unit": "s"})


def test_keywords_reach_the_reader_next_to_engine_options():
    renamed = frame(FIG3).rename(columns={"id": "eid", "type": "kind"})
    got = cepkit.run(QUERY3, renamed, id_col="eid", type_col="kind", selection="all")
    assert got == cepkit.run(QUERY3, FIG3)


def test_id_col_none_reads_row_numbers_as_the_cli_does():
    got = cepkit.run(QUERY3, FIG3, id_col="none")
    assert got == cepkit.run(QUERY3, FIG3, read_options={"id_col": None})
    assert [list(m.bindings[0][1]) for m in got][0][0] == 0


def test_window_events_without_a_type_column_as_the_cli_reads_them(capsys):
    """A window query names no event type: the API reads a file without a type column, as `cepkit run` does
    (each row of type `event`), and gives the rows the command line writes."""
    table = cepkit.run(EX / "sql" / "volume.win", EX / "sql" / "trades.csv")
    assert main(["run", str(EX / "sql" / "volume.win"), str(EX / "sql" / "trades.csv"), "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == ",".join(table.layout.payload)
    frame = table.to_pandas()[[f"payload.{n}" if n == "ts" else n for n in table.layout.payload]]
    rows = [[str(v) for v in row] for row in frame.itertuples(index=False)]
    assert [",".join(r) for r in rows] == lines[1:] and len(rows) > 0


def test_sort_and_input_format_keywords(tmp_path):
    shuffled = frame(FIG3).iloc[::-1]
    with pytest.raises(EventError, match=r"pass sort=True"):
        cepkit.run(QUERY3, shuffled)
    assert cepkit.run(QUERY3, shuffled, sort=True) == cepkit.run(QUERY3, FIG3)
    plain = tmp_path / "events.txt"
    plain.write_text(FIG3.read_text())
    assert cepkit.run(QUERY3, plain, input_format="csv") == cepkit.run(QUERY3, FIG3)


def test_ts_col_keyword_for_sql():
    renamed = frame(TICKER).rename(columns={"ts": "t"})
    query = re.sub(r"\bts\b", "t", VSHAPE.read_text())
    got = cepkit.run(query, renamed, ts_col="t")
    assert got == cepkit.run(query, renamed, read_options={"ts_col": "t"})
    assert len(got) == len(cepkit.run(VSHAPE, TICKER)) > 0


def test_an_unknown_keyword_names_both_sets():
    with pytest.raises(QueryError) as info:
        cepkit.run(QUERY3, FIG3, ts_units="s")
    message = str(info.value)
    assert "no option 'ts_units'" in message and "ts_unit, ts_col" in message and "selection" in message
    with pytest.raises(QueryError, match="afa input takes no reading options"):
        cepkit.run(EX / "afa/ab.afa.yaml", EX / "afa/negative.events.csv", ts_unit="s")


def test_messages_name_the_keyword_from_python_and_the_flag_on_the_command_line(capsys):
    with pytest.raises(QueryError) as info:
        cepkit.run(QUERY3, STOCKS)
    assert "ts_unit='s'" in str(info.value) and "--ts-unit" not in str(info.value)
    with pytest.raises(QueryError) as info:
        cepkit.run(TPS, CARS)
    assert "ts_unit=" in str(info.value) and "--ts-unit" not in str(info.value)
    assert main(["run", str(QUERY3), str(STOCKS)]) == 2
    err = capsys.readouterr().err
    assert "(--ts-unit s|ms|us|ns|min|h|d)" in err and "ts_unit=" not in err


def test_sql_within_a_duration_names_ts_unit():
    query = VSHAPE.read_text().replace("PATTERN (A B+ C+)", "PATTERN (A B+ C+) WITHIN 5 SECONDS")
    if query == VSHAPE.read_text():
        pytest.skip("v_shape.sql's pattern changed")
    with pytest.raises(QueryError, match=r"\(ts_unit\)"):
        cepkit.run(query, TICKER)


# ------------------------------------------------------------------ inputs
def test_a_pycapsule_stream_reads_as_its_arrow_table():
    table = pa.Table.from_pandas(frame(FIG3))
    assert cepkit.run(QUERY3, Stream(table)) == cepkit.run(QUERY3, FIG3)
    assert cepkit.run(TPS, Stream(pa.Table.from_pandas(frame(CARS))), ts_unit="s") == cepkit.run(TPS, CARS,
                                                                                                  ts_unit="s")
    assert len(cepkit.run(VSHAPE, Stream(pa.Table.from_pandas(frame(TICKER))))) == len(cepkit.run(VSHAPE, TICKER))


def test_a_list_of_row_dicts():
    rows = frame(FIG3).to_dict("records")
    assert cepkit.run(QUERY3, rows) == cepkit.run(QUERY3, FIG3)
    assert len(cepkit.run(VSHAPE, frame(TICKER).to_dict("records"))) == len(cepkit.run(VSHAPE, TICKER))
    mixed = [{"id": 1, "ts": 1, "type": "Stock", "price": 1}, {"id": 2, "ts": 2, "type": "Stock", "price": "x"}]
    assert len(cepkit.run("PATTERN SEQ(Stock a) RETURN a.price AS p", mixed)) == 2  # mixed kinds: via pandas


@pytest.mark.skipif(not HAS_POLARS, reason="polars is not installed")
def test_a_polars_dataframe():
    import polars as pl

    assert cepkit.run(QUERY3, pl.read_csv(FIG3)) == cepkit.run(QUERY3, FIG3)


def test_an_unreadable_input_names_the_readable_types():
    with pytest.raises(EventError) as info:
        cepkit.run(QUERY3, 42)
    message = str(info.value)
    assert "of type int" in message and "pandas DataFrame" in message and "__arrow_c_stream__" in message
    assert "list of row dicts" in message and "from_arrow" not in message
    with pytest.raises(EventError, match="input_format names the format of an events file"):
        cepkit.run(QUERY3, frame(FIG3), input_format="csv")


# ------------------------------------------------------------------ program.feed
@pytest.mark.parametrize("form", ["path", "pandas", "arrow", "stream", "rows", "batch"])
def test_feed_takes_what_run_takes(form):
    df = frame(FIG3)
    events = {"path": FIG3, "pandas": df, "arrow": pa.Table.from_pandas(df), "stream": Stream(pa.Table.from_pandas(df)),
              "rows": df.to_dict("records"), "batch": read_events(FIG3)}[form]
    program = cepkit.compile(QUERY3.read_text())
    assert program.feed(events) + program.close() == cepkit.run(QUERY3, FIG3)


def test_feed_reads_with_the_keywords_given_to_compile():
    program = cepkit.compile(TPS.read_text(), ts_unit="s")
    assert program.run(frame(CARS)) == cepkit.run(TPS, CARS, ts_unit="s")
    with pytest.raises(EventError, match="cannot read events of type int"):
        cepkit.compile(QUERY3.read_text()).feed(42)


def test_feed_in_pieces_of_dataframes_equals_run():
    df = frame(FIG3)
    program = cepkit.compile(QUERY3.read_text())
    pieces = program.feed(df.iloc[:4]) + program.feed(df.iloc[4:]) + program.close()
    assert pieces.canonical() == cepkit.run(QUERY3, FIG3).canonical()


# ------------------------------------------------------------------ MatchTable
def test_match_table_exports_the_arrow_stream():
    table = cepkit.run(QUERY3, FIG3)
    assert pa.table(table).equals(table.to_arrow())
    assert pa.RecordBatchReader.from_stream(table).read_all().num_rows == len(table) == 3


def test_match_table_shows_its_first_rows():
    table = cepkit.run(QUERY3, FIG3)
    text = repr(table)
    assert text.splitlines()[0] == "MatchTable: 3 rows, 6 columns"
    assert "first_price" in text and "[e1, e2, e3, e4, e5]" in text and "581/5" in text
    assert str(table) == text
    empty = cepkit.run(QUERY3, STOCKS, ts_unit="s")
    assert repr(empty).startswith("MatchTable: 0 rows") and "(no matches)" in repr(empty)


def test_match_table_cuts_long_tables():
    table = cepkit.run(TPS, CARS, ts_unit="s")
    long = table + table + table + table
    assert "… 2 more rows" in repr(long)
    assert len(repr(long).splitlines()) == 3 + 10 + 1


def test_match_table_html_is_escaped():
    rows = [{"id": 1, "ts": 1, "type": "A", "x": "<b>&"}]
    table = cepkit.run("PATTERN SEQ(A a) RETURN a.x AS x", rows)
    page = table._repr_html_()
    assert page.startswith("<div>") and "<th>x</th>" in page and "&lt;b&gt;&amp;" in page and "<b>&" not in page


def test_to_polars():
    table = cepkit.run(QUERY3, FIG3)
    if HAS_POLARS:
        assert table.to_polars().height == 3
    else:
        with pytest.raises(CepkitError, match="pip install polars"):
            table.to_polars()
