"""The windowed-operator vectors (conformance/cases/windows/*.yaml) as harness Cases (conformance/harness.py):
each vector becomes a window query text (front/windows/query.py) over its events, run on every engine
registered for "window"; AGGREGATE vectors run with both aggregation methods (tree and naive; the gpu
engine computes its own way either time). The check is that of the per-language test before: the output
rows, as the reference outputs them (the match table's payload), equal the expected list in order,
exact values compared exactly ("p/q" in the YAML is a Fraction)."""
from __future__ import annotations

from fractions import Fraction

import pandas as pd

from cepkit.conformance.sql_loader import WindowCase, load_window_cases
from cepkit.conformance.harness import Case


def window_text(w: dict) -> str:
    out = f"{w['kind'].upper()} {w['size']} SLIDE {w['slide']}"
    if w.get("align", "first") != "first":
        out += f" ALIGN {w['align'].upper()}"
    return out


def query_text(c: WindowCase) -> str:
    """The window query a vector describes."""
    if c.operator == "filter":
        return f"FILTER WHERE {c.where}"
    if c.operator == "aggregate":
        funcs = ", ".join(f"{f}({c.attr})" for f in c.funcs)
        return f"AGGREGATE {funcs}\nOVER {window_text(c.window)}" + (" SKIP EMPTY" if c.skip_empty else "")
    text = f"JOIN ON {c.condition}\nWINDOW {window_text(c.window)}"
    if c.right_window is not None:
        text += f"\nRIGHT WINDOW {window_text(c.right_window)}"
    return text + f"\nACTIVE {c.active.upper()}"


def _value(v):
    if isinstance(v, str) and "/" in v:
        return Fraction(v)
    return v


def _check(c: WindowCase):
    want = [{k: _value(v) for k, v in r.items()} for r in c.expected]

    def check(table) -> None:
        got = [dict(m.payload) for m in table]
        assert got == want, f"{c.id}: rows\n got  {got}\n want {want}"
        for m, row in zip(table, got):
            assert m.ts == row["ts"], f"{c.id}: ts {m.ts} of the row {row}"
            if c.operator == "filter":
                assert m.binding_dict == {"e": (row["id"],)}, m
            elif c.operator == "join":
                assert m.binding_dict == {"left": (row["left_id"],), "right": (row["right_id"],)}, m
    return check


def cases() -> list:

    read = {"type_col": None, "default_type": "event"}
    out = []
    for c in load_window_cases():
        events = pd.DataFrame(c.events)
        records = c.events
        if c.operator == "join":
            events = (events, pd.DataFrame(c.right_events))
            records = (c.events, c.right_events)
        about = {"records": records, "record_options": read, "source": c.source.strip(), "title": c.title.strip(),
                 "path": c.path, "origin": c.origin}
        first = c.id
        if c.operator == "aggregate":   # the naive method is a variant of the tree one; an outside engine gets neither
            first = f"{c.id}-tree"
            for method in ("tree", "naive"):
                out.append(Case(f"{c.id}-{method}", "window", query_text(c), events, _check(c),
                                options={"method": method}, read_options=read, portable_options={},
                                variant_of=None if method == "tree" else first, **about))
        else:
            out.append(Case(c.id, "window", query_text(c), events, _check(c), read_options=read, **about))
        if c.operator != "join":   # the same in pieces of two events (FILTER emits per piece)
            out.append(Case(f"{c.id}-chunked", "window", query_text(c), events, _check(c), read_options=read,
                            chunk=2, variant_of=first, **about))
    return out
