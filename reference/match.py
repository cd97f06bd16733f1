"""The canonical match: variable bindings to event ids, the match timestamp, and the RETURN payload."""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any


@dataclass(frozen=True)
class Match:
    """One match. `bindings` maps each positive variable to the ids of its events, in stream order."""

    bindings: tuple[tuple[str, tuple[Any, ...]], ...]
    ts: int
    payload: tuple[tuple[str, Any], ...] = field(default=())

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

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"bindings": {k: [plain(i) for i in v] for k, v in self.bindings},
                               "ts": self.ts}
        for name, value in self.payload:
            out[name] = plain(value)
        return out


def canonical_key(bindings: dict[str, Any]) -> tuple:
    """The canonical identity of a match's bindings: sorted (variable, ids as strings) pairs."""
    return tuple(sorted((str(var), tuple(str(i) for i in ids)) for var, ids in bindings.items()))


def plain(value: Any) -> Any:
    """A JSON-friendly rendering of an exact value (Fractions become floats unless integral)."""
    if isinstance(value, Fraction):
        return int(value) if value.denominator == 1 else float(value)
    if hasattr(value, "item"):
        return value.item()
    return value
