"""Argument types of the command line's options: a malformed value is a usage error (argparse: exit 2,
naming the option), found before any file is read (docs/semantics.md "Query limits and odd text")."""
from __future__ import annotations

import argparse
import math
import re
from fractions import Fraction
from typing import Any

from cepkit.core import memory
from cepkit.core.units import NANOS as TIME_UNITS  # the units of timestamps (core.events.TIME_UNITS is it)


def ts_unit(text: str) -> str:
    """A unit of integer timestamps (cepkit.core.events.TIME_UNITS)."""
    if text not in TIME_UNITS:
        raise argparse.ArgumentTypeError(f"unknown time unit {text!r} (expected one of {', '.join(TIME_UNITS)})")
    return text


def ts_format(text: str) -> str:
    """How timestamps are written: auto, ticks, iso, or a strftime pattern (it has a % directive)."""
    if text in ("auto", "ticks", "iso"):
        return text
    if "%" not in text:
        raise argparse.ArgumentTypeError(f"expected auto, ticks, iso or a strftime pattern such as "
                                         f"'%Y-%m-%d %H:%M:%S', not {text!r}")
    import datetime

    try:
        datetime.datetime(2000, 1, 2, 3, 4, 5).strftime(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not a strftime pattern: {text!r} ({exc})") from None
    return text


def positive(text: str) -> int:
    """A whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive whole number, not {text!r}")
    return value


def size(text: str) -> int:
    """A memory size in bytes: `2G`, `512M`, `1.5G`, or a number of bytes (binary units)."""
    try:
        return memory.parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def count(text: str) -> int:
    """A whole number of at least 0."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number (0 or more), not {text!r}")
    return value


def column(text: str) -> str:
    """A column name: not empty."""
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a column name, not an empty text")
    return text


def names(text: str) -> str:
    """A comma-separated list of names, none empty (an empty text is no name at all)."""
    if text and any(not part.strip() for part in text.split(",")):
        raise argparse.ArgumentTypeError(f"an empty name in the comma-separated list {text!r}")
    return text


def sigma(text: str) -> Any:
    """A non-negative number (exact), or inf."""
    if text.strip().lower() in ("inf", "infinity"):
        return math.inf
    try:
        value = Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"expected a non-negative number or inf, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative number or inf, not {text!r}")
    return value


_MASTER = re.compile(r"local|local\[(\d+|\*)(\s*,\s*\d+)?\]|local-cluster\[\s*\d+\s*,\s*\d+\s*,\s*\d+\s*\]"
                     r"|yarn|(spark|k8s|mesos)://\S+")


def spark_master(text: str) -> str:
    """A Spark master URL in one of the forms Spark accepts (local, local[N], local[*, F], spark://host:port,
    yarn, k8s://..., mesos://...)."""
    if not _MASTER.fullmatch(text.strip()):
        raise argparse.ArgumentTypeError(f"not a Spark master URL: {text!r} (expected local, local[N], "
                                         f"local[*], local[N, retries], spark://host:port, yarn, k8s://... "
                                         f"or mesos://...)")
    return text.strip()
