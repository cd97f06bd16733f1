"""Every bad input of issue 4 gives a clear error naming the item, with the operator's state unchanged."""
from __future__ import annotations

from collections import Counter

import pytest

from cepkit.front.afa.afafile import loads_afa
from cepkit.reference.afa.cleanse import Cleanse
from cepkit.front.afa.model import Afa, Arc, Lifetime
from cepkit.reference.afa.operator import AfaOperator, ProtocolError
from cepkit.reference.afa.seqop import SeqAfaOperator
from cepkit.front.afa.stream import ArcDelete, ArcInsert, Event, Insert, Punctuate, Retract
from cepkit.core.errors import EventError, QueryError, Unsupported

AB_TEXT = """\
window: 10
register: {n: 0}
states: [q0, q1, q2]
start: q0
final: [q2]
arcs:
  - {name: a0, from: q0, to: q1, fence: "e.type = 'A'", transfer: {n: "r.n + e.v"}}
  - {name: a1, from: q1, to: q2, fence: "e.type = 'B'", transfer: {n: "r.n + e.v"}}
"""


def ev(t, le, w=10, **kw):
    return Event.make(le, le + w, dict(type=t, **kw))


def state(op):
    return (op.entry_view(), Counter(op.net), list(op.outputs), op.t_e, op.t_p, list(op.arcs), set(op.states),
            set(op.finals))


@pytest.fixture
def busy():
    """An AB operator with some state: A@1, B@3 (one output), P(2), A@6."""
    op = AfaOperator(loads_afa(AB_TEXT))
    op.feed_all([Insert(ev("A", 1, v=1)), Punctuate(2), Insert(ev("B", 3, v=2)), Insert(ev("A", 6, v=1))])
    assert sum(op.net.values()) == 1
    return op


def refused(op, element, error, message):
    before = state(op)
    with pytest.raises(error, match=message):
        op.feed(element)
    assert state(op) == before


# ---------------------------------------------------------------- the AFA
def test_arc_to_unknown_state_in_a_file():
    with pytest.raises(QueryError, match=r"arc 'a1' goes to unknown state 'q9'") as exc:
        loads_afa(AB_TEXT.replace("to: q2", "to: q9"))
    assert (exc.value.line, exc.value.column) == (8, 30)


def test_arc_from_unknown_state_in_the_python_api():
    with pytest.raises(QueryError, match=r"arc 'x' leaves unknown state 7"):
        Afa(states=(0, 1), start=0, finals={1}, arcs=[Arc("x", 7, 1)])


def test_fence_that_is_not_boolean_in_a_file():
    with pytest.raises(QueryError, match=r"arc 'a0': the fence 'r.n \+ e.v' is not a boolean") as exc:
        loads_afa(AB_TEXT.replace("fence: \"e.type = 'A'\"", "fence: \"r.n + e.v\""))
    assert exc.value.line == 7


def test_fence_that_is_not_boolean_at_run_time_leaves_the_state_unchanged():
    """A fence on a non-boolean event attribute is refused when evaluated, naming the arc."""
    afa = loads_afa(AB_TEXT.replace("fence: \"e.type = 'B'\"", "fence: \"e.flag\""))
    op = AfaOperator(afa)
    op.feed_all([Insert(ev("A", 1, v=1)), Insert(ev("B", 2, v=2, flag=True)), Insert(ev("A", 4, v=1))])
    assert sum(op.net.values()) == 1
    refused(op, Insert(ev("B", 5, v=2, flag=3)), QueryError,
            r"the fence of arc 'a1' gave 3, not a boolean \(fence 'e.flag' at line 8\)")


def test_python_fence_that_is_not_boolean():
    afa = Afa(states=(0, 1), start=0, finals={1}, initial=0,
              arcs=[Arc("f", 0, 1, fence=lambda e, r: e.get("v"))])
    op = AfaOperator(afa)
    op.feed(Insert(ev("A", 1, v=True)))
    refused(op, Insert(ev("A", 2, v=5)), QueryError, r"fence of arc 'f' gave 5")


@pytest.mark.parametrize("old, new, message", [
    ("fence: \"e.type = 'B'\"", "fence: \"r.m > 1\"", r"register field 'm' is not in the register schema \(n\)"),
    ("transfer: {n: \"r.n + e.v\"}}\n  - {name: a1", "transfer: {m: \"1\"}}\n  - {name: a1",
     r"transfer sets register field 'm', which is not in the register schema"),
    ("transfer: {n: \"r.n + e.v\"}}\n  - {name: a1", "transfer: {n: \"r.z\"}}\n  - {name: a1",
     r"register field 'z' is not in the register schema"),
])
def test_register_field_not_in_the_schema(old, new, message):
    assert old in AB_TEXT
    with pytest.raises(QueryError, match=message) as exc:
        loads_afa(AB_TEXT.replace(old, new, 1))
    assert exc.value.line is not None and exc.value.column is not None


@pytest.mark.parametrize("text, message", [
    (AB_TEXT + "bogus: 1\n", r"unknown key 'bogus'"),
    (AB_TEXT.replace("start: q0\n", ""), r"the AFA file has no 'start'"),
    (AB_TEXT.replace("start: q0", "start: q7"), r"the start state 'q7' is not in states"),
    (AB_TEXT.replace("final: [q2]", "final: [q5]"), r"the final state 'q5' is not in states"),
    (AB_TEXT.replace("states: [q0, q1, q2]", "states: [q0, q1, q2, q1]"), r"state 'q1' is listed twice"),
    (AB_TEXT.replace("name: a1", "name: a0"), r"two arcs are named 'a0'"),
    (AB_TEXT.replace("window: 10", "window: -1"), r"the window must be a positive number"),
    (AB_TEXT.replace("e.type = 'A'", "e.type = = 'A'"), r"unexpected '='"),
    (AB_TEXT.replace("e.type = 'A'", "x.type = 'A'"), r"unknown name 'x'"),
    (AB_TEXT.replace("e.type = 'A'", "p.k = 1"), r"unknown parameter 'p.k'"),
    (AB_TEXT.replace("e.type = 'A'", "sum(e[].v) > 1"), r"aggregates"),
    (AB_TEXT + "  - {from: q1, to: q1, epsilon: true, fence: \"e.v > 1\"}\n", r"an ε-arc sees only the register"),
    (AB_TEXT + "  - {from: q1, to: q2, epsilon: true}\n  - {from: q2, to: q1, epsilon: true}\n",
     r"the ε-arcs form a cycle"),
    ("states: [a\n", r"not valid YAML"),
    ("", r"is empty"),
    (AB_TEXT.replace("register: {n: 0}", "register: {n: 0, n: 1}"), r"duplicate key 'n'"),
])
def test_afa_file_errors(text, message):
    with pytest.raises(QueryError, match=message):
        loads_afa(text)


def test_numbers_in_the_file_are_exact():
    afa = loads_afa(AB_TEXT.replace("register: {n: 0}", "register: {n: 0.1}"))
    from fractions import Fraction

    assert afa.initial == (Fraction(1, 10),)


# ---------------------------------------------------------------- the input stream
def test_retraction_of_an_event_never_inserted(busy):
    refused(busy, Retract(ev("B", 4, v=2)), ProtocolError,
            r"retraction of event\{type=B, v=2\}\[4, 14\), an event never inserted")


def test_retraction_with_a_different_payload(busy):
    refused(busy, Retract(ev("A", 6, v=2)), ProtocolError, r"an event never inserted")


def test_retraction_twice(busy):
    busy.feed(Retract(ev("A", 6, v=1)))
    refused(busy, Retract(ev("A", 6, v=1)), ProtocolError, r"never inserted \(or already retracted\)")


def test_event_below_the_current_punctuation(busy):
    refused(busy, Insert(ev("X", 1)), ProtocolError, r"insertion of event\{type=X\}\[1, 11\) below the current "
                                                     r"punctuation 2")


def test_retraction_below_the_current_punctuation(busy):
    refused(busy, Retract(ev("A", 1, v=1)), ProtocolError, r"retraction of .* below the current punctuation")


def test_duplicate_timestamp_and_empty_lifetime(busy):
    refused(busy, Insert(ev("B", 6, v=2)), ProtocolError, r"another event already has LE 6")
    refused(busy, Insert(Event.make(7, 7, {"type": "B"})), ProtocolError, r"empty lifetime")


def test_protocol_errors_are_event_errors():
    assert issubclass(ProtocolError, EventError)


def test_transfer_giving_an_unhashable_register():
    afa = Afa(states=(0, 1), start=0, finals={1}, initial=0, arcs=[Arc("g", 0, 1, transfer=lambda e, r: [r])])
    op = AfaOperator(afa)
    refused(op, Insert(ev("A", 1)), QueryError, r"transfer of arc 'g' gave an unhashable register")


# ---------------------------------------------------------------- dynamic patterns
def test_arc_events_with_bad_items(busy):
    spare = Arc("s", "q9", "q1")
    refused(busy, ArcInsert(spare), QueryError, r"arc 's' leaves unknown state 'q9'")
    refused(busy, ArcInsert(Arc("a0", "q0", "q1")), QueryError, r"an arc named 'a0' is already active")
    refused(busy, ArcDelete("nope"), QueryError, r"no active arc named 'nope'")
    refused(busy, ArcInsert(Arc("late", "q0", "q1"), Lifetime(1)), ProtocolError,
            r"arc insertion of 'late' with lifetime \[1, inf\): it starts below the current punctuation 2")
    refused(busy, ArcDelete("a0", explicit=True), ProtocolError, r"explicit deletion of arc 'a0'")
    refused(busy, ArcInsert(Arc("e", "q2", "q7", epsilon=True)), QueryError, r"arc 'e' goes to unknown state 'q7'")


def test_epsilon_cycle_through_a_dynamic_arc():
    afa = Afa(states=(0, 1), start=0, finals={1}, initial=0, arcs=[Arc("e", 0, 1, epsilon=True)])
    op = AfaOperator(afa)
    refused(op, ArcInsert(Arc("back", 1, 0, epsilon=True)), QueryError, r"the ε-arcs form a cycle")


# ---------------------------------------------------------------- flavors
def test_afa_plus_o_refusals():
    op = SeqAfaOperator(loads_afa(AB_TEXT))
    op.feed(Insert(Event.make(5, 15, {"type": "A", "v": 1}, seq=5)))
    refused(op, Insert(Event.make(6, 16, {"type": "B"}, seq=4)), ProtocolError, r"disagrees with the LE order")
    refused(op, Insert(Event.make(7, 17, {"type": "B"}, seq=5)), ProtocolError, r"sequence number 5 is already used")
    refused(op, Insert(Event.make(7, 17, {"type": "B"})), ProtocolError, r"needs a sequence number")
    refused(op, Retract(Event.make(5, 15, {"type": "A", "v": 1}, seq=5)), Unsupported, r"input retractions")


def test_cleanse_refusals_leave_buffer_and_operator_unchanged():
    c = Cleanse(AfaOperator(loads_afa(AB_TEXT)), 0)
    c.feed(Insert(ev("A", 5, v=1)))
    c.feed(Punctuate(3))
    before = (list(c.buffer), c.t, state(c.target))
    with pytest.raises(ProtocolError, match="below the current punctuation 3"):
        c.feed(Insert(ev("A", 2, v=1)))
    with pytest.raises(ProtocolError, match="another event already has LE 5"):
        c.feed(Insert(ev("B", 5, v=1)))
    with pytest.raises(ProtocolError, match="never inserted"):
        c.feed(Retract(ev("B", 7, v=1)))
    assert (list(c.buffer), c.t, state(c.target)) == before


def test_failure_during_propagation_restores_everything():
    """A late A@2 makes the operator evaluate a1 on B@3 (flag 3) while propagating: refused, state intact."""
    afa = loads_afa(AB_TEXT.replace("fence: \"e.type = 'B'\"", "fence: \"e.flag\""))
    op = AfaOperator(afa)
    op.feed_all([Insert(ev("A", 1, v=1)), Insert(ev("X", 2)), Insert(ev("B", 4, v=2, flag=3))])
    refused(op, Insert(ev("A", 3, v=1)), QueryError, r"the fence of arc 'a1' gave 3, not a boolean")
    refused(op, Retract(ev("X", 2)), QueryError, r"the fence of arc 'a1' gave 3, not a boolean")
