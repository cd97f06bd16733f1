"""Reference engine details beyond the spec's cases: binding, text/number columns, streaming, refusals."""
from __future__ import annotations

import pandas as pd
import pytest

from cepkit import compile, run
from cepkit.core.errors import EventError, QueryError, Unsupported
from cepkit.core.readers import from_pandas


def frame(rows):
    return pd.DataFrame(rows)


def test_numeric_text_compares_equal_to_numbers_when_other_types_hold_text():
    df = frame([{"id": "x1", "ts": 1, "type": "A", "x": "5"}, {"id": "x2", "ts": 2, "type": "C", "x": "abc"},
                {"id": "x3", "ts": 3, "type": "B", "x": "5"}])
    ms = run("PATTERN SEQ(A a, B b) WHERE skip_till_any_match { a.x = 5 and b.x = a.x }", df)
    assert [m.binding_dict for m in ms] == [{"a": ("x1",), "b": ("x3",)}]


def test_text_attributes_compare_as_text():
    df = frame([{"id": 1, "ts": 1, "type": "A", "s": "k"}, {"id": 2, "ts": 2, "type": "B", "s": "k"}])
    assert len(run("PATTERN SEQ(A a, B b) WHERE skip_till_any_match { a.s = 'k' and b.s = a.s }", df)) == 1


def test_equivalence_test_under_or_is_a_predicate_not_a_partition():
    from cepkit.front.language import parse
    from cepkit.front.nfab.compile import compile_nfab

    assert compile_nfab(parse("PATTERN SEQ(A a, B b) WHERE skip_till_any_match { [k] or a.x > 1 }")).partition_attrs == ()
    assert compile_nfab(parse("PATTERN SEQ(A a, B b) WHERE skip_till_any_match { [k] and a.x > 1 }")).partition_attrs == ("k",)


def test_later_batch_with_earlier_timestamp_is_an_event_error():
    program = compile("PATTERN SEQ(A a, B b) WHERE skip_till_any_match { }")
    program.feed(from_pandas(frame([{"id": 1, "ts": 5, "type": "A"}])))
    with pytest.raises(EventError) as info:
        program.feed(from_pandas(frame([{"id": 2, "ts": 4, "type": "B"}])))
    assert info.value.column == "ts" and info.value.row == 1


@pytest.mark.parametrize("engine", ["reference", "brute"])
def test_non_overlap_with_trailing_negation_is_refused_by_name(engine):
    with pytest.raises(Unsupported) as info:
        compile("PATTERN SEQ(A a, !(B b)) WITHIN 5", engine=engine, selection="non_overlap")
    assert f"engine '{engine}'" in str(info.value) and "trailing negation" in str(info.value)


def test_unknown_selection_is_a_query_error():
    with pytest.raises(QueryError, match="unknown output selection"):
        compile("PATTERN SEQ(A a)", selection="bogus")


@pytest.mark.parametrize("text, words", [
    ("PATTERN SEQ(A a) WHERE skip_till_any_match { a.x + 'q' > 1 }", "arithmetic needs numbers"),
    ("PATTERN SEQ(A a, B b) RETURN a.x AS ts", "taken by the match"),
    ("PATTERN SEQ(A a, B b) RETURN a.x AS b", "taken by the match"),
    ("PATTERN SEQ(A+ a[], B b) WHERE skip_till_any_match { a[i].x > a[a.LEN].x }", "the completed closure"),
    ("PATTERN SEQ(A+ a[], B b) WHERE skip_till_any_match { a[i].x > b.x }", "a later variable"),
    ("PATTERN SEQ(A a, !(B b), !(C c)) WHERE skip_till_any_match { b.x = c.x }", "only one negated variable"),
])
def test_compile_time_query_errors(text, words):
    with pytest.raises(QueryError, match=words):
        compile(text)


def test_hyphenated_strategy_in_braces():
    q = "pattern(A+ a[], B b) where skip-till-next-match { a[i].x > a[i-1].x }"
    df = frame([{"id": i, "ts": i, "type": t, "x": x} for i, (t, x) in enumerate([("A", 1), ("A", 2), ("B", 0)])])
    assert {m.key() for m in run(q, df)} == {(("a", ("0", "1")), ("b", ("2",))), (("a", ("1",)), ("b", ("2",)))}


def test_event_count_window():
    df = frame([{"id": i, "ts": 0, "type": t} for i, t in enumerate("AXXB")])
    assert run("PATTERN SEQ(A a, B b) WHERE skip_till_any_match { } WITHIN 3 EVENTS", df) == []
    assert len(run("PATTERN SEQ(A a, B b) WHERE skip_till_any_match { } WITHIN 4 EVENTS", df)) == 1


def test_return_payload_is_exact():
    df = frame([{"id": i, "ts": i, "type": "A", "p": p} for i, p in enumerate([1, 2])] +
               [{"id": 9, "ts": 3, "type": "B", "p": 0}])
    ms = run("PATTERN SEQ(A+ a[], B b) WHERE skip_till_next_match { } RETURN avg(a[].p) AS m, a.LEN AS n, "
             "sum(a[].p) / 3 AS third", df)
    from fractions import Fraction

    got = {m.binding_dict["a"]: dict(m.payload) for m in ms}
    assert got[(0, 1)] == {"m": Fraction(3, 2), "n": 2, "third": 1}


def test_made_up_ids_continue_across_separately_read_batches():
    program = compile("PATTERN SEQ(A a, B b) WHERE skip_till_any_match { }")
    first = from_pandas(frame([{"ts": 1, "type": "A"}, {"ts": 2, "type": "C"}]))
    second = from_pandas(frame([{"ts": 3, "type": "B"}]))
    # a slice from the first event keeps made-up ids made up (numbered on when fed later); past it, the
    # slice's ids are the ones it had
    assert first.positional_ids and first.slice(0, 1).positional_ids and not first.slice(1, 2).positional_ids
    out = program.feed(first) + program.feed(second) + program.close()
    assert [m.binding_dict for m in out] == [{"a": (0,), "b": (2,)}]


def test_types_bind_to_the_first_batch_with_events():
    program = compile("PATTERN SEQ(stock a, stock b) WHERE skip_till_any_match { }")
    empty = from_pandas(pd.DataFrame({"ts": pd.Series([], dtype="int64"), "type": pd.Series([], dtype=object)}))
    program.feed(empty)
    out = program.feed(from_pandas(frame([{"ts": 1, "type": "Stock"}, {"ts": 2, "type": "Stock"}])))
    assert [m.binding_dict for m in out] == [{"a": (0,), "b": (1,)}]


def test_trailing_negation_match_is_released_when_its_window_closes():
    """Streaming: a match waiting on a trailing negation comes out with the first event outside its window."""
    program = compile("PATTERN SEQ(A a, !(B b)) WHERE skip_till_any_match { } WITHIN 5")
    assert program.feed(from_pandas(frame([{"id": "a1", "ts": 1, "type": "A"}]))) == []
    assert program.feed(from_pandas(frame([{"id": "c4", "ts": 4, "type": "C"}]))) == []  # still inside
    out = program.feed(from_pandas(frame([{"id": "c6", "ts": 6, "type": "C"}])))       # 6 - 1 >= 5
    assert [m.binding_dict for m in out] == [{"a": ("a1",)}] and out[0].ts == 1
    assert program.close() == []


def test_trailing_negation_without_window_waits_for_the_end_of_the_stream():
    program = compile("PATTERN SEQ(A a, !(B b)) WHERE skip_till_any_match { }")
    assert program.feed(from_pandas(frame([{"id": "a1", "ts": 1, "type": "A"}, {"id": "c", "ts": 9, "type": "C"}]))) == []
    assert [m.binding_dict for m in program.close()] == [{"a": ("a1",)}]


def test_changing_timestamp_unit_between_batches_is_an_event_error():
    program = compile("PATTERN SEQ(A a, B b) WHERE skip_till_any_match { }")
    program.feed(from_pandas(frame([{"id": 1, "ts": 1, "type": "A"}]), ts_unit="s"))
    with pytest.raises(EventError, match="one unit per stream"):
        program.feed(from_pandas(frame([{"id": 2, "ts": 2, "type": "B"}]), ts_unit="ms"))
