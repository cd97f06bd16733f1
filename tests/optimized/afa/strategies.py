"""Random AFA files (text, so the optimized engine can generate code from them) shaped like
tests/afa/strategies.py's random AFAs, and their disordered streams as input rows."""
from __future__ import annotations

from hypothesis import strategies as st

from cepkit.front.afa.stream import Insert, Punctuate, Retract
from tests.afa.strategies import TYPES, disordered_streams

_COND = st.one_of(st.none(), st.tuples(st.sampled_from("<>="), st.integers(0, 3)))
TRANSFERS = {"+v": "r.n + e.v", "+1": "r.n + 1", "-1": "r.n - 1", "set v": "e.v"}


def _fence(etype, cond) -> str | None:
    parts = [f"e.type = '{etype}'"] if etype is not None else []
    if cond is not None:
        parts.append(f"r.n {cond[0]} {cond[1]}")
    return " and ".join(parts) or None


def _arc(name, src, dst, fence, transfer, epsilon=False) -> str:
    items = [f"name: {name}", f"from: q{src}", f"to: q{dst}"]
    if epsilon:
        items.append("epsilon: true")
    if fence is not None:
        items.append(f'fence: "{fence}"')
    if transfer is not None:
        items.append(f'transfer: {{n: "{TRANSFERS[transfer]}"}}')
    return "  - {" + ", ".join(items) + "}"


@st.composite
def afa_texts(draw, ignorable: bool = False, standby: bool = False) -> str:
    """A random AFA file; with `ignorable`, one or two ignorable self-loops (identity transfer), sometimes
    with a parallel copy (as tests/afa/strategies.ignorable_afas); with `standby`, one to three standby
    event arcs (named s0, s1, ...; some to a new final state qn)."""
    n = draw(st.integers(2, 4))
    arcs = []
    if ignorable:
        for i in range(draw(st.integers(1, 2))):
            q = draw(st.integers(0, n - 1))
            fence = _fence(draw(st.one_of(st.none(), st.sampled_from(TYPES))), draw(_COND))
            arcs.append(_arc(f"i{i}", q, q, fence, None))
            if draw(st.integers(0, 3)) == 0:
                arcs.append(_arc(f"i{i}twin", q, q, fence, None))
    for i in range(draw(st.integers(1, 6))):
        if draw(st.integers(0, 5)) == 0:
            src = draw(st.integers(0, n - 2))
            dst = draw(st.integers(src + 1, n - 1))   # forward only: no epsilon-cycle
            cond = draw(_COND)
            arcs.append(_arc(f"a{i}", src, dst, _fence(None, cond), draw(st.sampled_from([None, "+1"])), True))
        else:
            src, dst = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
            etype = draw(st.one_of(st.none(), st.sampled_from(TYPES)))
            arcs.append(_arc(f"a{i}", src, dst, _fence(etype, draw(_COND)),
                             draw(st.sampled_from([None, "+v", "+1", "-1", "set v"]))))
    finals = sorted(draw(st.sets(st.integers(1, n - 1), min_size=1)))
    spare = []
    for i in range(draw(st.integers(1, 3)) if standby else 0):
        src = draw(st.integers(0, n - 1))
        new = draw(st.integers(0, 3)) == 0
        dst = "n" if new else draw(st.integers(0, n - 1))
        etype = draw(st.one_of(st.none(), st.sampled_from(TYPES)))
        arc = _arc(f"s{i}", src, dst, _fence(etype, draw(_COND)), draw(st.sampled_from([None, "+v", "+1"])))
        spare.append(arc[:-1] + ", final: true}" if new else arc)
    return "\n".join([
        "register: {n: 0}",
        f"states: [{', '.join(f'q{q}' for q in range(n))}]",
        "start: q0",
        f"final: [{', '.join(f'q{q}' for q in finals)}]",
        "arcs:", *arcs] + (["standby_arcs:", *spare] if spare else [])) + "\n"


@st.composite
def dynamic_rows(draw, text: str, max_events: int = 8, explicit: bool = True) -> list[dict]:
    """A disordered stream with arc rows: default mode (insert a standby or deleted arc, delete an arc) and,
    with `explicit`, explicit lifetimes (an insertion with `le` / `re`, arc_retract) and arc punctuations."""
    import re

    rows = draw(disordered_rows(max_events))
    names = re.findall(r"name: (\w+)", text)
    for _ in range(draw(st.integers(1, 4))):
        pos = draw(st.integers(0, len(rows)))
        kind = draw(st.sampled_from(["arc_insert", "arc_delete"] + (["arc_retract", "arc_punctuate"] if explicit
                                                                     else [])))
        row = {"kind": kind, "arc": draw(st.sampled_from(names))}
        if kind == "arc_insert" and explicit and draw(st.booleans()):   # an explicit lifetime [le, re)
            row["le"] = draw(st.integers(-1, 21))
            if draw(st.booleans()):
                row["re"] = draw(st.integers(row["le"] + 1, 25))
        if kind == "arc_punctuate":
            row = {"kind": kind, "le": draw(st.integers(0, 20))}
        rows.insert(pos, row)
    return rows


def rows_of(elements) -> list[dict]:
    out = []
    for x in elements:
        if isinstance(x, Punctuate):
            out.append({"kind": "punctuate", "le": x.t})
        else:
            e = x.event
            out.append({"kind": "insert" if isinstance(x, Insert) else "retract", "le": e.le, "re": e.re,
                        **dict(e.payload)})
    return out


@st.composite
def disordered_rows(draw, max_events: int = 8) -> list[dict]:
    return rows_of(draw(disordered_streams(max_events)))


__all__ = ["afa_texts", "disordered_rows", "rows_of", "Retract"]
