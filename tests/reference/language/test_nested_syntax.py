"""AND / OR / nesting, ANY and the SASE RFID EVENT form parse to the one AST and print back."""
from __future__ import annotations

import pytest

from cepkit.core.errors import QueryError
from cepkit.front.language import ast as A
from cepkit.front.language import parse
from cepkit.front.language.printer import query_to_text


def test_nested_pattern_shape():
    q = parse("PATTERN SEQ(A a, AND(B b, ~(C c)), OR(D d, SEQ(E d, F f))) WITHIN 5")
    assert isinstance(q.pattern, A.Seq)
    conj, disj = q.pattern.components[1], q.pattern.components[2]
    assert isinstance(conj, A.Conj) and isinstance(disj, A.Disj)
    assert [c.var for c in A.leaves(q.pattern)] == ["a", "b", "c", "d", "d", "f"]
    assert conj.items[1].negated and not A.is_flat_seq(q.pattern)


def test_any_component_and_rfid_form():
    q = parse("EVENT SEQ(SHELF-READING x, SHELF-READING y, ! (ANY(COUNTER-READING, SHELF-READING) z))\n"
              "WHERE [id] ∧ x.shelf_id ≠ y.shelf_id ∧ x.shelf_id = z.shelf_id WITHIN 1 hour")
    assert q.dialect == "rfid" and q.strategy is A.Strategy.SKIP_TILL_ANY_MATCH
    z = q.pattern.components[2]
    assert z.negated and z.types == ("COUNTER-READING", "SHELF-READING")


def test_single_event_pattern_with_bare_attributes():
    q = parse("EVENT SHELF-READING WHERE category = 'food' ∧ manufacturer_id = '1'")
    (c,) = A.leaves(q.pattern)
    assert c.var == "e" and {n.var for n in q.where.items for n in (n.left,)} == {"e"}


def test_constant_equivalence_test():
    q = parse("EVENT SEQ(MEDICINE-TAKEN x, MEDICINE-TAKEN y) WHERE [name='John'] ∧ (x.amount + y.amount) > 1000 "
              "WITHIN 4 hours")
    assert q.where.items[0] == A.EquivTest("name", value=A.Const("John"))


@pytest.mark.parametrize("text", [
    "PATTERN AND(SEQ(A a, B b), SEQ(C c, D d), E e) WHERE skip_till_any_match(a, b, c, d, e) { a.x < e.x } WITHIN 10",
    "PATTERN OR(SEQ(A a, C c), SEQ(C c, D d)) WHERE skip_till_any_match { c.v > 1 }",
    "PATTERN SEQ(A x, ANY(B, C)+ y[], !(ANY(D, E) z)) WHERE skip_till_any_match { [k = 'v'] } WITHIN 3 EVENTS",
    "EVENT SEQ(A x, !(B y), C z) WHERE [id] AND x.v < z.v WITHIN 12 hours RETURN x.v AS v",
])
def test_printing_round_trips(text):
    q = parse(text)
    assert parse(query_to_text(q)) == q


@pytest.mark.parametrize("text, line, column", [
    ("PATTERN AND(A a, B b", 1, 21),
    ("PATTERN SEQ(A a, ANY() b)", 1, 22),
    ("PATTERN OR()", 1, 12),
    ("EVENT", 1, 6),
])
def test_syntax_errors_name_line_and_column(text, line, column):
    with pytest.raises(QueryError) as err:
        parse(text)
    assert (err.value.line, err.value.column) == (line, column), str(err.value)
