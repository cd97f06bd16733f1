"""The optimized engine equals the reference on random SASE+ patterns and streams: the same matches in
the same order (bindings, timestamps, RETURN payloads), the same work counters, whole or fed in chunks."""
from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import assume, event, given, note, settings
from hypothesis import strategies as st

from cepkit import compile
from cepkit.core.errors import Unsupported
from cepkit.core.readers import from_pandas
from cepkit.front.language import parse
from tests.reference.sase_strategies import STRATEGIES, cases
from tests.reference.test_nfab_vs_brute import with_strategy

UNSUPPORTED: Counter = Counter()


def _scaled(divisor: int, floor: int = 30):
    return settings(max_examples=max(floor, settings().max_examples // divisor), deadline=None)


def _optimized(text: str, selection: str = "all", **options):
    """The optimized program, or a rejected example (counted) when the engine refuses the pattern."""
    try:
        return compile(text, engine="optimized", selection=selection, **options)
    except Unsupported as exc:
        UNSUPPORTED[exc.construct] += 1
        event(f"unsupported: {exc.construct}")
        assume(False)


def feed_in_chunks(program, batch, cuts) -> list:
    """The program's matches when the batch is fed cut at the given offsets, then closed."""
    bounds = sorted({0, len(batch), *(min(c, len(batch)) for c in cuts)})
    got = []
    for lo, hi in zip(bounds, bounds[1:]):
        got += program.feed(batch.slice(lo, hi))
    return got + program.close()


def with_return(pattern: dict) -> str:
    """The query with a RETURN clause reading the first variable and, for a closure, its aggregates."""
    comp = parse(pattern["text"]).pattern.positive[0]
    var = comp.var
    if comp.kleene:
        ret = f"RETURN {var}[1].x AS f, sum({var}[].x) AS s, avg({var}[].x) AS m, {var}.LEN AS n"
    else:
        ret = f"RETURN {var}.x * 2 - 1 AS f, {var}.x / 3 AS d"
    return pattern["text"] + "\n" + ret


@pytest.mark.parametrize("strategy", STRATEGIES)
@_scaled(4)
@given(data=st.data())
def test_optimized_equals_reference(strategy, data):
    pattern, frame = data.draw(cases())
    text = with_strategy(pattern["text"], strategy)
    note(text)
    note(frame.to_string())
    # merging and the key index save work: the counters are the reference's without them (test_key_index.py)
    program = _optimized(text, merge=False, index=False)
    reference = compile(text)
    batch = from_pandas(frame)
    assert program.run(batch) == reference.run(batch)
    assert program.counters == reference.counters


@_scaled(4)
@given(case=cases(), cuts=st.lists(st.integers(0, 9), max_size=4), share=st.booleans())
def test_chunked_feeding_equals_reference(case, cuts, share):
    """Streaming: feeding random chunk sizes gives the reference's matches, in the same order, with the
    shared match buffer on or off."""
    pattern, frame = case
    text = with_return(pattern)
    note(text)
    note(frame.to_string())
    program = _optimized(text, share_buffer=share)
    batch = from_pandas(frame)
    got = feed_in_chunks(program, batch, cuts)
    assert got == compile(text).run(batch)


@pytest.mark.parametrize("strategy", STRATEGIES)
@_scaled(4)
@given(data=st.data(), cuts=st.lists(st.integers(0, 12), max_size=4))
def test_merged_runs_equal_reference(strategy, data, cuts):
    """Merging equivalent runs (spec/000 §6) gives the reference's matches, in the same order, fed whole
    or in random chunks; patterns with negation run unmerged (`merge_refusal`)."""
    pattern, frame = data.draw(cases())
    text = with_return({**pattern, "text": with_strategy(pattern["text"], strategy)})
    note(text)
    note(frame.to_string())
    program = _optimized(text, merge=True)
    assert program.merging == (not program.nfa.negations)
    batch = from_pandas(frame)
    got = feed_in_chunks(program, batch, cuts)
    assert got == compile(text).run(batch)


@_scaled(4)
@given(case=cases(), cut=st.integers(0, 9))
def test_non_overlap_equals_reference(case, cut):
    pattern, frame = case
    if pattern["trailing_negation"]:
        return
    note(pattern["text"])
    note(frame.to_string())
    program = _optimized(pattern["text"], "non_overlap")
    batch = from_pandas(frame)
    cut = min(cut, len(batch))
    got = program.feed(batch.slice(0, cut)) + program.feed(batch.slice(cut, len(batch))) + program.close()
    assert got == compile(pattern["text"], selection="non_overlap").run(batch)


CORE = [
    "PATTERN SEQ(A a, B b) WHERE strict_contiguity { a.x > 1 }",
    "PATTERN SEQ(A+ a[], B b) WHERE partition_contiguity { [g] and a[i].x > a[i-1].x } WITHIN 5",
    "PATTERN SEQ(A+ a[], B b) WHERE skip_till_next_match { a[i].x >= avg(a[..i-1].x) and b.x < a[a.LEN].x }",
    "PATTERN SEQ(A a, B+ b[]) WHERE skip_till_any_match { sum(b[].x) % 2 = 1 and count(b[].x) <= 2 } WITHIN 4 EVENTS",
    "PATTERN SEQ(A a, !(C z), B b) WHERE skip_till_any_match { z.x = a.x } WITHIN 3",
    "PATTERN SEQ(!(C z), A a, B b) WITHIN 3",
    "PATTERN SEQ(A a, B b, !(C z)) WITHIN 3",
    "PATTERN SEQ(A+ a[], B b) WHERE skip_till_next_match { a[i].x <= max(a[..i-1].x) + 1 and b.x > min(a[].x) }"
    " RETURN avg(a[].x) AS m, a.LEN AS n",
]


@pytest.mark.parametrize("text", CORE)
def test_core_constructs_are_supported(text):
    """The constructs of the engine's scope compile (no Unsupported) and agree with the reference."""
    program = compile(text, engine="optimized")
    import pandas as pd

    rows = [{"id": i, "ts": i // 2, "type": "ABCB"[i % 4], "x": (i * 7) % 4, "g": i % 2} for i in range(40)]
    batch = from_pandas(pd.DataFrame(rows))
    assert program.run(batch) == compile(text).run(batch)


def test_no_drawn_pattern_was_refused():
    """Every pattern the strategies draw is in the engine's scope (tests above reject refused ones)."""
    assert not UNSUPPORTED, dict(UNSUPPORTED)


def test_duplicate_run_checked_once():
    """Shrunk from test_optimized_equals_reference: the third event creates the run a=(0) b=(2) twice
    (from the a-loop's Step 6 proceed and from the waiting b run); each engine checks its match once."""
    import pandas as pd

    text = "PATTERN SEQ(!(A z), A+ a[], A+ b[]) WHERE skip_till_any_match {[g] and b[b.LEN].x > 0}"
    batch = from_pandas(pd.DataFrame({"type": ["A"] * 3, "ts": [0, 1, 2], "g": [0] * 3, "x": [0] * 3}))
    program, reference = _optimized(text, merge=False), compile(text)
    assert program.run(batch) == reference.run(batch) == []
    assert program.counters == reference.counters
    assert reference.counters.predicate_evaluations == 19
