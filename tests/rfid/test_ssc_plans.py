"""The SSC engine's operators on spec/002 §6 cases: AIS stacks and RIPs (C17), PAIS, Dynamic Filtering
and Multi-PAIS (C13), the Fig. 6 plan for Q3 (C16), negation, the RFID missing-attribute rule, and the
constructs the engine refuses."""
from __future__ import annotations

import pandas as pd
import pytest

from cepkit.core.errors import QueryError, Unsupported
from cepkit.core.readers import from_pandas
from cepkit.reference.rfid import SSCEngine

BASIC = {"pais": False, "equivalence": "sigma", "push_predicates": False, "push_window": False}


def events(spec: str, **attrs: list) -> pd.DataFrame:
    """'a1 b2 ...' as a frame (type = upper-cased letter, ts = the number), with attribute columns."""
    names = spec.split()
    rows = [{"id": n, "type": n[0].upper(), "ts": int(n[1:])} for n in names]
    for attr, values in attrs.items():
        for row, v in zip(rows, values):
            if v is not None:
                row[attr] = v
    return pd.DataFrame(rows)


def run(query: str, frame: pd.DataFrame, **options):
    program = SSCEngine().compile(query, **options)
    matches = program.run(from_pandas(frame))
    return sorted(tuple(ids[0] for _, ids in m.bindings) for m in matches), program


C17 = events("a1 b2 c3 a4 d5 b6 c7 a8 d9", attr1=[1, 1, 1, 2, 1, 2, 2, 1, 2])


# ----------------------------------------------------------------------------- C17: AIS and PAIS
def test_c17_ais_stacks_rips_and_three_sequences_for_d9():
    program = SSCEngine().compile("EVENT SEQ(A x, B y, D z)")
    batch = from_pandas(C17)
    assert program.feed(batch.slice(0, 8)) != []  # d5 -> (a1, b2, d5)
    d9 = program.feed(batch.slice(8, 9))
    assert sorted(tuple(i[0] for _, i in m.bindings) for m in d9) == [
        ("a1", "b2", "d9"), ("a1", "b6", "d9"), ("a4", "b6", "d9")]
    (a,), (b,), (d,) = (s.values() for s in program.stacks())
    assert a == [("a1", None), ("a4", None), ("a8", None)]
    assert b == [("b2", "a1"), ("b6", "a4")]
    assert d == [("d5", "b2"), ("d9", "b6")]
    assert program.sequences_constructed == 4
    assert program.counters.partial_matches == 7


def test_c17_pais_partitions_and_one_sequence_for_d9():
    program = SSCEngine().compile("EVENT SEQ(A x, B y, D z) WHERE [attr1]")
    batch = from_pandas(C17)
    program.feed(batch.slice(0, 8))
    d9 = program.feed(batch.slice(8, 9))
    assert [tuple(i[0] for _, i in m.bindings) for m in d9] == [("a4", "b6", "d9")]
    a, b, d = program.stacks()
    assert a == {1: [("a1", None), ("a8", None)], 2: [("a4", None)]}
    assert b == {1: [("b2", "a1")], 2: [("b6", "a4")]}
    assert d == {1: [("d5", "b2")], 2: [("d9", "b6")]}
    assert program.sequences_constructed == 2


def test_pais_gives_the_same_matches_as_no_partitioning():
    query = "EVENT SEQ(A x, B y, D z) WHERE [attr1]"
    with_pais, p1 = run(query, C17)
    without, p2 = run(query, C17, pais=False, equivalence="sigma")
    assert with_pais == without == [("a1", "b2", "d5"), ("a4", "b6", "d9")]
    assert p2.sequences_constructed == 4 > p1.sequences_constructed == 2
    assert "PAIS on [attr1]" in p1.explain() and "AIS (no partitioning)" in p2.explain()


def test_pais_transition_filtering_drops_events_whose_partition_is_empty():
    # c-less stream: b2 has attr1 = 3 and no A with attr1 = 3 precedes it, so it is not pushed
    frame = events("a1 b2 d3", attr1=[1, 3, 3])
    got, program = run("EVENT SEQ(A x, B y, D z) WHERE [attr1]", frame)
    assert got == []
    assert program.stacks()[1] == {}
    assert program.counters.partial_matches == 1


# ----------------------------------------------------------------------------- C13: DF vs Multi-PAIS
C13 = events("a1 a3 b5 b6", attr1=[1, 1, 1, 1], attr2=[1, 3, 2, 3])
C13_Q = "EVENT SEQ(A x, B y) WHERE [attr1, attr2]"


def test_c13_dynamic_filtering_is_exact():
    got, program = run(C13_Q, C13)
    assert got == [("a3", "b6")]
    assert program.sequences_constructed == 1      # (a1,b5), (a3,b5), (a1,b6) cut during the DFS
    assert "Dynamic Filtering on [attr2]" in program.explain()


def test_c13_multi_pais_drops_b5_in_the_scan_and_is_lossy():
    got, program = run(C13_Q, C13, equivalence="multi_pais")
    assert got == [("a3", "b6")]
    assert [i for i, _ in program.stacks()[1][1]] == ["b6"]  # b5: no A agrees on attr1 and attr2
    assert program.sequences_constructed == 2      # (a1,b6) and (a3,b6) from PAIS1; σ removes (a1,b6)


def test_c13_second_test_in_sigma_only():
    got, program = run(C13_Q, C13, equivalence="sigma")
    assert got == [("a3", "b6")]
    assert program.sequences_constructed == 4


def test_df_without_pais_equals_multi_pais_free_plans():
    """DF on both tests (no partitioning), PAIS + DF, and σ-only plans agree; DF builds the fewest."""
    frame = events("a1 a2 b3 a4 b5 b6 b7", attr1=[1, 2, 1, 1, 2, 1, 1], attr2=[1, 1, 1, 2, 1, 2, 1])
    results = {}
    counts = {}
    for name, opts in {"df": {"pais": False}, "pais+df": {}, "pais+sigma": {"equivalence": "sigma"},
                       "sigma": {"pais": False, "equivalence": "sigma"}}.items():
        results[name], program = run(C13_Q, frame, **opts)
        counts[name] = program.sequences_constructed
    assert len(set(map(tuple, results.values()))) == 1
    assert results["df"] == [("a1", "b3"), ("a1", "b7"), ("a2", "b5"), ("a4", "b6")]
    assert counts["df"] == counts["pais+df"] == 4
    assert counts["pais+sigma"] > 4 and counts["sigma"] > counts["pais+sigma"]


# ----------------------------------------------------------------------------- C16: Fig. 6 plan for Q3
Q3 = """EVENT SEQ(A x1, B x2, !(C x3), D x4)
WHERE [attr1, attr2] AND x1.attr3 = 'one' AND x1.attr4 < x4.attr4
WITHIN 6"""
C16 = events("a1 b2 c3 a4 d5 b6 c7 a8 d9 b10 d11",
             attr1=[1, 1, 1, 1, 1, 1, 1, 2, 1, 2, 2], attr2=[1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1],
             attr3=["one", None, None, "one", None, None, None, "zero", None, None, None],
             attr4=[5, None, None, 9, 7, None, None, 1, 10, None, 3])


def test_c16_optimized_plan_emits_two_sequences():
    got, program = run(Q3, C16)
    assert got == [("a1", "b2", "d5")]             # (a4,b6,d9) is blocked by c7
    assert program.sequences_constructed == 2      # (a1,b2,d5), (a4,b6,d9)
    plan = program.explain()
    for part in ("PAIS on [attr1]", "Dynamic Filtering on [attr2]", "scan filter x1: x1.attr3 = 'one'",
                 "σ: x1.attr4 < x4.attr4", "pushed into SS and SC"):
        assert part in plan


def test_c16_basic_plan_emits_ten_sequences():
    got, program = run(Q3, C16, **BASIC)
    assert got == [("a1", "b2", "d5")]
    assert program.sequences_constructed == 10
    assert "WD after σ" in program.explain()


# ----------------------------------------------------------------------------- negation
def test_c8_negated_end_is_postponed_until_the_window_closes():
    program = SSCEngine().compile("EVENT SEQ(A x, !(B y)) WITHIN 5")
    batch = from_pandas(events("a1 b4 a6 b11 a13 b17 a20 b25 z30"))
    assert program.feed(batch.slice(0, 3)) == []   # a6 waits: its window is open until ts 10
    assert [m.binding_dict["x"] for m in program.feed(batch.slice(3, 4))] == [("a6",)]  # b11 closes it
    rest = program.feed(batch.slice(4, 9)) + program.close()
    assert [m.binding_dict["x"] for m in rest] == [("a20",)]


def test_negated_end_is_released_at_close():
    got, _ = run("EVENT SEQ(A x, !(B y)) WITHIN 5", events("a1 a2 b3 a4"))
    assert got == [("a4",)]


def test_negation_without_a_window():
    """SASE+: a leading negation looks at every earlier event, a trailing one at every later event (held
    until close); the RFID language requires WITHIN there (spec/002 §7 A6 (a))."""
    stream = events("b1 a2 c3 a4 b5")
    assert run("PATTERN SEQ(!(C z), A x, B y)", stream)[0] == [("a2", "b5")]
    assert run("PATTERN SEQ(A x, !(C z))", stream)[0] == [("a4",)]
    assert run("PATTERN SEQ(A x, !(C z), B y)", stream)[0] == [("a4", "b5")]
    assert run("EVENT SEQ(A x, !(C z), B y)", stream)[0] == [("a4", "b5")]
    for query in ("EVENT SEQ(!(C z), A x, B y)", "EVENT SEQ(A x, !(C z))"):
        with pytest.raises(QueryError, match="needs WITHIN"):
            SSCEngine().compile(query)


def test_rfid_negated_end_needs_span_below_w_minus_1():
    # A4(a): SEQ(A, B, !C) WITHIN 5 - (a1, b5) spans 4 = W - 1, so it is out under the RFID dialect
    got, _ = run("EVENT SEQ(A x, B y, !(C z)) WITHIN 5", events("a1 a2 b5"))
    assert got == [("a2", "b5")]
    got, _ = run("PATTERN SEQ(A x, B y, !(C z)) WITHIN 5", events("a1 a2 b5"))
    assert got == [("a1", "b5"), ("a2", "b5")]


def test_c7_negated_start_anchored_on_the_last_positive():
    assert run("EVENT SEQ(!(A x), B y, C z) WITHIN 5", events("a1 b4 c6"))[0] == [("b4", "c6")]
    assert run("EVENT SEQ(!(A x), B y, C z) WITHIN 5", events("a2 b4 c6"))[0] == []


def test_negation_history_is_pruned_with_a_window():
    program = SSCEngine().compile("EVENT SEQ(!(B y), A x) WITHIN 3")
    stream = " ".join(f"b{t}" if t % 2 else f"a{t}" for t in range(1, 200))
    program.run(from_pandas(events(stream)))
    assert sum(len(h) for h in program.ng.hist.values()) <= 3


def test_window_in_scan_keeps_stacks_bounded():
    program = SSCEngine().compile("EVENT SEQ(A x, B y) WITHIN 4")
    stream = " ".join(f"a{t}" if t % 3 else f"b{t}" for t in range(1, 300))
    program.run(from_pandas(events(stream)))
    assert all(len(rows) <= 4 for state in program.stacks() for rows in state.values())


# ----------------------------------------------------------------------------- RFID missing attributes
def test_rfid_missing_partition_attribute_is_a_wildcard():
    """A10: an event without the equivalence attribute agrees with every partition (star on the first
    variable); PAIS gives up partitioning exactly when such an event arrives."""
    frame = events("a1 a2 b3 d4 d5", tag=[1, 2, None, 1, 2])
    query = "EVENT SEQ(A x, ANY(B, C) y, D z) WHERE [tag]"
    got, program = run(query, frame)
    assert got == [("a1", "b3", "d4"), ("a2", "b3", "d5")]
    assert program.ssc.merged
    assert run(query, frame, pais=False, equivalence="sigma")[0] == got
    # under SASE+ a comparison with a missing value is false: b3 is in no match
    assert run(query.replace("EVENT", "PATTERN"), frame)[0] == []


def test_rfid_first_component_without_the_attribute_matches_any_values():
    frame = events("a1 b2 d3", tag=[None, 1, 2])
    query = "EVENT SEQ(A x, B y, D z) WHERE [tag]"
    assert run(query, frame)[0] == [("a1", "b2", "d3")]          # x.tag is missing: both tests true
    assert run(query, frame, pais=False)[0] == [("a1", "b2", "d3")]


# ----------------------------------------------------------------------------- refusals and options
@pytest.mark.parametrize("query, construct", [
    ("PATTERN AND(A a, B b)", "AND(...)"),
    ("PATTERN OR(A a, B b)", "OR(...)"),
    ("PATTERN SEQ(A a, AND(B b, C c))", "AND(...)"),
    ("PATTERN SEQ(A a, OR(B b, C c))", "OR(...)"),
    ("PATTERN SEQ(A a, SEQ(B b, C c))", "nested"),
    ("PATTERN SEQ(A+ a[], B b) WHERE skip_till_any_match { a[i].x > a[i-1].x }", "Kleene"),
    ("PATTERN SEQ(A a, B b) WHERE skip_till_next_match { a.x = b.x }", "skip_till_next_match"),
    ("PATTERN SEQ(A a, B b) WHERE strict_contiguity { a.x = b.x }", "strict_contiguity"),
    ("PATTERN SEQ(A a, B b) WHERE partition_contiguity { [x] }", "partition_contiguity"),
])
def test_refuses_what_it_cannot_run(query, construct):
    with pytest.raises(Unsupported) as err:
        SSCEngine().compile(query)
    assert construct in err.value.construct
    assert err.value.engine == "reference-ssc"
    assert err.value.line is not None


def test_options():
    SSCEngine().compile("EVENT SEQ(A x, B y)", selection="all")
    with pytest.raises(Unsupported):
        SSCEngine().compile("EVENT SEQ(A x, B y)", selection="non_overlap")
    with pytest.raises(QueryError):
        SSCEngine().compile("EVENT SEQ(A x, B y)", selection="first")
    with pytest.raises(QueryError):
        SSCEngine().compile("EVENT SEQ(A x, B y)", strategy="skip_till_any_match")
    with pytest.raises(QueryError):
        SSCEngine().compile("EVENT SEQ(A x, B y)", equivalence="multi_pais", pais=False)
    with pytest.raises(QueryError):
        SSCEngine().compile("EVENT SEQ(A x, !(B y), !(C z)) WHERE y.v = z.v")


def test_program_interface():
    program = SSCEngine().compile("PATTERN SEQ(A a, B b) WHERE a.x < b.x RETURN a.x + b.x AS s")
    assert program.engine_name == "reference-ssc" and SSCEngine.name == "reference-ssc"
    matches = program.run(from_pandas(events("a1 b2 b3", x=[1, 2, 0])))
    assert [(m.binding_dict, m.ts, dict(m.payload)) for m in matches] == [
        ({"a": ("a1",), "b": ("b2",)}, 2, {"s": 3})]
    assert program.counters.predicate_evaluations == 2
    assert program.counters.partial_matches == 3
