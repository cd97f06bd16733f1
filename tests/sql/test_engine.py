"""MATCH_RECOGNIZE on the engine contract: the reference, gpu and replay engines through the registry
(cepkit.core.registry.get_engine), without the cepkit package."""
from __future__ import annotations

from fractions import Fraction

import pandas as pd
import pyarrow as pa
import pytest

from cepkit.core import registry
from cepkit.core.errors import EventError, QueryError, Unsupported
from cepkit.core.readers import from_pandas
from cepkit.core.match_table import MatchTable
from cepkit.front.sql.constructs import ALL, constructs
from cepkit.front.sql.parse import parse
from cepkit.reference.sql.run import run_query

HEAD = "SELECT * FROM t MATCH_RECOGNIZE (PARTITION BY k ORDER BY ts"
ONE = HEAD + " MEASURES A.v AS av, LAST(B.v) AS bv, avg(B.v) AS mean ONE ROW PER MATCH " \
             "PATTERN (A B+) DEFINE B AS v > PREV(v))"
ALL_ROWS = ONE.replace("ONE ROW PER MATCH", "ALL ROWS PER MATCH")
ALL_MATCHES = HEAD + " MEASURES A.v AS av, LAST(B.v) AS bv ALL MATCHES SKIP_TILL_NEXT_MATCH " \
                     "PATTERN (A B+) WITHIN 3 DEFINE B AS v > A.v)"
QUERIES = [ONE, ALL_ROWS, ALL_MATCHES]


def frame(n: int = 24, ids: bool = True) -> pd.DataFrame:
    df = pd.DataFrame({"ts": range(1, n + 1), "k": [i % 2 for i in range(n)],
                       "v": [(0, 1, 4, 0, 2, 3)[(i // 2) % 6] for i in range(n)]})
    if ids:
        df.insert(0, "id", [f"e{i}" for i in range(n)])
    return df


def batch(df=None):
    return from_pandas(frame() if df is None else df, type_col=None, default_type="row")


def run(engine: str, query: str, data, **options) -> MatchTable:
    program = registry.get_engine("sql", engine).compile(query, **options)
    return program.run(registry.read_input("sql", engine, data))


@pytest.mark.parametrize("query", QUERIES, ids=["one", "all_rows", "all_matches"])
@pytest.mark.parametrize("ids", [True, False], ids=["ids", "positional"])
def test_feed_in_pieces_equals_run_at_once(query, ids):
    b = batch(frame(ids=ids))
    whole = registry.get_engine("sql", "reference").compile(query).run(b)
    program = registry.get_engine("sql", "reference").compile(query)
    pieces = [program.feed(b.slice(i, min(len(b), i + 5))) for i in range(0, len(b), 5)]
    assert all(len(t) == 0 for t in pieces)   # a SQL query needs every partition whole: rows come at close
    assert MatchTable.concat(program.layout, pieces + [program.close()]).rows() == whole.rows()
    assert len(whole) > 0


@pytest.mark.parametrize("query", QUERIES, ids=["one", "all_rows", "all_matches"])
def test_payload_is_exactly_the_sql_output(query):
    b = batch()
    table = run("reference", query, b)
    sql = run_query(query, b)
    assert table.layout.payload == sql.columns
    assert [dict(m.payload) for m in table] == sql.records()
    df = table.to_pandas()
    cols = list(table.layout.payload_columns())
    records = [dict(zip(sql.columns, (None if v is None or v != v else v for v in r)))
               for r in df[cols].astype(object).itertuples(index=False)]
    assert records == [{k: v for k, v in r.items()} for r in sql.records()]


def test_bindings_and_ts_are_the_tables_matches():
    b = batch()
    table = run("reference", ONE, b)
    sql = run_query(ONE, b)
    assert [(m.binding_dict, m.ts) for m in table] == [({k: tuple(v) for k, v in bs.items()}, ts)
                                                       for bs, ts in sql.matches]
    assert table.layout.variables == ("A", "B")


def test_all_rows_per_match_leaves_variables_unbound_and_ts_is_the_rows_order_key():
    table = run("reference", ALL_ROWS, batch())
    assert table and all(m.bindings == () and m.ts == dict(m.payload)["ts"] for m in table)
    dropped = ALL_ROWS.replace("SELECT *", "SELECT k, av")
    assert all(m.ts is None for m in run("reference", dropped, batch()))


def test_table_columns_and_types():
    table = run("reference", ONE, batch())
    assert table.layout.column_names() == ["A", "B", "ts", "k", "av", "bv", "mean"]
    arrow = table.to_arrow()
    assert arrow.schema.names == ["A", "B", "ts", "k", "av", "bv", "mean"]
    assert arrow.schema.field("A").type == pa.large_list(pa.string())
    assert arrow.schema.field("ts").type == pa.int64()
    assert arrow.schema.field("av").type == pa.int64()
    means = [dict(m.payload)["mean"] for m in table]
    assert any(isinstance(x, Fraction) and x.denominator != 1 for x in means)   # exact, not a float
    assert list(table.to_pandas()["mean"]) == means


def test_a_measure_named_ts_is_prefixed():
    q = "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES LAST(B.ts) AS ts ONE ROW PER MATCH " \
        "PATTERN (A B) DEFINE B AS v > A.v)"
    table = run("reference", q, batch())
    assert table.layout.payload_columns() == ("payload.ts",)
    assert all(m.ts == dict(m.payload)["ts"] for m in table)


@pytest.mark.parametrize("engine", ["gpu", "replay"])
def test_other_engines_return_the_reference_table(engine):
    want = run("reference", ALL_MATCHES, batch())
    got = run(engine, ALL_MATCHES, batch())
    assert got.canonical() == want.canonical() and len(got) > 0
    assert got.layout == want.layout


def test_replay_reads_a_store_directory_and_a_store(tmp_path):
    from cepkit.reference.replay.engine import open_store
    from cepkit.reference.replay.store import Store, write_store

    write_store(batch(), tmp_path / "s", block_size=4, secondary=("v",))
    want = run("reference", ONE, batch())
    assert run("replay", ONE, str(tmp_path / "s")).canonical() == want.canonical()
    store = Store(tmp_path / "s")
    assert open_store(store) is store
    program = registry.get_engine("sql", "replay").compile(ONE, method="none")
    assert program.run(store).canonical() == want.canonical()
    assert program.plan.mode == "full"
    with pytest.raises(QueryError, match="unknown replay method"):
        registry.get_engine("sql", "replay").compile(ONE, method="fastest")


def test_replay_uses_the_index_where_it_can(tmp_path):
    q = "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.ts AS a_ts ALL MATCHES CONTIGUOUS " \
        "PATTERN (A B) WITHIN 5 DEFINE A AS v = 4, B AS v < 2)"
    data = batch(frame(60))
    program = registry.get_engine("sql", "replay").compile(q, method=("A",))
    table = program.run(registry.read_input("sql", "replay", data, block_size=4, indexes=("v",)))
    assert program.plan.mode == "index"
    assert table.canonical() == run("reference", q, data).canonical()


def test_unsupported_names_the_construct_and_the_engines_that_run_it():
    gpu = registry.get_engine("sql", "gpu")
    with pytest.raises(Unsupported) as info:
        gpu.compile(ONE)
    assert info.value.construct == "ONE ROW PER MATCH" and "run it with: optimized, reference, replay" in str(info.value)
    alt = ALL_MATCHES.replace("PATTERN (A B+)", "PATTERN (A (B | C))")
    with pytest.raises(Unsupported) as info:
        gpu.compile(alt)
    assert info.value.construct == "alternation" and (info.value.line, info.value.column) == (1, alt.index("B | C") + 1)
    assert "run it with: optimized, reference, replay" in str(info.value)
    prev = ALL_MATCHES.replace("DEFINE B AS v > A.v", "DEFINE B AS v > PREV(v + 1)")
    with pytest.raises(Unsupported) as info:
        gpu.compile(prev)
    assert "PREV" in info.value.construct and "run it with: optimized, reference, replay" in str(info.value)


def test_constructs_are_named_with_positions():
    found = constructs(parse(ALL_MATCHES))
    assert set(found) <= ALL
    assert {"ALL MATCHES", "SKIP_TILL_NEXT_MATCH", "Kleene quantifier (*, +)", "PARTITION BY", "WITHIN",
            "LAST in MEASURES"} <= set(found)
    q = parse(ONE.replace("PATTERN (A B+)", "PATTERN (^ A {- B -} PERMUTE(B, C) (A B){2} B+?)"))
    assert {"anchors", "exclusion", "PERMUTE", "quantified group", "bounded quantifier",
            "reluctant quantifier", "PREV in DEFINE", "aggregates in MEASURES"} <= set(constructs(q))
    assert all(pos.line >= 1 for pos in constructs(q).values())


def test_bad_input_names_row_and_column():
    df = frame()
    df["v"] = df["v"].astype(object)
    df.loc[6, "v"] = "seven"
    program = registry.get_engine("sql", "reference").compile(ONE)
    with pytest.raises(EventError) as info:  # the fed batch is checked as it arrives (issue 14)
        program.feed(batch(df))
    assert (info.value.row, info.value.column) == (7, "v")


def test_query_errors_name_line_and_column():
    with pytest.raises(QueryError) as info:
        registry.get_engine("sql", "reference").compile("SELECT * FROM t MATCH_RECOGNIZE (\n  ORDER BY ts\n"
                                                        "  PATTERN (A B+\n  DEFINE B AS v > 1)")
    assert info.value.line == 4
    program = registry.get_engine("sql", "reference").compile(ONE.replace("PREV(v)", "PREV(w)"))
    with pytest.raises(QueryError, match="column 'w'") as info:
        program.run(batch())
    assert info.value.line == 1


@pytest.mark.parametrize("engine", ["reference", "replay"])
def test_a_closed_program_reads_a_new_stream(engine):
    program = registry.get_engine("sql", engine).compile(ONE)
    first = program.run(registry.read_input("sql", engine, batch()))
    assert program.run(registry.read_input("sql", engine, batch())).rows() == first.rows()
