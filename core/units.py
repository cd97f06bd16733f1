"""Duration units in queries and their size in nanoseconds."""
from __future__ import annotations

from cepkit.core.errors import QueryError
from cepkit.core.ast import Pos

NANOS = {"ns": 1, "us": 1_000, "ms": 1_000_000, "s": 10**9, "min": 60 * 10**9,
         "h": 3600 * 10**9, "d": 86400 * 10**9}

_SPELLINGS = {
    "ns": ("ns", "nanosecond", "nanoseconds", "nanos"),
    "us": ("us", "microsecond", "microseconds", "micros"),
    "ms": ("ms", "millisecond", "milliseconds", "millis"),
    "s": ("s", "sec", "secs", "second", "seconds"),
    "min": ("min", "mins", "minute", "minutes"),
    "h": ("h", "hr", "hrs", "hour", "hours"),
    "d": ("d", "day", "days"),
}
_LOOKUP = {word: unit for unit, words in _SPELLINGS.items() for word in words}


def parse_unit(word: str, pos: Pos) -> str:
    """The canonical unit key for a spelled unit, or a QueryError listing the accepted spellings."""
    unit = _LOOKUP.get(word.lower())
    if unit is None:
        raise QueryError(f"unknown time unit '{word}'", pos.line, pos.column,
                         expected=["events", "ns", "us", "ms", "seconds", "minutes", "hours", "days"])
    return unit
