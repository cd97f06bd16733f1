"""The one user API: cepkit.run / cepkit.compile for every language, returning the match table."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

import cepkit
from cepkit.core.match_table import MatchTable

EX = Path(__file__).resolve().parents[2] / "examples"

EXAMPLES = [  # (query, events, read options, rows expected > 0)
    ("sql/v_shape.sql", "sql/ticker.csv", {}),
    ("tpstream/aggressive_drivers.tps", "tpstream/car_sensors.csv", {"ts_unit": "s"}),
    ("afa/q1.afa.yaml", "afa/q1.shuffled.csv", {}),
    ("query3.sase", "fig3_stream.csv", {}),
    ("sase1_stock.query", "stocks.csv", {}),
]


@pytest.mark.parametrize("query, events, read_options", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_run_returns_a_dataframe_for_every_language(query, events, read_options):
    text = (EX / query).read_text()
    dialect = {"dialect": "sase1"} if query.endswith(".query") else {}  # as the file's suffix says (semantics S1)
    table = cepkit.run(text, str(EX / events), read_options=read_options, **dialect)
    assert isinstance(table, MatchTable) and len(table) > 0
    df = table.to_pandas()
    assert isinstance(df, pd.DataFrame) and len(df) == len(table)
    assert isinstance(table.to_arrow(), pa.Table)
    assert list(df.columns) == table.layout.column_names()
    if query.endswith(".afa.yaml"):
        assert set(df["sign"]) <= {1, -1} and "lifetime_start" in df.columns
    # the same from the file's path, and from a DataFrame of the events
    assert cepkit.run(EX / query, str(EX / events), read_options=read_options).canonical() == table.canonical()


def test_events_as_dataframe_and_arrow():
    text = (EX / "query3.sase").read_text()
    frame = pd.read_csv(EX / "fig3_stream.csv")
    a = cepkit.run(text, frame)
    b = cepkit.run(text, pa.Table.from_pandas(frame))
    assert a.canonical() == b.canonical() and len(a) == 3


def test_compile_finds_the_language_from_the_text():
    program = cepkit.compile((EX / "sql/v_shape.sql").read_text())
    assert program.language == "sql"
    program = cepkit.compile((EX / "query3.sase").read_text(), engine="optimized")
    assert program.language == "sase"


def test_a_one_line_query_longer_than_a_file_name_is_a_query():
    """Text that cannot be a file name (over 255 bytes) is the query, not an OSError of the file check."""
    text = " ".join((EX / "sql/v_shape.sql").read_text().split("\n")[1:])
    assert "\n" not in text and len(text) > 255
    assert len(cepkit.run(text, str(EX / "sql/ticker.csv"))) > 0


def test_sql_table_timestamp_from_the_first_order_by_column(tmp_path):
    """A table without a ts column: the query's first ORDER BY column is the timestamp, for cepkit.run as
    for `cepkit run` (one reader: cepkit.reference.sql.engine.to_table), and the query reads that column by name."""
    from cepkit.cli import main

    (tmp_path / "t.csv").write_text("time,price\n1,10\n2,8\n3,7\n4,9\n")
    (tmp_path / "t.sql").write_text("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY time MEASURES FIRST(A.time) AS t0, "
                                    "LAST(C.time) AS t1 PATTERN (A B+ C) DEFINE B AS price < PREV(price), "
                                    "C AS price > PREV(price))")
    table = cepkit.run(tmp_path / "t.sql", str(tmp_path / "t.csv"))
    assert [(m.binding_dict, m.ts, dict(m.payload)) for m in table] == \
        [({"A": (0,), "B": (1, 2), "C": (3,)}, 4, {"t0": 1, "t1": 4})]
    assert main(["run", str(tmp_path / "t.sql"), str(tmp_path / "t.csv")]) == 0
