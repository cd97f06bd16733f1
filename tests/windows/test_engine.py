"""The windowed operators on the engine contract: window query text, WindowEngine / GpuWindowEngine through
the registry (cepkit.core.registry.get_engine), without the cepkit package."""
from __future__ import annotations

from fractions import Fraction

import pandas as pd
import pyarrow as pa
import pytest

from cepkit.core import registry
from cepkit.core.errors import EventError, QueryError
from cepkit.core.readers import from_pandas
from cepkit.core.match_table import MatchTable
from cepkit.reference.windows.api import aggregate_batch, filter_batch, join_batches
from cepkit.front.windows.query import WindowQuery, constructs, parse
from cepkit.front.windows.spec import WindowSpec

FILTER = "FILTER WHERE v > 3"
AGG = "AGGREGATE sum(v), avg(v), count(v)\nOVER TIME 4 SLIDE 2"
JOIN = "JOIN ON L.v <= R.v WINDOW COUNT 3 SLIDE 1"


def frame(n=30, ids=True, offset=0):
    df = pd.DataFrame({"ts": [offset + i + i // 3 for i in range(n)], "v": [(i * 5) % 7 for i in range(n)]})
    if ids:
        df.insert(0, "id", [f"e{offset + i}" for i in range(n)])
    return df


def batch(df=None):
    return from_pandas(frame() if df is None else df, type_col=None, default_type="event")


def compile_(query, engine="reference", **options):
    return registry.get_engine("window", engine).compile(query, **options)


# ---------------------------------------------------------------------------------------------- parsing
def test_parse_the_three_operators():
    assert parse(FILTER) == WindowQuery("filter", condition="v > 3")
    q = parse("-- sums\naggregate SUM(v), max(v) over time 10 slide 5 align zero skip empty")
    assert (q.operator, q.attr, q.funcs, q.window, q.skip_empty) == \
        ("aggregate", "v", ("sum", "max"), WindowSpec("time", 10, 5, "zero"), True)
    q = parse("JOIN ON L.k = R.k AND L.v < R.v\nWINDOW TIME 100\nRIGHT WINDOW COUNT 64 SLIDE 8\nACTIVE WARMUP")
    assert (q.condition, q.window, q.right_window, q.active) == \
        ("L.k = R.k AND L.v < R.v", WindowSpec("time", 100, 1), WindowSpec("count", 64, 8), "warmup")
    assert parse(JOIN).right_window == parse(JOIN).window and parse(JOIN).active == "strict"
    assert set(constructs(q)) == {"JOIN", "time window", "count window", "RIGHT WINDOW", "ACTIVE WARMUP"}
    assert constructs(q)["RIGHT WINDOW"].line == 3
    # a query file ends with a newline (and may have blank lines and comments after the query)
    assert parse("AGGREGATE sum(v) OVER COUNT 5\n\n  -- done\n\t\n") == parse("AGGREGATE sum(v) OVER COUNT 5")
    assert parse(FILTER + "\n") == parse(FILTER)


@pytest.mark.parametrize("text, line, column, words", [
    ("", 1, 1, "expected FILTER"),
    ("SELECT v", 1, 1, "expected FILTER or AGGREGATE or JOIN"),
    ("FILTER WHERE v >", 1, 17, ""),
    ("FILTER WHERE\n  v > > 3", 2, 7, ""),
    ("AGGREGATE median(v) OVER TIME 3", 1, 11, "unknown aggregate 'median'"),
    ("AGGREGATE sum(v), max(w) OVER TIME 3", 1, 23, "same attribute"),
    ("AGGREGATE sum(v)\nOVER TIME 4 SLIDE 0", 2, 6, "0 < slide <= size"),
    ("AGGREGATE sum(v) OVER COUNT 4 ALIGN ZERO", 1, 31, "time windows only"),
    ("AGGREGATE sum(v) OVER HOURS 4", 1, 23, "expected TIME or COUNT"),
    ("AGGREGATE sum(v) OVER TIME 4 SKIP", 1, 34, "expected EMPTY"),
    ("JOIN ON L.v < R.v", 1, 18, "expected WINDOW"),
    ("JOIN ON v < R.v WINDOW COUNT 2", 1, 9, "qualif"),
    ("JOIN ON L.v < R.v WINDOW COUNT 2 ACTIVE SOON", 1, 41, "expected STRICT or WARMUP"),
    ("FILTER WHERE v > 1 AND\n w < 2 WINDOW", 2, 8, ""),
])
def test_parse_errors_name_line_and_column(text, line, column, words):
    with pytest.raises(QueryError) as info:
        registry.parse("window", text)
    assert (info.value.line, info.value.column) == (line, column), str(info.value)
    assert words in str(info.value)


# ---------------------------------------------------------------------------------------------- programs
def run(query, data, engine="reference", **options):
    return compile_(query, engine, **options).run(registry.read_input("window", engine, data))


@pytest.mark.parametrize("query", [FILTER, AGG, AGG + " SKIP EMPTY", "AGGREGATE min(v) OVER COUNT 4 SLIDE 3"])
@pytest.mark.parametrize("ids", [True, False], ids=["ids", "positional"])
def test_feed_in_pieces_equals_run_at_once(query, ids):
    b = batch(frame(ids=ids))
    whole = compile_(query).run(b)
    program = compile_(query)
    pieces = [program.feed(b.slice(i, min(len(b), i + 7))) for i in range(0, len(b), 7)]
    if query == FILTER:
        assert sum(len(t) for t in pieces) == len(whole)     # a filter emits as it goes
    got = MatchTable.concat(program.layout, pieces + [program.close()])
    assert got.rows() == whole.rows() and len(whole) > 0


def test_join_feeds_on_pairs_or_mappings_in_pieces():
    left, right = batch(frame(12)), batch(frame(12, offset=100).assign(ts=lambda d: d.ts - 100))
    whole = compile_(JOIN).run((left, right))
    assert len(whole) > 0
    program = compile_(JOIN)
    tables = [program.feed((left.slice(0, 5), right.slice(0, 3))),
              program.feed({"left": left.slice(5, 12), "right": None}),
              program.feed({"left": None, "right": right.slice(3, 12)}), program.close()]
    assert MatchTable.concat(program.layout, tables).rows() == whole.rows()
    with pytest.raises(QueryError, match="pairs"):
        compile_(JOIN).feed(left)


def test_rows_are_the_reference_operators_rows():
    b = batch()
    table = run(FILTER, b)
    assert [dict(m.payload) for m in table] == filter_batch(b, "v > 3")
    assert all(m.binding_dict == {"e": (dict(m.payload)["id"],)} and m.ts == dict(m.payload)["ts"] for m in table)
    spec = WindowSpec("time", 4, 2)
    table = run(AGG, b, method="naive")
    assert [dict(m.payload) for m in table] == [r.as_dict() for r in aggregate_batch(b, "v", spec,
                                                                                      ("sum", "avg", "count"))]
    assert all(m.bindings == () for m in table)
    left, right = batch(frame(12)), batch(frame(12, offset=3))
    table = run(JOIN, (left, right))
    spec = WindowSpec("count", 3, 1)
    assert [dict(m.payload) for m in table] == join_batches(left, right, "L.v <= R.v", spec, spec)
    assert all(m.binding_dict == {"left": (dict(m.payload)["left_id"],), "right": (dict(m.payload)["right_id"],)}
               for m in table)


def test_table_columns_types_and_pandas():
    table = run(AGG, batch())
    assert table.layout.column_names() == ["ts", "payload.ts", "sum", "avg", "count"]
    arrow = table.to_arrow()
    assert arrow.schema.field("sum").type == pa.int64() and arrow.schema.field("ts").type == pa.int64()
    df = table.to_pandas()
    assert list(df["avg"]) == [dict(m.payload)["avg"] for m in table]
    assert any(isinstance(x, Fraction) and x.denominator != 1 for x in df["avg"])
    table = run(FILTER, batch())
    assert table.layout.column_names() == ["e", "ts", "payload.ts", "id", "v"]
    assert table.to_arrow().schema.field("e").type == pa.large_list(pa.string())
    assert list(table.to_pandas()["id"]) == [dict(m.payload)["id"] for m in table]


def test_gpu_engine_returns_the_reference_table():
    b = batch()
    for query, data in ((FILTER, b), (AGG, b), (JOIN, (batch(frame(12)), batch(frame(12, offset=3))))):
        assert run(query, data, "gpu").rows() == run(query, data).rows()


def test_bad_input_names_row_and_column():
    df = frame()
    df["v"] = df["v"].astype(object)
    df.loc[4, "v"] = "five"
    with pytest.raises(EventError) as info:
        run("AGGREGATE sum(v) OVER COUNT 2", batch(df))
    assert (info.value.row, info.value.column) == (5, "v")
    with pytest.raises(EventError) as info:
        run("FILTER WHERE w > 1", batch())
    assert info.value.column == "w"
    program = compile_(AGG)
    program.feed(batch(frame(6, offset=50)))
    program.feed(batch(frame(6)))
    with pytest.raises(EventError, match="not in order") as info:
        program.close()
    assert (info.value.row, info.value.column) == (1, "ts")


def test_unknown_method_and_engine_are_query_errors():
    with pytest.raises(QueryError, match="tree"):
        compile_(AGG, method="fast")
    with pytest.raises(QueryError, match="cannot run window queries"):
        registry.get_engine("window", "replay")


@pytest.mark.parametrize("query", [FILTER, AGG])
def test_a_closed_program_reads_a_new_stream(query):
    program = compile_(query)
    b = batch(frame(ids=False))
    assert program.run(b).rows() == program.run(b).rows()
