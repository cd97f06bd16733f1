"""Index-based replay returns exactly the matches of a full replay, on random data, random patterns,
random block sizes and random sets of secondary indexes (spec/004 §3.4, acceptance of issue 6)."""
from __future__ import annotations

import tempfile

import pandas as pd
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from cepkit.core.readers import from_pandas
from cepkit.reference.replay.plan import execute, plan
from cepkit.reference.replay.store import write_store
from cepkit.reference.sql.run import run_rows

VARS = ("A", "B", "C", "D")


@st.composite
def conditions(draw, linkable=True):
    attr = draw(st.sampled_from(["a", "b"]))
    k = draw(st.integers(0, 9))
    form = draw(st.sampled_from(["<", ">=", "=", "between", "between", "cross", "link", "none"]))
    if form == "link" and not linkable:
        form = "="
    if form == "link":  # an equality with another variable's column (propagated when that one is bounded)
        return f"{attr} = A.{attr} AND {attr} <= {k}"
    if form in ("<", ">="):
        k = draw(st.integers(2, 7))
    if form == "between":
        return f"{attr} BETWEEN {k} AND {min(9, k + draw(st.integers(1, 6)))}"
    if form == "cross":  # an indexable atom AND a conjunct the index must ignore
        return f"{attr} <= {k} AND b >= PREV(b)"
    if form == "none":
        return None
    return f"{attr} {form} {k}"


@st.composite
def queries(draw):
    items = draw(st.lists(st.sampled_from(["A", "B", "C", "D", "T*", "B+", "C?", "(A | B)", "(A C)+", "D{2}"]),
                          min_size=1, max_size=4))
    if all(i in ("T*", "C?") for i in items):
        items.append("A")
    strategy = draw(st.sampled_from(["CONTIGUOUS", "SKIP_TILL_NEXT_MATCH", "SKIP_TILL_ANY_MATCH"]))
    w = draw(st.integers(1, 8 if strategy != "SKIP_TILL_ANY_MATCH" else 4))
    exclusive = " EXCLUSIVE" if draw(st.integers(0, 3)) == 0 else ""
    defines = []
    used = [v for v in VARS if any(v in i for i in items)]
    for v in used:
        c = draw(conditions(linkable="A" in used))
        if c is not None:
            defines.append(f"{v} AS {c}")
    define = ("DEFINE " + ", ".join(defines)) if defines else ""
    text = (f"SELECT * FROM s MATCH_RECOGNIZE (ORDER BY ts MEASURES FIRST(ts) AS first_ts, COUNT(*) AS n, "
            f"PREV(FIRST(a), 1) AS before ALL MATCHES {strategy} PATTERN ({' '.join(items)}) WITHIN {w}{exclusive} {define})")
    return text, strategy


@st.composite
def streams(draw):
    n = draw(st.integers(0, 30) | st.integers(10, 30))
    gaps = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    ts, t = [], 0
    for g in gaps:
        t += g
        ts.append(t)
    a = draw(st.lists(st.integers(0, 9), min_size=n, max_size=n))
    b = draw(st.lists(st.one_of(st.integers(0, 9), st.none()), min_size=n, max_size=n))
    return pd.DataFrame({"ts": ts, "a": a, "b": pd.array(b, dtype="Int64")})


@settings(deadline=None, max_examples=max(40, settings().max_examples // 8),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(streams(), queries(), st.integers(1, 8), st.sets(st.sampled_from(["a", "b"]), min_size=1), st.data())
def test_index_based_replay_equals_full_replay(frame, query, block_size, indexed, data):
    text, strategy = query
    if strategy == "SKIP_TILL_ANY_MATCH":
        frame = frame.iloc[:14]
    batch = from_pandas(frame, type_col=None, default_type="e")
    with tempfile.TemporaryDirectory() as d:
        store = write_store(batch, d, block_size=block_size, blocks_per_file=3, secondary=sorted(indexed))
        full = run_rows(text, store.columns, store.read_all(), store.ts_unit)
        method = data.draw(st.sampled_from(["pareto", "greedy", "all", "subset"]))
        p = plan(text, store, "all")
        if method == "subset":
            chosen = data.draw(st.sets(st.sampled_from([c.var for c in p.candidates if c.var] or ["-"])))
            chosen.discard("-")
            p = plan(text, store, sorted(chosen)) if chosen else plan(text, store, "none")
        elif method != "all":
            p = plan(text, store, method)
        got = execute(p)
    event(f"mode={p.mode}, matches={'some' if full.rows else 'none'}, "
          f"blocks read={'all' if len(p.blocks) == len(store.blocks) else 'fewer'}")
    assert got.columns == full.columns
    assert got.rows == full.rows, (text, p.intervals, [c.label for c in p.chosen])
    assert got.matches == full.matches
