"""The constructs a TPStream query (spec/004 §5) uses, by the names core/registry.py declares.

"situations" and "Allen relations" (every query), "PARTITION BY", "duration bounds" (AT LEAST / AT MOST /
BETWEEN), "disjunctive relations" (a constraint with more than one relation), "RETURN", and the output
mode: "exact output" or "early output" (the `mode` compile option, spec/004 §5.8).
"""
from __future__ import annotations

from typing import Any

from cepkit.core.errors import QueryError
from cepkit.front.tpstream.query import TPQuery

MODES = ("exact", "early")


class _Option:
    """The position of a construct chosen by a compile option: none in the query text."""

    line = column = None


def constructs(q: TPQuery, mode: str = "exact", **_options: Any) -> dict[str, Any]:
    if mode not in MODES:
        raise QueryError(f"unknown TPStream mode '{mode}'", expected=list(MODES))
    out: dict[str, Any] = {"situations": q.definitions[0].pos if q.definitions else q.pos,
                           "Allen relations": q.pattern[0].pos if q.pattern else q.pos}
    if q.partition_by:
        out["PARTITION BY"] = q.pos
    for d in q.definitions:
        if d.at_least is not None or d.at_most is not None:
            out.setdefault("duration bounds", (d.at_least or d.at_most).pos)
    for c in q.pattern:
        if len(c.relations) > 1:
            out.setdefault("disjunctive relations", c.pos)
    if q.returns:
        out["RETURN"] = q.returns[0].pos
    out["early output" if mode == "early" else "exact output"] = _Option()   # a compile option, not in the text
    return out
