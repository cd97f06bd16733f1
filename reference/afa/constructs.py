"""The constructs an AFA (spec/003) uses with the chosen flavour, by the names reference/registry.py declares.

Every AFA uses "flavor:<flavor>". A pattern with standby arcs uses "dynamic patterns"; with an ε-arc,
"epsilon arcs"; with a register, "register"; with a window, "window". The flavours that refuse something
(reference/afa/seqop.py, reference/afa/cleanse.py) refuse it as the construct "<thing> under flavor <f>":
the registry entry of the reference engine declares every construct but those, so a refusal that the
pattern itself shows (standby arcs) comes at compile time, by name. What only the input shows (an arc row,
a retraction) is refused while feeding, as Unsupported naming the construct and the input row.
"""
from __future__ import annotations

from typing import Any

from reference.afa.model import Afa
from reference.errors import QueryError

FLAVORS = ("basic", "ignorable", "seq", "cleanse")
# what each flavour refuses (spec/003 §5.7, A17): the basic and ignorable flavours run everything
REFUSES: dict[str, tuple[str, ...]] = {"seq": ("dynamic patterns", "input retractions"),
                                       "cleanse": ("dynamic patterns",)}
PATTERN = ("flavor:basic", "flavor:ignorable", "flavor:seq", "flavor:cleanse",
           "register", "window", "epsilon arcs", "dynamic patterns")
# every construct the reference engine runs (its registry entry); the refused combinations are not in it
SUPPORTED = frozenset(PATTERN) | {"input retractions"}


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
        out["dynamic patterns"] = at(afa.standby[0])
        if "dynamic patterns" in REFUSES.get(flavor, ()):
            out[refused("dynamic patterns", flavor)] = at(afa.standby[0])
    return out
