"""A number compared with text that is not a number is a query error at the comparison, in SASE+ and SASE 1.0
as in SQL (docs/semantics.md SQ-N1): it was false (true for !=) on every event, silently. A quoted number
still compares as that number (R12), and a text attribute compares with text."""
from __future__ import annotations

import pandas as pd
import pytest

from cepkit import run
from cepkit.core.errors import QueryError

EVENTS = pd.DataFrame([{"id": 1, "ts": 1, "type": "A", "price": 90.5, "name": "x"},
                       {"id": 2, "ts": 2, "type": "B", "price": 80, "name": "y"}])


@pytest.mark.parametrize("engine, cond, op", [
    (engine, cond, op) for cond, op in [("a.price = 'abc'", "="), ("b.price != 'abc'", "!="), ("'abc' < b.price * 2", "<")]
    for engine in ["reference", "brute"] + (["optimized"] if op != "<" else [])])   # (optimized refuses `<` text by name)
def test_a_number_against_non_numeric_text_is_a_query_error(engine, cond, op):
    head = "PATTERN SEQ(A a, B b) WHERE skip_till_any_match { a.id = 1 and "
    q = head + cond + " }"
    column = len(head) + cond.index(f" {op} ") + 2   # the comparison's operator
    with pytest.raises(QueryError, match="compares a number .* with the text 'abc', which is not a number") as err:
        run(q, EVENTS, engine=engine)
    assert (err.value.line, err.value.column) == (1, column)


def test_the_sase1_dialect_refuses_it_too():
    q = "PATTERN SEQ(A a, B b)\nWHERE skip-till-any-match AND a.price > 'cheap'\nWITHIN 10"
    with pytest.raises(QueryError, match="with the text 'cheap'") as err:
        run(q, EVENTS, dialect="sase1")
    assert (err.value.line, err.value.column) == (2, 39)


def test_the_rfid_dialect_refuses_it_too():
    from cepkit.core.readers import from_pandas
    from cepkit.reference.rfid import SSCEngine

    program = SSCEngine().compile("EVENT SEQ(A a, B b)\nWHERE a.price = 'n/a'")
    with pytest.raises(QueryError, match="with the text 'n/a'") as err:
        program.run(from_pandas(EVENTS))
    assert (err.value.line, err.value.column) == (2, 15)


@pytest.mark.parametrize("engine", ["reference", "optimized"])
def test_a_quoted_number_and_text_attributes_still_compare(engine):
    q = "PATTERN SEQ(A a, B b) WHERE skip_till_any_match { a.price = '90.5' and b.name = 'y' and b.name != 'x' }"
    assert [m.binding_dict for m in run(q, EVENTS, engine=engine)] == [{"a": (1,), "b": (2,)}]
