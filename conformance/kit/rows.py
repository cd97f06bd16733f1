"""Match rows in the `Match.to_json` form (an outside engine's answer) read back into a MatchTable, so that a
vector's own check judges them."""
from __future__ import annotations

import math
import re
from collections import Counter
from decimal import Decimal
from fractions import Fraction
from typing import Any, Iterable

from cepkit.core.match import NON_FINITE, Match
from cepkit.core.match_table import Layout, MatchTable

RESERVED = ("bindings", "ts", "detected", "sign", "lifetime")
_RATIO = re.compile(r"-?\d+/\d+")
_NON_FINITE = {text: float(name) for name, text in NON_FINITE.items()}


class RowError(ValueError):
    """A match row that is not in the documented form."""


def number(value: Any) -> Any:
    """A JSON value as an exact one: a number with a fraction part is the simplest fraction that rounds to
    the same double (0.3333333333333333 is 1/3), the strings "n/d" are that fraction, "Infinity",
    "-Infinity" and "NaN" those floats; lists element by element; anything else as it is."""
    if isinstance(value, list):
        return [number(v) for v in value]
    if isinstance(value, str):
        if value in _NON_FINITE:
            return _NON_FINITE[value]
        return Fraction(value) if _RATIO.fullmatch(value) else value
    if isinstance(value, float) and value == value and value not in (float("inf"), float("-inf")) \
            and not value.is_integer():
        exact = Fraction(value)
        for digits in range(1, 18):
            near = exact.limit_denominator(10 ** digits)
            if float(near) == value:
                return near
        return exact
    return value


def value_key(value: Any) -> tuple:
    """A value as the kit compares it by default: numbers by exact value whatever their type (70, 70.0 and
    Fraction(70) are one value; a float is read as `number` reads it, so 0.1 is 1/10), booleans, text and null
    each their own kind (True is not 1, "70" is not 70)."""
    if value is None:
        return ("null",)
    if hasattr(value, "item") and not isinstance(value, (list, tuple, dict)):
        value = value.item()
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, Fraction)):
        return ("number", Fraction(value))
    if isinstance(value, float):
        return ("number", Fraction(number(value))) if math.isfinite(value) else ("number", repr(value))
    if isinstance(value, Decimal):
        return ("number", Fraction(value)) if value.is_finite() else ("number", repr(float(value)))
    if isinstance(value, str):
        return ("text", value)
    if isinstance(value, (list, tuple)):
        return ("list", tuple(value_key(v) for v in value))
    return ("other", repr(value))


def to_match(row: Any, payload: Iterable[str] | None) -> Match:
    """One row as a Match. Payload items are the names the layout gives (a name taken by a reserved key may be
    written `payload.NAME`), then every other key but the reserved ones (SQL's `SELECT *` columns)."""
    if not isinstance(row, dict) or not isinstance(row.get("bindings"), dict) or "ts" not in row:
        raise RowError(f"a match row is a JSON object with 'bindings' (variable -> [event ids]) and 'ts', not {row!r}")
    bindings = []
    for var, ids in row["bindings"].items():
        if not isinstance(ids, list):
            raise RowError(f"bindings of {var!r} must be a list of event ids, not {ids!r}")
        bindings.append((var, tuple(ids)))
    names = list(payload or ())
    names += [k for k in row if k not in RESERVED and k not in names and not k.startswith("payload.")]
    names += [k[len("payload."):] for k in row if k.startswith("payload.") and k[len("payload."):] not in names]
    items = tuple((n, number(row[f"payload.{n}"] if f"payload.{n}" in row else row.get(n))) for n in names)
    lifetime = row.get("lifetime")
    if lifetime is not None and (not isinstance(lifetime, list) or len(lifetime) != 2):
        raise RowError(f"lifetime must be [start, end], not {lifetime!r}")
    sign = row.get("sign", 1)
    if sign not in (1, -1):
        raise RowError(f"sign must be 1 or -1, not {sign!r}")
    return Match(tuple(bindings), number(row["ts"]), items, sign,
                 tuple(number(x) for x in lifetime) if lifetime is not None else None, number(row.get("detected")))


def to_table(rows: Iterable[Any], layout: Layout | None) -> MatchTable:
    """The rows as a MatchTable of the layout (the reference's for the vector's query), or of one read off
    the rows when there is none."""
    matches = [to_match(r, layout.payload if layout is not None else None) for r in rows]
    if layout is None:
        variables = tuple(dict.fromkeys(v for m in matches for v, _ in m.bindings))
        payload = tuple(dict.fromkeys(n for m in matches for n, _ in m.payload))
        layout = Layout(variables, payload, any(m.detected is not None for m in matches),
                        any(m.lifetime is not None for m in matches))
    return MatchTable.from_matches(layout, matches)


SHOWN = 20   # rows listed on each side of a difference


def shown_value(key: tuple) -> str:
    """A compared value (`value_key`'s form, or a repr under --strict-types) as a reader writes it: null, true,
    70, 80.25, 1/3, "text", [..]."""
    if not isinstance(key, tuple):
        return str(key)
    kind = key[0]
    if kind == "null":
        return "null"
    if kind == "bool":
        return "true" if key[1] else "false"
    if kind == "number" and isinstance(key[1], Fraction):
        f = key[1]
        if f.denominator == 1:
            return str(f.numerator)
        d = f.denominator
        for p in (2, 5):
            while d % p == 0:
                d //= p
        return str(Decimal(f.numerator) / Decimal(f.denominator)) if d == 1 else f"{f.numerator}/{f.denominator}"
    if kind == "text":
        return '"' + key[1].replace("\\", "\\\\").replace('"', '\\"') + '"'
    if kind == "list":
        return "[" + ", ".join(shown_value(v) for v in key[1]) + "]"
    return str(key[1])


def shown_row(row: tuple) -> str:
    """A compared row ((column, value key) pairs) as {column: value, ...}."""
    return "{" + ", ".join(f"{k}: {shown_value(v)}" for k, v in row) + "}"


def row_difference(got: list, want: list, show=shown_row) -> str:
    """What differs between two multisets of compared rows: the rows wanted but not given and those given but
    not wanted (each with its count when repeated), SHOWN of each at most."""
    missing, extra = Counter(want) - Counter(got), Counter(got) - Counter(want)
    lines = [f"{len(got)} given, {len(want)} wanted"]
    for title, rows in (("wanted, not given", missing), ("given, not wanted", extra)):
        if rows:
            lines.append(f"{title} ({sum(rows.values())}):")
            listed = sorted(rows.items(), key=lambda kv: repr(kv[0]))
            lines += [f"  {show(r)}" + (f"  x{n}" if n > 1 else "") for r, n in listed[:SHOWN]]
            if len(listed) > SHOWN:
                lines.append(f"  ... {len(listed) - SHOWN} more")
    return "\n".join(lines)
