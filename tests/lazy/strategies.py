"""Hypothesis strategies: random patterns over SEQ / AND / OR nesting, Kleene, negation, ANY and windows."""
from __future__ import annotations

import pandas as pd
from hypothesis import strategies as st

TYPES = ("A", "B", "C")
STREAM_TYPES = ("A", "B", "C", "D")
WINDOWS = ("", "WITHIN 2", "WITHIN 3", "WITHIN 5", "WITHIN 4 EVENTS")


@st.composite
def pattern_trees(draw, allow_kleene: bool = True, allow_or: bool = True, dialect: str = "sase+") -> dict:
    """A random query text with the facts the tests need about it."""
    counter = iter(range(100))
    leaves: list[dict] = []

    def leaf(negated_ok: bool) -> str:
        var = f"v{next(counter)}"
        kinds = ["plain", "plain", "any"] + (["kleene"] if allow_kleene and dialect == "sase+" else [])
        kinds += ["negated"] if negated_ok else []
        kind = draw(st.sampled_from(kinds))
        if kind == "any":
            types = draw(st.lists(st.sampled_from(TYPES), min_size=2, max_size=2, unique=True))
            text = f"ANY({', '.join(types)}) {var}"
        else:
            types = [draw(st.sampled_from(TYPES))]
            text = {"plain": f"{types[0]} {var}", "kleene": f"{types[0]}+ {var}[]",
                    "negated": f"!({types[0]} {var})"}[kind]
        leaves.append({"var": var, "kind": kind, "types": types})
        return text

    def node(depth: int) -> str:
        ops = ["SEQ"] if dialect == "rfid" else ["SEQ", "AND"] + (["OR"] if allow_or else [])
        if depth == 0 or draw(st.integers(0, 2)) == 0:
            return leaf(negated_ok=False)
        op = draw(st.sampled_from(ops))
        k = draw(st.integers(2, 3))
        items = []
        for j in range(k):
            if op != "OR" and draw(st.integers(0, 3)) == 0:
                items.append(leaf(negated_ok=True))
            else:
                items.append(node(depth - 1) if dialect == "sase+" else leaf(negated_ok=dialect == "rfid"))
        return f"{op}({', '.join(items)})"

    if dialect == "rfid":
        n = draw(st.integers(1, 4))
        items = [leaf(negated_ok=True) for _ in range(n)]
        if all(l["kind"] == "negated" for l in leaves):
            items.append(leaf(negated_ok=False))
        body = f"SEQ({', '.join(items)})"
    else:
        body = node(2)
        if not body.startswith(("SEQ", "AND", "OR")):
            body = f"SEQ({body})"
    positives = [l for l in leaves if l["kind"] != "negated"]
    negs = [l for l in leaves if l["kind"] == "negated"]
    preds = []

    def ref(l, which="first"):
        if l["kind"] != "kleene":
            return f"{l['var']}.x"
        return f"{l['var']}[1].x" if which == "first" else f"{l['var']}[{l['var']}.LEN].x"

    for l in positives:
        k = draw(st.integers(0, 2))
        opts = [f"{ref(l)} >= {k}", f"{ref(l)} != {k}"]
        if l["kind"] == "kleene":
            opts += [f"{l['var']}[i].x >= {l['var']}[i-1].x", f"sum({l['var']}[].x) <= 3", f"count({l['var']}[].x) <= 2"]
        preds += draw(st.lists(st.sampled_from(opts), max_size=1))
    if len(positives) >= 2 and draw(st.booleans()):
        a, b = draw(st.permutations(positives))[:2]
        preds.append(draw(st.sampled_from([f"{ref(a, 'last')} < {ref(b)}", f"{ref(a)} = {ref(b)}",
                                           f"({ref(a)} < 2 or {ref(b, 'last')} > 0)"])))
    for n in negs:
        if positives and draw(st.booleans()):
            p = draw(st.sampled_from(positives))
            preds.append(f"{n['var']}.x = {ref(p)}")
    if draw(st.integers(0, 3)) == 0:
        preds.insert(0, "[g]")
    window = draw(st.sampled_from(WINDOWS))
    head = "EVENT" if dialect == "rfid" else "PATTERN"
    where = f"WHERE {' and '.join(preds)}" if preds else ""
    text = f"{head} {body}\n{where}\n{window}".strip()
    kleene = any(l["kind"] == "kleene" for l in leaves)
    return {"text": text, "kleene": kleene, "negation": bool(negs), "or": "OR(" in body}


@st.composite
def streams(draw, max_events: int = 11) -> pd.DataFrame:
    """A small stream: types A-D, attributes x (0..2, sometimes missing) and g (0..1), ts with ties."""
    n = draw(st.integers(0, max_events))
    rows, ts = [], 0
    for i in range(n):
        ts += draw(st.integers(0, 2))
        x = draw(st.one_of(st.integers(0, 2), st.just(None))) if draw(st.integers(0, 5)) == 0 else draw(st.integers(0, 2))
        rows.append({"id": f"e{i}", "type": draw(st.sampled_from(STREAM_TYPES)), "ts": ts,
                     "x": x, "g": draw(st.integers(0, 1))})
    frame = pd.DataFrame(rows, columns=["id", "type", "ts", "x", "g"])
    return frame.astype({"x": "Int64"}) if n else frame
