"""The one user API: cepkit.run / cepkit.compile for every language, returning the match table."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

import cepkit
from reference.match_table import MatchTable

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
    table = cepkit.run(text, str(EX / events), read_options=read_options)
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
