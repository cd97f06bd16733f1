"""The constructs an AFA (spec/003) uses with the chosen flavour, by the names core/registry.py declares.

Every AFA uses "flavor:<flavor>"; with a register, "register"; with a window, "window"; with an ε-arc,
"epsilon arcs"; with standby arcs (arcs a dynamic pattern may insert), "standby arcs". The registry entry of
the reference engine declares them all: no flavour refuses anything the pattern shows. What the flavours
refuse (reference/afa/seqop.py, reference/afa/cleanse.py) only the input shows: an arc row (dynamic
patterns) or, under seq, an input retraction. The program refuses it while feeding, as Unsupported naming
the construct "<thing> under flavor <f>", the input row and the flavours that run it (`refused`, `runners`).
"""
from __future__ import annotations

from typing import Any

from cepkit.front.afa.model import Afa
from cepkit.core.errors import QueryError

FLAVORS = ("basic", "ignorable", "seq", "cleanse")
# what each flavour refuses (spec/003 §5.7, A17): the basic and ignorable flavours run everything
REFUSES: dict[str, tuple[str, ...]] = {"seq": ("dynamic patterns", "input retractions"),
                                       "cleanse": ("dynamic patterns",)}
# every construct the reference engine runs (its registry entry)
SUPPORTED = frozenset({"flavor:basic", "flavor:ignorable", "flavor:seq", "flavor:cleanse",
                       "register", "window", "epsilon arcs", "standby arcs"})


class _Pos:
    def __init__(self, line: Any, column: Any):
        self.line, self.column = line, column


def refused(construct: str, flavor: str) -> str:
    """The construct name of `construct` under a flavour that refuses it."""
    return f"{construct} under flavor {flavor}"


def runners(construct: str) -> list[str]:
    """The flavours that run the construct."""
    return [f for f in FLAVORS if construct not in REFUSES.get(f, ())]


def constructs(afa: Afa, flavor: str = "basic", **_options: Any) -> dict[str, Any]:
    """Construct names, each with where it first occurs in the AFA file (line and column, where known)."""
    if flavor not in FLAVORS:
        raise QueryError(f"unknown AFA flavor '{flavor}'", expected=list(FLAVORS))
    out: dict[str, Any] = {f"flavor:{flavor}": None}

    def at(arc) -> _Pos | None:
        text = getattr(arc, "text", None) or {}
        return _Pos(text["line"], text["column"]) if "line" in text else None

    if afa.schema:
        out["register"] = None
    if afa.window is not None:
        out["window"] = None
    for arc in afa.arcs + afa.standby:
        if arc.epsilon:
            out.setdefault("epsilon arcs", at(arc))
    if afa.standby:
        out["standby arcs"] = at(afa.standby[0])
    return out


def sigma_value(sigma: Any) -> Any:
    """Cleanse's sigma (spec/003 §6): a non-negative number, or inf from text; a QueryError otherwise."""
    import math
    from fractions import Fraction

    if isinstance(sigma, str):
        text = sigma.strip().lower()
        if text in ("inf", "infinity", ".inf"):
            return math.inf
        try:
            sigma = Fraction(text)
        except ValueError:
            raise QueryError(f"sigma must be a non-negative number or inf, not {sigma!r}") from None
    if isinstance(sigma, bool) or not isinstance(sigma, (int, float, Fraction)) or not sigma >= 0:
        raise QueryError(f"sigma must be a non-negative number or inf, not {sigma!r}")
    return sigma
