"""The optimized engine builds its MatchTable from arrays (no Python object per match): its decoded rows are
the reference's, in the same order (bindings, ts, exact RETURN payloads), fed whole or in chunks, with
non-overlap selection and trailing negations; and its Arrow columns have the documented types."""
from __future__ import annotations

from fractions import Fraction

import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import assume, given, note, settings
from hypothesis import strategies as st

from cepkit import compile
from cepkit.core.errors import Unsupported
from cepkit.core.match_table import KIND, MatchTable
from cepkit.core.readers import from_pandas
from tests.optimized.test_optimized_vs_reference import feed_in_chunks, with_return
from tests.reference.sase_strategies import STRATEGIES, cases
from tests.reference.test_nfab_vs_brute import with_strategy


def _scaled(divisor: int, floor: int = 30):
    return settings(max_examples=max(floor, settings().max_examples // divisor), deadline=None)


def _optimized(text: str, selection: str = "all", **options):
    """The optimized program; a pattern the engine refuses is a rejected example (test_optimized_vs_reference
    checks that the strategies draw none)."""
    try:
        return compile(text, engine="optimized", selection=selection, **options)
    except Unsupported:
        assume(False)


def _columnar(table: MatchTable) -> bool:
    """Built from arrays (Arrow from the start), not from Match rows."""
    return not len(table) or table._rows is None


@pytest.mark.parametrize("strategy", STRATEGIES)
@_scaled(4)
@given(data=st.data(), cuts=st.lists(st.integers(0, 12), max_size=3), merge=st.booleans())
def test_columnar_rows_equal_reference(strategy, data, cuts, merge):
    """Random patterns with a RETURN clause: the rows of every table fed equal the reference's run, in
    order; each table comes from arrays; the per-match path (columnar=False) gives the same rows."""
    pattern, frame = data.draw(cases())
    text = with_return({**pattern, "text": with_strategy(pattern["text"], strategy)})
    note(text)
    note(frame.to_string())
    batch = from_pandas(frame)
    expected = compile(text).run(batch).rows()
    program = _optimized(text, merge=merge)
    fed, closed = program.feed(batch), program.close()
    assert _columnar(fed) and _columnar(closed)
    assert fed.rows() + closed.rows() == expected
    assert feed_in_chunks(_optimized(text, merge=merge), batch, cuts) == expected
    assert _optimized(text, merge=merge, columnar=False).run(batch).rows() == expected


@_scaled(4)
@given(case=cases(), cut=st.integers(0, 9))
def test_columnar_non_overlap_equals_reference(case, cut):
    """Non-overlap selection on arrays (one match per partition, that partition's runs end)."""
    pattern, frame = case
    if pattern["trailing_negation"]:
        return
    text = with_return(pattern)
    note(text)
    note(frame.to_string())
    batch = from_pandas(frame)
    program = _optimized(text, "non_overlap")
    cut = min(cut, len(batch))
    first, second = program.feed(batch.slice(0, cut)), program.feed(batch.slice(cut, len(batch)))
    assert _columnar(first) and _columnar(second)
    got = first.rows() + second.rows() + program.close().rows()
    assert got == compile(text, selection="non_overlap").run(batch).rows()


def _frame(n: int = 40, ids=None) -> pd.DataFrame:
    rows = [{"id": i if ids is None else ids(i), "ts": i // 2, "type": "ABCB"[i % 4], "x": (i * 7) % 4, "g": i % 2,
             "s": "uv"[i % 2]} for i in range(n)]
    return pd.DataFrame(rows)


KLEENE = "PATTERN SEQ(A+ a[], B b) WHERE skip_till_next_match { a[i].x >= avg(a[..i-1].x) }"


def test_arrow_columns_int_ids():
    text = KLEENE + " RETURN a.LEN AS n, avg(a[].x) AS m, b.s AS s, b.x > 1 AS big, a[1].x AS x"
    table = compile(text, engine="optimized").run(from_pandas(_frame()))
    assert len(table) and _columnar(table)
    arrow = table.to_arrow()
    assert arrow.schema.field("a").type == pa.large_list(pa.int64())
    assert arrow.schema.field("b").type == pa.large_list(pa.int64())
    assert arrow.schema.field("ts").type == pa.int64()
    assert arrow.schema.field("n").type == pa.int64()
    assert arrow.schema.field("s").type == pa.string()
    assert arrow.schema.field("big").type == pa.bool_()
    m = arrow.schema.field("m")
    if any(isinstance(dict(r.payload)["m"], Fraction) for r in table.rows()):
        assert pa.types.is_struct(m.type) and m.metadata[KIND] == b"fraction"
    assert table.rows() == compile(text).run(from_pandas(_frame())).rows()
    # the offsets follow the bindings: one list per match
    assert arrow.column("a").combine_chunks().value_lengths().to_pylist() == [len(dict(r.bindings)["a"])
                                                                            for r in table.rows()]


def test_arrow_columns_string_ids_and_fractions():
    text = "PATTERN SEQ(A a, B b) WHERE skip_till_any_match { a.x < b.x } RETURN (a.x + b.x) / 2.0 AS third, b.s AS s"
    batch = from_pandas(_frame(ids=lambda i: f"e{i}"))
    table = compile(text, engine="optimized").run(batch)
    assert len(table) and _columnar(table)
    arrow = table.to_arrow()
    assert arrow.schema.field("a").type == pa.large_list(pa.string())
    third = arrow.schema.field("third")
    assert pa.types.is_struct(third.type) and third.metadata[KIND] == b"fraction"
    assert table.rows() == compile(text).run(batch).rows()
    assert all(isinstance(i, str) for r in table.rows() for _, ids in r.bindings for i in ids)


def test_null_payloads():
    frame = _frame()
    frame["y"] = [None if i % 3 else float(i) for i in range(len(frame))]
    frame["t"] = [None if i % 3 else "w" for i in range(len(frame))]
    text = "PATTERN SEQ(A a, B b) WHERE skip_till_any_match { a.x < b.x } RETURN a.y AS y, b.t AS t, a.x AS x"
    batch = from_pandas(frame)
    table = compile(text, engine="optimized").run(batch)
    assert len(table) and _columnar(table)
    rows = table.rows()
    assert rows == compile(text).run(batch).rows()
    assert any(dict(r.payload)["y"] is None for r in rows) and any(dict(r.payload)["t"] is None for r in rows)
    arrow = table.to_arrow()
    assert arrow.column("y").null_count == sum(dict(r.payload)["y"] is None for r in rows)
    assert arrow.schema.field("t").type in (pa.string(), pa.null())


def test_trailing_negation_held_matches_are_columnar():
    text = "PATTERN SEQ(A a, B b, !(C z)) WITHIN 3 RETURN a.x + b.x AS s"
    batch = from_pandas(_frame(13))
    program = compile(text, engine="optimized")
    fed, closed = program.feed(batch), program.close()
    assert len(closed) and _columnar(fed) and _columnar(closed)
    assert fed.rows() + closed.rows() == compile(text).run(batch).rows()


def test_mixed_id_kinds_keep_exact_ids():
    """Ints and text among the ids: no Arrow column holds both, the rows keep them exactly."""
    text = "PATTERN SEQ(A a, B b) WHERE skip_till_any_match { a.x < b.x }"
    batch = from_pandas(_frame(ids=lambda i: i if i % 2 else f"e{i}"))
    assert compile(text, engine="optimized").run(batch).rows() == compile(text).run(batch).rows()


def test_throughput_script_compares_both_paths(capsys):
    """benchmarks/match_table_throughput.py times the per-match and the columnar path in one run and
    checks that they give the same rows."""
    from benchmarks import match_table_throughput as M

    results = M.main(["--events", "2000", "--window", "50", "--check"])
    assert [r["path"] for r in results] == ["per-match", "columnar"]
    assert results[0]["matches"] == results[1]["matches"] > 0
    assert "rows equal" in capsys.readouterr().out
