"""Hypothesis strategies for the SSC engine: random flat SEQ queries (SASE+ text, no ANY) and small streams."""
from __future__ import annotations

import pandas as pd
from hypothesis import strategies as st

TYPES = ("A", "B", "C")
WINDOWS = ("", "", "WITHIN 2", "WITHIN 3", "WITHIN 4", "WITHIN 5", "WITHIN 6", "WITHIN 8", "WITHIN 3 EVENTS",
           "WITHIN 6 EVENTS")


@st.composite
def queries(draw, rfid: bool = False) -> dict:
    """1-4 positive components over 2-3 types, 0-2 negations anywhere, 0-2 equivalence tests [x]/[y],
    an optional simple predicate, an optional parameterized inequality, an optional predicate on a
    negated variable, an optional window. `rfid`: the EVENT form, with ANY(...) components, and a window
    whenever a negation starts or ends the pattern (the RFID language requires one there)."""
    types = TYPES[:draw(st.integers(2, 3))]

    def type_spec():
        if rfid and draw(st.integers(0, 2)) == 0:
            return "ANY(" + ", ".join(draw(st.lists(st.sampled_from(types + ("D",)), min_size=2, max_size=3,
                                                     unique=True))) + ")"
        return draw(st.sampled_from(types))

    n = draw(st.integers(1, 4))
    pos = [(f"p{j}", type_spec()) for j in range(n)]
    negs = [(f"n{k}", type_spec(), draw(st.integers(0, n))) for k in range(draw(st.integers(0, 2)))]
    preds = [f"[{a}]" for a in draw(st.lists(st.sampled_from(["x", "y"]), unique=True, max_size=2))]
    if draw(st.booleans()):
        var = draw(st.sampled_from([v for v, _ in pos]))
        op = draw(st.sampled_from(["<", ">=", "!=", "="]))
        preds.append(f"{var}.{draw(st.sampled_from('xy'))} {op} {draw(st.integers(0, 2))}")
    if n >= 2 and draw(st.booleans()):
        i, j = sorted(draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True)))
        op = draw(st.sampled_from(["<", "<=", ">", "!="]))
        preds.append(f"p{i}.{draw(st.sampled_from('xy'))} {op} p{j}.{draw(st.sampled_from('xy'))}")
    if negs and draw(st.booleans()):
        var = negs[0][0]
        other = draw(st.sampled_from([v for v, _ in pos]))
        preds.append(draw(st.sampled_from([f"{var}.x != 1", f"{var}.y > {other}.y", f"{var}.x = {other}.y"])))
    items = []
    for g in range(n + 1):
        items += [f"!({t} {v})" for v, t, gap in negs if gap == g]
        if g < n:
            items.append(f"{pos[g][1]} {pos[g][0]}")
    edge = any(gap in (0, n) for _, _, gap in negs)
    window = draw(st.sampled_from([w for w in WINDOWS if w] if rfid and edge else WINDOWS))
    text = f"{'EVENT' if rfid else 'PATTERN'} SEQ({', '.join(items)})"
    if preds:
        text += " WHERE " + " AND ".join(preds)
    if window:
        text += " " + window
    return {"text": text, "types": types}


@st.composite
def streams(draw, types=TYPES, max_size: int = 25) -> pd.DataFrame:
    """Up to max_size events, non-decreasing ts with ties, small integer attributes x and y (y sometimes
    missing), mostly of the query's types and sometimes of an unused type D."""
    size = draw(st.sampled_from(list(range(max_size + 1)) + list(range(max_size // 2, max_size + 1)) * 2))
    rows, ts = [], 0
    for i in range(size):
        ts += draw(st.sampled_from([0, 1, 1, 2]))
        kind = draw(st.sampled_from(types)) if draw(st.integers(0, 7)) else "D"
        y = draw(st.integers(0, 2)) if draw(st.integers(0, 11)) else None
        rows.append({"id": f"e{i + 1}", "ts": ts, "type": kind, "x": draw(st.integers(0, 2)), "y": y})
    return pd.DataFrame(rows, columns=["id", "ts", "type", "x", "y"])
