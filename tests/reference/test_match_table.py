"""The match table: Arrow columns that decode back to the exact canonical Match rows."""
from __future__ import annotations

import math
from fractions import Fraction

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cepkit.core.match import Match
from cepkit.core.match_table import Layout, MatchTable

INT64 = st.integers(-(1 << 63), (1 << 63) - 1)
VALUES = st.one_of(
    st.none(), st.booleans(), INT64, st.integers(-(10 ** 40), 10 ** 40), st.text(max_size=5),
    st.fractions(max_denominator=10 ** 6), st.floats(allow_nan=False),
    st.fractions().map(lambda f: Fraction(f.numerator * (10 ** 30), f.denominator)),
)


def _column_values(kind):
    return st.lists(kind, min_size=0, max_size=6)


@st.composite
def tables(draw):
    variables = tuple(draw(st.lists(st.sampled_from("abcd"), unique=True, max_size=3)))
    payload = tuple(draw(st.lists(st.sampled_from(["x", "ts", "a", "y"]), unique=True, max_size=3)))
    speculative = draw(st.booleans())
    detection = draw(st.booleans())
    layout = Layout(variables, payload, detection=detection, speculative=speculative)
    n = draw(st.integers(0, 5))
    ids = st.one_of(st.lists(st.integers(0, 10 ** 6), max_size=3).map(tuple),
                    st.lists(st.text("ek0123", min_size=1, max_size=3), max_size=3).map(tuple))
    id_kind = draw(st.sampled_from(["int", "str"]))
    columns = {p: draw(st.lists(draw(st.sampled_from([VALUES, st.one_of(st.none(), INT64),
                                                      st.one_of(st.none(), st.fractions())])),
                                 min_size=n, max_size=n)) for p in payload}
    rows = []
    for i in range(n):
        bindings = []
        for v in variables:
            group = draw(ids)
            group = tuple(int(x) if id_kind == "int" and str(x).isdigit() else str(x) for x in group)
            group = tuple(x for x in group if isinstance(x, int)) if id_kind == "int" else \
                tuple(str(x) for x in group)
            bindings.append((v, group))
        lifetime = (draw(st.one_of(INT64, st.fractions())), draw(st.one_of(INT64, st.just(math.inf)))) \
            if speculative else None
        rows.append(Match(tuple(bindings), draw(INT64), tuple((p, columns[p][i]) for p in payload),
                          sign=draw(st.sampled_from([1, -1])) if speculative else 1, lifetime=lifetime,
                          detected=draw(st.one_of(st.none(), INT64)) if detection else None))
    return layout, rows


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return a == b and type(a) in (type(b), int, Fraction) and type(b) in (type(a), int, Fraction)


@given(tables())
def test_arrow_round_trip_is_exact(case):
    layout, rows = case
    table = MatchTable.from_matches(layout, rows)
    arrow = table.to_arrow()
    assert arrow.column_names == layout.column_names()
    back = MatchTable(layout, arrow=arrow).rows()
    assert [m.canonical() for m in back] == [m.canonical() for m in rows]
    for m, r in zip(back, rows):
        for (_, x), (_, y) in zip(m.payload, r.payload):
            assert _same(x, y), (x, y)


def test_columns_roles_and_types():
    layout = Layout(("a", "b"), ("price", "ts", "avg"), speculative=True)
    rows = [Match((("a", (1, 2)), ("b", (3,))), 10, (("price", 5), ("ts", "x"), ("avg", Fraction(1, 3))),
                  sign=-1, lifetime=(0, math.inf)),
            Match((("a", (4,)),), 12, (("price", None), ("ts", "y"), ("avg", 2)), lifetime=(1, 5))]
    t = MatchTable.from_matches(layout, rows).to_arrow()
    assert t.column_names == ["a", "b", "ts", "sign", "lifetime_start", "lifetime_end", "price", "payload.ts", "avg"]
    assert t.schema.field("a").type == pa.large_list(pa.int64())
    assert t.column("b").to_pylist() == [[3], None]          # b unbound in the second row: null, not []
    assert t.schema.field("sign").type == pa.int8()
    assert t.schema.field("price").type == pa.int64()
    assert t.schema.field("avg").metadata[b"cepkit.kind"] == b"fraction"
    assert t.schema.field("a").metadata[b"cepkit.role"] == b"binding"
    back = MatchTable(layout, arrow=t).rows()
    assert back[1].binding_dict == {"a": (4,)}
    assert back[0].lifetime == (0, math.inf) and back[0].sign == -1
    df = MatchTable(layout, arrow=t).to_pandas()
    assert list(df["avg"]) == [Fraction(1, 3), 2]


def test_from_columns_equals_from_matches():
    import numpy as np

    layout = Layout(("a", "b"), ("v",))
    ids = np.array(["e1", "e2", "e3", "e4"], dtype=object)
    table = MatchTable.from_columns(layout, {"a": (np.array([0, 2, 3]), ids[[0, 1, 2]]),
                                             "b": (np.array([0, 1, 2]), ids[[3, 3]])},
                                    ts=np.array([5, 7]), payload={"v": [Fraction(1, 2), 3]})
    rows = [Match((("a", ("e1", "e2")), ("b", ("e4",))), 5, (("v", Fraction(1, 2)),)),
            Match((("a", ("e3",)), ("b", ("e4",))), 7, (("v", 3),))]
    assert table == rows
    assert table.canonical() == MatchTable.from_matches(layout, list(reversed(rows))).canonical()


def test_sequence_behaviour():
    layout = Layout(("a",))
    one = MatchTable.from_matches(layout, [Match((("a", (1,)),), 1)])
    two = one + MatchTable.empty(layout) + [Match((("a", (2,)),), 2)]
    assert len(two) == 2 and two[1].ts == 2 and bool(MatchTable.empty(layout)) is False
    assert [m.ts for m in two] == [1, 2]
    with pytest.raises(ValueError):
        MatchTable(layout)
