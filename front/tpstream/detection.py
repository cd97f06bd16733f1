"""Earliest detection times of temporal relations (thesis §5.5.3, Table 5.2, spec/004 §5.8).

tr_min(R) is the third of δR's ordered endpoints: once it is known the fourth's place is implied. A
prefix group is a set of relations that share a prefix of endpoint order; a constraint holding a whole
group is certain when the prefix is (tg_min). Each time is given as the endpoint roles that carry it
(`("a", "te")`, ...): for `meets`, A.te and B.ts are the same instant.
"""
from __future__ import annotations

Role = tuple[str, str]  # ("a" | "b", "ts" | "te")

TR_MIN: dict[str, frozenset[Role]] = {
    "before": frozenset({("b", "ts")}),
    "after": frozenset({("a", "ts")}),
    "meets": frozenset({("b", "ts"), ("a", "te")}),
    "met_by": frozenset({("a", "ts"), ("b", "te")}),
    "overlaps": frozenset({("a", "te")}),
    "overlapped_by": frozenset({("b", "te")}),
    "starts": frozenset({("a", "te")}),
    "started_by": frozenset({("b", "te")}),
    "during": frozenset({("a", "te")}),
    "contains": frozenset({("b", "te")}),
    "finishes": frozenset({("a", "te"), ("b", "te")}),
    "finished_by": frozenset({("a", "te"), ("b", "te")}),
    "equals": frozenset({("a", "te"), ("b", "te")}),
}

# Prefix groups and their detection time tg_min (Table 5.2 and its mirror image).
GROUPS: tuple[tuple[frozenset[str], frozenset[Role]], ...] = (
    (frozenset({"before", "meets"}), frozenset({("b", "ts")})),                       # G1: A.te <= B.ts
    (frozenset({"starts", "equals", "started_by"}), frozenset({("a", "ts"), ("b", "ts")})),  # G2: A.ts = B.ts
    (frozenset({"overlaps", "finished_by", "contains"}), frozenset({("b", "ts")})),   # G3: A.ts < B.ts < A.te
    (frozenset({"after", "met_by"}), frozenset({("a", "ts")})),                       # mirror of G1
    (frozenset({"overlapped_by", "finishes", "during"}), frozenset({("a", "ts")})),   # mirror of G3
)


def detection_roles(relations: frozenset[str], actual: str) -> frozenset[Role]:
    """The roles carrying the time at which a constraint holding `relations` becomes certain for a pair
    whose final relation is `actual` (in `relations`): the group's tg_min if the whole group of `actual`
    is in the constraint, else tr_min(actual)."""
    for group, roles in GROUPS:
        if actual in group and group <= relations:
            return roles
    return TR_MIN[actual]


def trigger_roles(relations: frozenset[str]) -> frozenset[Role]:
    """Every role that can carry a detection time of the constraint (its part of tp_min(P))."""
    roles = set()
    for r in relations:
        roles |= detection_roles(relations, r)
    return frozenset(roles)


def detection_time(relations: frozenset[str], actual: str, a: tuple[int, int], b: tuple[int, int]) -> int:
    """The detection time of the constraint for final intervals a, b with `a actual b`."""
    role, which = next(iter(sorted(detection_roles(relations, actual))))
    iv = a if role == "a" else b
    return iv[0] if which == "ts" else iv[1]


def triggers(delayed, bounded, constraints) -> tuple[list[bool], list[bool]]:
    """matchOnStart / matchOnEnd per stream (Algorithm 5.4): whether a stream's start or end can carry a
    detection time of some constraint `(i, relations, j)` (tp_min, Table 5.2), or its visibility waits on a
    duration bound: `delayed[i]` (a minimum above 0 delays a start) or `bounded[i]` (a maximum: first
    visible at its end)."""
    on_start, on_end = list(delayed), list(bounded)
    for i, rels, j in constraints:
        for side, which in trigger_roles(rels):
            k = i if side == "a" else j
            (on_start if which == "ts" else on_end)[k] = True
    return on_start, on_end
