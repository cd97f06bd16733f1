"""Values compare as values (issue 33, item 3): an outside engine's 70.0 where the vector says 70 passes (it
failed before: a SQL row's values were compared by their repr), exact rationals by exact value; booleans, text
and null stay their own kinds; --strict-types asks for the vector's types too."""
from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import numpy as np

from cepkit.conformance.kit.rows import value_key
from cepkit.conformance.sql_loader import norm_row
from tests.conformance_kit.kit_run import kit

SEVENTY = "tests.conformance_kit.adapters:Seventy"
CASES = ("--language", "sql", "--case", "NUM-decimal-*", "--case", "MR-empty-iteration-ends-loop")


def test_numbers_are_one_value_whatever_their_type():
    assert value_key(70) == value_key(70.0) == value_key(Fraction(140, 2)) == value_key(Decimal("70.00"))
    assert value_key(np.int64(70)) == value_key(np.float32(70)) == value_key(70)
    assert value_key(0.3333333333333333) == value_key(Fraction(1, 3))          # as the rows are read
    assert value_key(90.75) == value_key(Fraction(363, 4)) and value_key(0.1) == value_key(Fraction(1, 10))
    assert value_key(float("inf")) == value_key(float("inf")) != value_key(10 ** 400)


def test_kinds_stay_apart():
    assert value_key(True) != value_key(1) and value_key(False) != value_key(0)
    assert value_key("70") != value_key(70) and value_key(None) != value_key(0) and value_key(None) != value_key("")
    assert value_key(0.1) != value_key(0.1000001)


def test_rows_by_value_or_by_type():
    assert norm_row({"a": 70, "b": "x"}, by_value=True) == norm_row({"b": "x", "a": 70.0}, by_value=True)
    assert norm_row({"a": 70}) != norm_row({"a": 70.0})      # the check cepkit's own engines are held to


def test_70_and_70_0_pass_unless_strict_types(capsys):
    """Seventy is the reference with every integral number of a row written as a float."""
    code, text = kit(capsys, "--adapter", SEVENTY, *CASES)
    assert code == 0, text
    assert " 0 failed, 0 refused, 0 errors" in text
    passed = int(text.split(" passed, 0 failed, 0 refused")[0].rsplit("\n", 1)[1])
    assert passed >= 4

    code, text = kit(capsys, "--adapter", SEVENTY, "--strict-types", *CASES)
    assert code == 1
    assert f"0 passed, {passed} failed, 0 refused, 0 errors" in text
    assert ": rows differ: " in text and "wanted, not given (" in text and "given, not wanted (" in text


def test_a_row_difference_lists_what_is_missing_and_what_is_extra_as_values():
    from cepkit.conformance.kit.rows import SHOWN, row_difference, shown_value

    assert [shown_value(value_key(v)) for v in (None, True, 70.0, Fraction(321, 4), Fraction(1, 3), 'a"b', [1, None])] \
        == ["null", "true", "70", "80.25", "1/3", '"a\\"b"', "[1, null]"]
    got = [norm_row({"x": 1}, True), norm_row({"x": 2}, True), norm_row({"x": 2}, True)]
    want = [norm_row({"x": 1.0}, True), norm_row({"x": 3}, True)]
    assert row_difference(got, want).splitlines() == [
        "3 given, 2 wanted", "wanted, not given (1):", "  {x: 3}", "given, not wanted (2):", "  {x: 2}  x2"]
    many = [norm_row({"x": i}, True) for i in range(SHOWN + 5)]
    assert row_difference(many, []).splitlines()[-1] == "  ... 5 more"
