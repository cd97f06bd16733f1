"""Detection times of relations and prefix groups (thesis Table 5.2) and the trigger situations."""
from __future__ import annotations

from cepkit.front.tpstream.detection import GROUPS, TR_MIN, detection_time, trigger_roles


def test_tr_min_is_the_third_endpoint():
    # Table 5.2: before/meets at B.ts, starts/overlaps at A.te, contains/started_by at B.te, ...
    assert detection_time(frozenset({"before"}), "before", (1, 3), (5, 8)) == 5
    assert detection_time(frozenset({"overlaps"}), "overlaps", (1, 5), (3, 8)) == 5
    assert detection_time(frozenset({"contains"}), "contains", (1, 8), (3, 5)) == 5
    assert detection_time(frozenset({"started_by"}), "started_by", (1, 8), (1, 4)) == 4
    assert detection_time(frozenset({"during"}), "during", (3, 5), (1, 8)) == 5
    assert detection_time(frozenset({"after"}), "after", (5, 8), (1, 3)) == 5


def test_whole_prefix_group_is_detected_at_its_prefix():
    g3 = frozenset({"overlaps", "finished_by", "contains"})  # the thesis' overlaps;finishes;contains
    assert detection_time(g3, "contains", (1, 8), (3, 5)) == 3
    assert detection_time(g3 - {"contains"}, "overlaps", (1, 5), (3, 8)) == 5  # part of the group: tr_min
    g2 = frozenset({"starts", "equals", "started_by"})
    assert detection_time(g2, "starts", (2, 4), (2, 5)) == 2
    assert all(len(g) in (2, 3) for g, _roles in GROUPS) and set(TR_MIN) >= {r for g, _ in GROUPS for r in g}


def test_thesis_trigger_example():
    # spec/004 §5.8: for `C contains;finishes;meets D` (thesis naming) D triggers at D.ts (via meets) and at
    # D.te (via contains and finishes); in Allen's names the thesis' finishes is finished_by.
    roles = trigger_roles(frozenset({"contains", "finished_by", "meets"}))
    assert ("b", "ts") in roles and ("b", "te") in roles
    assert trigger_roles(frozenset({"before"})) == {("b", "ts")}
