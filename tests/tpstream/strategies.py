"""Hypothesis strategies for TPStream: random event streams, conditions, duration constraints, patterns."""
from __future__ import annotations

import random

import pandas as pd
from hypothesis import strategies as st

from cepkit.core.readers import from_pandas
from cepkit.front.tpstream import allen

NAMES = ("A", "B", "C", "D")
GROUPS = (
    ("before", "meets"), ("starts", "equals", "started_by"), ("overlaps", "finished_by", "contains"),
    ("after", "met_by"), ("overlapped_by", "finishes", "during"),
)
SPELLINGS = {"met_by": ("met_by", "met-by", "metBy"), "finished_by": ("finished_by", "finished-by")}


@st.composite
def atoms(draw) -> str:
    attr = draw(st.sampled_from(("x", "y", "z")))
    c = draw(st.integers(1, 2))
    return draw(st.sampled_from((f"{attr} > {c}", f"{attr} <= {c}", f"NOT {attr} > {c}", f"{attr} = {c}",
                                 f"{attr} != {c}", f"{attr} + y >= {2 * c}", f"-{attr} < -{c}")))


@st.composite
def conditions(draw) -> str:
    parts = [draw(atoms())] + ([draw(atoms())] if draw(st.integers(0, 3)) == 0 else [])
    if len(parts) == 1:
        return parts[0]
    return f"({parts[0]}) {draw(st.sampled_from(('AND', 'OR')))} ({parts[1]})"


@st.composite
def bounds(draw) -> str:
    kind = draw(st.integers(0, 8))
    if kind <= 5:
        return ""
    a = draw(st.integers(1, 4))
    if kind == 3:
        return f" AT LEAST {a}"
    if kind == 4:
        return f" AT MOST {a}"
    return f" BETWEEN {a} AND {a + draw(st.integers(0, 3))}"


@st.composite
def relation_sets(draw) -> list[str]:
    kind = draw(st.integers(0, 3))
    if kind == 0:
        rels = list(draw(st.sampled_from(GROUPS)))
        if draw(st.booleans()):
            rels.append(draw(st.sampled_from(allen.RELATIONS)))
    elif kind == 1:  # all but a few: lets patterns of 3 or 4 situations match while excluding something
        drop = draw(st.sets(st.sampled_from(allen.RELATIONS), min_size=1, max_size=4))
        rels = [r for r in allen.RELATIONS if r not in drop]
    else:
        rels = draw(st.lists(st.sampled_from(allen.RELATIONS), min_size=1, max_size=8, unique=True))
    return [draw(st.sampled_from(SPELLINGS.get(r, (r,)))) for r in rels]


@st.composite
def patterns(draw, n: int) -> str:
    names = NAMES[:n]
    shape = draw(st.sampled_from(("chain", "star", "random")))
    if shape == "chain":
        edges = [(names[i], names[i + 1]) for i in range(n - 1)]
    elif shape == "star":
        edges = [(names[0], names[i]) for i in range(1, n)]
    else:
        pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
        edges = draw(st.lists(st.sampled_from(pairs), min_size=1, max_size=len(pairs), unique=True))
    used = {x for e in edges for x in e}
    for missing in (x for x in names if x not in used):  # keep every situation in the pattern
        edges.append((names[0] if missing != names[0] else names[1], missing))
    tcs = []
    for a, b in edges:
        if draw(st.booleans()):
            a, b = b, a
        tcs.append(f"{a} {';'.join(draw(relation_sets()))} {b}")
    return " AND ".join(tcs)


@st.composite
def queries(draw, partitioned: bool) -> str:
    n = draw(st.sampled_from((2, 2, 2, 3, 3, 4)))
    defs = ",\n  ".join(f"{NAMES[i]} AS {draw(conditions())}{draw(bounds())}" for i in range(n))
    part = " PARTITION BY p" if partitioned else ""
    window = draw(st.sampled_from((2, 5, 8, 12, 20, 30, 45, 60, 80)))
    ret = "RETURN count(A.x) AS n, avg(B.y) AS avg_y, first(A.ts) AS start, last(B.z) AS last_z"
    return f"FROM s{part}\nDEFINE {defs}\nPATTERN {draw(patterns(n))}\nWITHIN {window}\n{ret}"


@st.composite
def streams(draw, partitioned: bool, min_events: int = 0, max_events: int = 28):
    """Attribute values come in runs (one value held for 1-3 events of a partition), so situations form.

    The values come from a seeded generator: hypothesis' own draws repeat values too often to give
    conditions that switch on and off."""
    n = draw(st.integers(min_events, max_events))
    rnd = random.Random(draw(st.integers(0, 2**32 - 1)))
    rows = []
    for p in (0, 1) if partitioned else (0,):
        clock, held = 0, {a: (0, 0) for a in ("x", "y", "z")}
        for _ in range(n // 2 if partitioned and p == 0 else n - (n // 2 if partitioned else 0)):
            clock += rnd.randint(1, 3)
            for a, (v, left) in held.items():
                held[a] = (v, left - 1) if left > 0 else (rnd.randint(0, 3), rnd.randint(0, 1))
            rows.append({"ts": clock, "p": p, **{a: v for a, (v, _l) in held.items()}})
    rows.sort(key=lambda r: r["ts"])
    frame = pd.DataFrame(rows, columns=["ts", "p", "x", "y", "z"])
    return from_pandas(frame, default_type="E")


@st.composite
def planted(draw):
    """A query whose pattern is read off one configuration of situations the stream really has (mostly
    including the true relation of each pair, sometimes not), so patterns of 3-4 situations match."""
    from cepkit.reference.tpstream.bind import compile_stream
    from cepkit.front.tpstream.reads import value_reader
    from cepkit.reference.tpstream.brute import situations
    from cepkit.front.tpstream.parser import parse_definitions, parse_tpstream

    n = draw(st.sampled_from((3, 4)))
    batch = draw(streams(False, min_events=12))
    value = value_reader(batch)
    pos = list(range(len(batch)))
    ts = [int(t) for t in batch.ts]
    texts: list[str] = []
    found: list[list] = []
    for i in range(n):  # a few tries per situation for a condition that holds somewhere
        for _try in range(4):
            text = f"{NAMES[i]} AS {draw(conditions())}{draw(bounds())}"
            sits = situations(compile_stream(parse_definitions(text)[0], batch, value), pos, ts)
            if sits:
                break
        texts.append(text)
        found.append(sits)
    defs_text = ",\n  ".join(texts)
    names = NAMES[:n]
    pairs = [(a, b) for i, a in enumerate(range(n)) for b in range(i + 1, n)]
    edges = draw(st.lists(st.sampled_from(pairs), min_size=n - 1, max_size=len(pairs), unique=True))
    for k in range(n):
        if not any(k in e for e in edges):
            edges.append((0, k) if k else (0, 1))
    chosen = [draw(st.sampled_from(f)) if f else None for f in found]
    tcs = []
    for i, j in edges:
        rels = draw(relation_sets())
        if chosen[i] is not None and chosen[j] is not None:
            true = allen.classify(chosen[i][:2], chosen[j][:2])
            rels = [r for r in rels if allen.lookup(r) != true]
            if draw(st.integers(0, 7)) > 0:
                rels.append(true)
            if not rels:
                rels = [allen.INVERSE[true] if true != "equals" else "before"]
        tcs.append(f"{names[i]} {';'.join(rels)} {names[j]}")
    if all(c is not None for c in chosen):
        span = max(c[1] for c in chosen) - min(c[0] for c in chosen)
        window = max(1, span + draw(st.integers(-2, 12)))
    else:
        window = draw(st.integers(1, 60))
    text = (f"FROM s\nDEFINE {defs_text}\nPATTERN {' AND '.join(tcs)}\nWITHIN {window}\n"
            "RETURN count(A.x) AS n, avg(B.y) AS avg_y, max(C.z) AS max_z")
    return parse_tpstream(text), batch
