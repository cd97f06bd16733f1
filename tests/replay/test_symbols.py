"""Pattern rewrite to basic / Kleene symbols and the ranges their DEFINEs give (spec/004 §3.4.4, §2.8)."""
from __future__ import annotations

from cepkit.reference.replay.symbols import symbols
from cepkit.front.sql import parse

LISTING_31 = """SELECT * FROM CRIMES MATCH_RECOGNIZE (
  ORDER BY ts MEASURES A.ID AS a ALL MATCHES
  PATTERN A T* B T* C WITHIN 30
  DEFINE A AS A.PRIMARY = 'ROBBERY' AND A.BEAT = 2232,
         B AS B.PRIMARY = 'BATTERY' AND B.BEAT = A.BEAT,
         C AS C.PRIMARY = 'VEHICLE THEFT' AND C.BEAT = A.BEAT)"""


def test_listing_31_has_six_indexable_predicates():
    # §2.8: "a maximum of 6 ... possible secondary indexes" for variant 1; B.BEAT = A.BEAT is propagated
    syms = symbols(parse(LISTING_31))
    assert [s.kind for s in syms] == ["BS", "KS", "BS", "KS", "BS"]
    ranges = [(s.var, r.attr, r.lo, r.hi) for s in syms for r in s.ranges]
    assert len(ranges) == 6
    assert ("B", "BEAT", 2232, 2232) in ranges and ("C", "BEAT", 2232, 2232) in ranges


def test_table_32_rewrites():
    # (A, (B, C+)+, D) -> (A, B, C, true*, D) after merging adjacent true* (§3.4.4 example)
    q = parse("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts ALL MATCHES PATTERN (A (B C+)+ D) WITHIN 5)")
    assert [(s.kind, s.var) for s in symbols(q)] == [("BS", "A"), ("BS", "B"), ("BS", "C"), ("KS", None),
                                                     ("BS", "D")]
    q = parse("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts ALL MATCHES PATTERN (A (B | C) D? E{2}) WITHIN 5)")
    assert [(s.kind, s.var) for s in symbols(q)] == [("BS", "A"), ("BS", None), ("KS", None), ("BS", "E"),
                                                     ("BS", "E")]
    q = parse("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts ALL MATCHES SKIP_TILL_ANY_MATCH PATTERN (A B) WITHIN 5)")
    assert [s.kind for s in symbols(q)] == ["BS", "KS", "BS"]


def test_propagated_range_keeps_its_bounds(tmp_path):
    import pandas as pd

    from cepkit.core.readers import from_pandas
    from cepkit.reference.replay.plan import execute, plan
    from cepkit.reference.replay.store import write_store

    frame = pd.DataFrame({"ts": [1, 2, 3, 4], "a": [3, 3, 5, 3]})
    store = write_store(from_pandas(frame, type_col=None, default_type="e"), tmp_path, block_size=1,
                        secondary=["a"])
    q = ("SELECT * FROM s MATCH_RECOGNIZE (ORDER BY ts MEASURES A.ts AS at, B.ts AS bt ALL MATCHES "
         "PATTERN (A B) WITHIN 2 DEFINE A AS a <= 3, B AS a = A.a)")
    p = plan(q, store, ["B"])
    assert [c.range_text for c in p.candidates if c.var == "B"] == ["a <= 3"]
    full = execute(plan(q, store, "none"))
    assert full.rows and execute(p).rows == full.rows
