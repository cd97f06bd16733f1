"""Hypothesis strategies: random SASE+ patterns (as query text) and random small streams."""
from __future__ import annotations

import pandas as pd
from hypothesis import strategies as st

TYPES = ("A", "B", "C")
STREAM_TYPES = ("A", "B", "C", "D")
STRATEGIES = ("strict_contiguity", "partition_contiguity", "skip_till_next_match", "skip_till_any_match")


@st.composite
def patterns(draw, allow_negation: bool = True) -> dict:
    """A random query over attributes x (small ints) and g (the partition attribute)."""
    n = draw(st.integers(1, 3))
    comps = []
    for j in range(n):
        comps.append({"var": "abc"[j], "type": draw(st.sampled_from(TYPES)), "kleene": draw(st.booleans())})
    neg = None
    if allow_negation and draw(st.booleans()):
        neg = {"var": "z", "type": draw(st.sampled_from(TYPES)), "gap": draw(st.integers(0, n))}
    preds = []

    def ref(c, which):
        if not c["kleene"]:
            return f"{c['var']}.x"
        return {"first": f"{c['var']}[1].x", "last": f"{c['var']}[{c['var']}.LEN].x"}[which]

    for j, c in enumerate(comps):
        v = c["var"]
        k = draw(st.integers(0, 3))
        options = [f"{ref(c, 'first')} >= {k}", f"{ref(c, 'first')} != {k}"]
        if c["kleene"]:
            options += [f"{v}[i].x > {v}[i-1].x", f"{v}[i].x >= avg({v}[..i-1].x)",
                        f"{v}[i].x <= max({v}[..i-1].x) + 1", f"{v}[a.LEN].x > {k}".replace("a.LEN", f"{v}.LEN"),
                        f"count({v}[].x) <= 2", f"sum({v}[].x) % 2 = {k % 2}", f"{v}[i].x != {k}"]
        if j > 0:
            p = comps[j - 1]
            options += [f"{ref(c, 'first')} > {ref(p, 'last')}", f"{ref(c, 'first')} = {ref(p, 'first')}",
                        f"({ref(c, 'first')} < 2 or {ref(p, 'last')} > 1)"]
        preds += draw(st.lists(st.sampled_from(options), max_size=draw(st.integers(0, 2)), unique=True))
    if neg is not None and draw(st.booleans()):
        anchor = comps[min(neg["gap"], n - 1)]
        preds.append(f"z.x = {ref(anchor, 'first')}")
    if draw(st.integers(0, 2)) == 0:
        preds.insert(0, "[g]")
    items = []
    for j, c in enumerate(comps):
        if neg is not None and neg["gap"] == j:
            items.append(f"!({neg['type']} z)")
        items.append(f"{c['type']}+ {c['var']}[]" if c["kleene"] else f"{c['type']} {c['var']}")
    if neg is not None and neg["gap"] == n:
        items.append(f"!({neg['type']} z)")
    strategy = draw(st.sampled_from(STRATEGIES))
    window = draw(st.sampled_from(["", "WITHIN 2", "WITHIN 3", "WITHIN 5", "WITHIN 4 EVENTS"]))
    text = (f"PATTERN SEQ({', '.join(items)})\nWHERE {strategy} {{ {' and '.join(preds)} }}\n{window}").strip()
    types = sorted({c["type"] for c in comps} | ({neg["type"]} if neg else set()))
    return {"text": text, "trailing_negation": neg is not None and neg["gap"] == n, "types": types}


@st.composite
def streams(draw, types=None, max_size: int = 9) -> pd.DataFrame:
    """Events with non-decreasing integer timestamps (equal ones included); mostly of the given types
    (those of the pattern), sometimes of any type A-D."""
    size = draw(st.one_of(st.integers(0, max_size), st.integers(max(0, max_size - 4), max_size)))
    pool = list(types or STREAM_TYPES)
    rows, ts = [], 0
    for i in range(size):
        ts += draw(st.integers(0, 2))
        kind = draw(st.sampled_from(pool)) if draw(st.integers(0, 4)) else draw(st.sampled_from(STREAM_TYPES))
        rows.append({"id": f"x{i + 1}", "ts": ts, "type": kind,
                     "x": draw(st.integers(0, 3)), "g": draw(st.integers(0, 1))})
    return pd.DataFrame(rows, columns=["id", "ts", "type", "x", "g"])


@st.composite
def cases(draw, allow_negation: bool = True):
    """A pattern and a stream biased towards the pattern's event types."""
    pattern = draw(patterns(allow_negation))
    return pattern, draw(streams(pattern["types"]))
