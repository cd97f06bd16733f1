"""The one rule for what text is a number, shared by every reader (CSV cells, JSON numbers, text attributes
compared as numbers): a plain decimal literal with an optional sign, fraction and exponent, read exactly.

`parse_number` gives an int (when the value is whole) or a Fraction, and refuses everything else with
`NotANumber`: words such as `inf`, `nan` or `true`, `1_000`, hexadecimal, non-ASCII digits, empty text,
and literals whose exact value would need more than MAX_DIGITS digits.
"""
from __future__ import annotations

import math
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = ["NotANumber", "parse_number", "MAX_DIGITS", "NULL_WORDS"]

MAX_DIGITS = 4300  # Python's own bound on int <-> text conversion (sys.int_info.default_max_str_digits)
NULL_WORDS = frozenset(("", "NaN", "nan", "NULL", "null"))  # text cells read as null (not as numbers)
_ALLOWED = frozenset("0123456789+-.eE")


class NotANumber(ValueError):
    """Text that is not a number under the readers' rule; the message says why."""


def parse_number(text: str) -> int | Fraction:
    """The exact value of a decimal literal (surrounding whitespace ignored)."""
    s = text.strip()
    if not s:
        raise NotANumber("empty text is not a number")
    if not set(s) <= _ALLOWED:  # letters (inf, nan, 0x..), '_', non-ASCII digits: Decimal takes them, we do not
        raise NotANumber(f"{text!r} is not a number")
    try:
        d = Decimal(s)
    except InvalidOperation:
        raise NotANumber(f"{text!r} is not a number") from None
    if not d.is_finite():  # pragma: no cover - excluded by the character check
        raise NotANumber(f"{text!r} is not a finite number")
    sign, digits, exponent = d.as_tuple()
    if d and (len(digits) + max(exponent, 0) > MAX_DIGITS or -exponent > MAX_DIGITS):
        raise NotANumber(f"{text!r} needs more than {MAX_DIGITS} digits")
    value = Fraction(d)
    return value.numerator if value.denominator == 1 else value


def exact(value: Any) -> Any:
    """A value as an exact number (int or Fraction; a float by its shortest decimal), None for a null, other
    values as they are."""
    if value is None or type(value).__name__ == "NAType":
        return None
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if math.isnan(value):
            return None
        if math.isinf(value):
            return value
        if value.is_integer():
            return int(value)
        return Fraction(repr(value))
    if isinstance(value, (Decimal, Fraction)):
        if isinstance(value, Decimal) and not value.is_finite():
            return None if value.is_nan() else float(value)
        value = Fraction(value)
        return value.numerator if value.denominator == 1 else value
    return value
