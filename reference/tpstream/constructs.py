"""The constructs a TPStream query (spec/004 §5) uses, by the names reference/registry.py declares.

"situations" and "Allen relations" (every query), "PARTITION BY", "duration bounds" (AT LEAST / AT MOST /
BETWEEN), "disjunctive relations" (a constraint with more than one relation), "RETURN", and the output
mode: "exact output" or "early output" (the `mode` compile option, spec/004 §5.8).
"""
from __future__ import annotations

from typing import Any

from reference.tpstream.query import TPQuery

MODES = ("exact", "early")


def constructs(q: TPQuery, mode: str = "exact", **_options: Any) -> dict[str, Any]:
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
    out["early output" if mode == "early" else "exact output"] = None   # a compile option, not in the text
    return out
