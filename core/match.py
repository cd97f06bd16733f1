"""The canonical match: variable bindings to event ids, the match timestamp, and the RETURN payload; for
speculative output (AFA) a sign and a lifetime, and a detection time where the language has one."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any


@dataclass(frozen=True)
class Match:
    """One match. `bindings` maps each positive variable to the ids of its events, in stream order.
    `sign` is +1 for an insertion and -1 for a retraction; `lifetime` (start, end) the validity interval
    of speculative output; `detected` the detection time (TPStream early output), else None."""

    bindings: tuple[tuple[str, tuple[Any, ...]], ...]
    ts: Any
    payload: tuple[tuple[str, Any], ...] = field(default=())
    sign: int = 1
    lifetime: tuple[Any, Any] | None = None
    detected: Any = None

    @staticmethod
    def make(bindings: dict[str, tuple], ts: int, payload: dict[str, Any] | None = None) -> "Match":
        return Match(tuple((k, tuple(v)) for k, v in bindings.items()), int(ts),
                     tuple((payload or {}).items()))

    @property
    def binding_dict(self) -> dict[str, tuple]:
        return dict(self.bindings)

    def key(self) -> tuple:
        """Canonical identity used by conformance: the bindings only, as comparable strings."""
        return canonical_key(dict(self.bindings))

    def canonical(self) -> tuple:
        """The whole row in comparable form: bindings, ts, sign, lifetime, detection time, payload."""
        return (self.key(), comparable(self.ts), self.sign, comparable(self.lifetime), comparable(self.detected),
                tuple((name, comparable(v)) for name, v in self.payload))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"bindings": {k: [plain(i) for i in v] for k, v in self.bindings},
                               "ts": self.ts}
        if self.detected is not None:
            out["detected"] = json_safe(self.detected)
        if self.lifetime is not None:
            out["sign"] = self.sign
            out["lifetime"] = [json_safe(x) for x in self.lifetime]
        for name, value in self.payload:
            out[name] = json_safe(value)
        return out


def canonical_key(bindings: dict[str, Any]) -> tuple:
    """The canonical identity of a match's bindings: sorted (variable, ids as strings) pairs."""
    return tuple(sorted((str(var), tuple(str(i) for i in ids)) for var, ids in bindings.items()))


def plain(value: Any) -> Any:
    """A JSON-friendly rendering of an exact value (Fractions become floats unless integral; one beyond the
    float range becomes its exact text 'numerator/denominator')."""
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return int(value)
        try:
            return float(value)
        except OverflowError:
            return str(value)
    if hasattr(value, "item"):
        return value.item()
    return value


NON_FINITE = {"inf": "Infinity", "-inf": "-Infinity", "nan": "NaN"}


def json_safe(value: Any) -> Any:
    """`plain(value)` made strict-JSON-safe, through lists, tuples and dicts: a non-finite float becomes the
    string "Infinity", "-Infinity" or "NaN" (the protobuf JSON mapping), as JSON has no such numbers."""
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    value = plain(value)
    if isinstance(value, float) and not math.isfinite(value):
        return NON_FINITE[repr(value)]
    return value


def comparable(value: Any) -> Any:
    """An exact, hashable rendering of a value (numbers compare by value, whatever their Python type)."""
    if isinstance(value, (list, tuple)):
        return tuple(comparable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((str(k), comparable(v)) for k, v in value.items()))
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, Fraction)):
        return Fraction(value)
    if isinstance(value, float):
        return value if value != value or value in (float("inf"), float("-inf")) else Fraction(value)
    if hasattr(value, "item"):
        return comparable(value.item())
    return value
