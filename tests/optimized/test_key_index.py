"""Runs indexed by partition key (optimized/nfab/runindex.py, issue 20): with `[g]` and many distinct keys (and
null keys), the optimized engine equals the reference under all four strategies, fed whole or in random
chunks, merged or not; the index changes no answer, no run count and no peak, only the predicate counter."""
from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

from cepkit import compile
from cepkit.optimized.nfab import layout as K
from cepkit.core.errors import EventError
from cepkit.core.readers import from_pandas
from tests.optimized.test_optimized_vs_reference import _optimized, feed_in_chunks, with_return
from tests.reference.sase_strategies import STRATEGIES, STREAM_TYPES, patterns
from tests.reference.test_nfab_vs_brute import with_strategy


def _scaled(divisor: int, floor: int = 20):
    return settings(max_examples=max(floor, settings().max_examples // divisor), deadline=None)


def keyed(text: str, second: bool) -> str:
    """The drawn query partitioned by g (and h): `[g]` first in WHERE."""
    key = "[g] and [h]" if second else "[g]"
    head, rest = text.split("{", 1)
    body, tail = rest.split("}", 1)
    body = " and ".join(x for x in (key, body.strip().removeprefix("[g] and ").removeprefix("[g]").strip()) if x)
    return f"{head}{{ {body} }}{tail}"


@st.composite
def keyed_streams(draw, types, max_size: int = 24) -> pd.DataFrame:
    """Events over many keys g (up to 16 values, and nulls), a second key h in 0..1, x in 0..3."""
    size = draw(st.integers(0, max_size))
    keys = draw(st.integers(1, 16))
    pool = list(types)
    rows, ts = [], 0
    for i in range(size):
        ts += draw(st.integers(0, 2))
        kind = draw(st.sampled_from(pool)) if draw(st.integers(0, 4)) else draw(st.sampled_from(STREAM_TYPES))
        g = None if draw(st.integers(0, 9)) == 0 else draw(st.integers(0, keys - 1))
        rows.append({"id": i + 1, "ts": ts, "type": kind, "x": draw(st.integers(0, 3)), "g": g,
                     "h": draw(st.integers(0, 1))})
    return pd.DataFrame(rows, columns=["id", "ts", "type", "x", "g", "h"])


@st.composite
def keyed_cases(draw, strategy: str | None = None, allow_negation: bool = True):
    pattern = draw(patterns(allow_negation))
    text = keyed(pattern["text"], draw(st.integers(0, 3)) == 0)
    if strategy is not None:
        text = with_strategy(text, strategy)
    return {**pattern, "text": text}, draw(keyed_streams(pattern["types"]))


@pytest.mark.parametrize("strategy", STRATEGIES)
@_scaled(4)
@given(data=st.data(), cuts=st.lists(st.integers(0, 24), max_size=5), merge=st.booleans())
def test_keyed_runs_equal_reference(strategy, data, cuts, merge):
    """Many keys, random chunks: the reference's matches in its order (RETURN payloads included); without
    merging, the same runs created as the reference and as the engine without the index, and the same
    live runs after every chunk and the same peak."""
    pattern, frame = data.draw(keyed_cases(strategy))
    text = with_return(pattern)
    note(text)
    note(frame.to_string())
    batch = from_pandas(frame)
    expected = compile(text).run(batch)
    program = _optimized(text, merge=merge)
    assert program.Q[K.Q_KEYED] == (strategy != "strict_contiguity")  # the index is on
    assert feed_in_chunks(program, batch, cuts) == expected
    if merge:
        return
    reference = compile(text)
    reference.run(batch)
    indexed, plain = _optimized(text, merge=False), _optimized(text, merge=False, index=False)
    bounds = sorted({0, len(batch), *(min(c, len(batch)) for c in cuts)})
    for lo, hi in zip(bounds, bounds[1:]):
        assert indexed.feed(batch.slice(lo, hi)) == plain.feed(batch.slice(lo, hi))
        assert _live(indexed) == _live(plain)
    assert indexed.budget.peak == plain.budget.peak
    assert indexed.counters.partial_matches == plain.counters.partial_matches == reference.counters.partial_matches
    assert indexed.counters.predicate_evaluations <= plain.counters.predicate_evaluations
    assert plain.counters == reference.counters


@_scaled(8)
@given(case=keyed_cases(allow_negation=False), cut=st.integers(0, 24))
def test_keyed_non_overlap_equals_reference(case, cut):
    """Non-overlap output ends the runs of a partition that matched: the index drops them by key."""
    pattern, frame = case
    note(pattern["text"])
    note(frame.to_string())
    program = _optimized(pattern["text"], "non_overlap")
    batch = from_pandas(frame)
    cut = min(cut, len(batch))
    got = program.feed(batch.slice(0, cut)) + program.feed(batch.slice(cut, len(batch))) + program.close()
    assert got == compile(pattern["text"], selection="non_overlap").run(batch)


def _live(program) -> dict:
    """The live state (not the capacities allocated for it)."""
    size = program.state_size()
    return {k: size[k] for k in ("runs", "held_matches", "buffer_nodes", "stored_events")}


def _stream(n: int, keys: int) -> pd.DataFrame:
    rows = [{"id": i, "ts": i, "type": "ABC"[(i * 7) % 3], "x": (i * 5) % 4, "g": (i * 13) % keys} for i in range(n)]
    return pd.DataFrame(rows)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_many_keys_over_chunks(strategy):
    """A few thousand events over 300 keys, in chunks of 97: runs of keys not seen for a while leave their
    window uncounted and are removed later (runindex.sweep); the answer, the live runs after each chunk and
    the peak equal the engine's without the index, and the matches the reference's."""
    text = (f"PATTERN SEQ(A a, B+ b[], C c) WHERE {strategy} {{ [g] and b[i].x >= a.x }} WITHIN 40 "
            "RETURN sum(b[].x) AS s")
    batch = from_pandas(_stream(3000, 300))
    indexed, plain = compile(text, engine="optimized", merge=False), compile(text, engine="optimized", merge=False,
                                                                              index=False)
    got = []
    for lo in range(0, len(batch), 97):
        part = batch.slice(lo, min(lo + 97, len(batch)))
        mine = indexed.feed(part)
        assert mine == plain.feed(part)
        assert _live(indexed) == _live(plain)
        got += mine
    got += indexed.close()
    plain.close()
    assert got == compile(text).run(batch)
    assert indexed.budget.peak == plain.budget.peak
    whole, whole_plain = compile(text, engine="optimized"), compile(text, engine="optimized", index=False)
    assert whole.run(batch) == whole_plain.run(batch) == got  # merged, in one kernel call
    assert whole.budget.peak == whole_plain.budget.peak


def test_overflow_on_another_key_is_not_evaluated():
    """docs/semantics.md RI3: a formula that leaves int64 on a run of another key is no longer evaluated
    (the old loop raised EventError there); the answer is the reference's."""
    text = "PATTERN SEQ(A a, B b) WHERE skip_till_any_match { a.x * b.x > 0 and [g] }"
    frame = pd.DataFrame({"id": [1, 2, 3], "ts": [0, 1, 2], "type": ["A", "B", "B"],
                          "x": [2**62, 2**62, 1], "g": [0, 1, 0]})
    batch = from_pandas(frame)
    expected = compile(text).run(batch)
    assert len(expected) == 1
    assert compile(text, engine="optimized").run(batch) == expected
    with pytest.raises(EventError, match="beyond 64-bit"):
        compile(text, engine="optimized", index=False).run(batch)
