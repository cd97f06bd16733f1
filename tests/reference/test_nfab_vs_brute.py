"""The NFA^b run engine equals the brute-force definition (spec/000 §3.2) on random patterns and streams."""
from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, note
from hypothesis import strategies as st

from cepkit import compile
from cepkit.core.readers import from_pandas
from tests.reference.sase_strategies import STRATEGIES, cases


def _keys(engine: str, text: str, frame, selection: str = "all") -> Counter:
    program = compile(text, engine=engine, selection=selection)
    return Counter(m.key() for m in program.run(from_pandas(frame)))


def with_strategy(text: str, strategy: str) -> str:
    """The generated query with its strategy replaced."""
    drawn = text.split("WHERE ")[1].split(" ")[0]
    return text.replace(f"WHERE {drawn}", f"WHERE {strategy}")


@pytest.mark.parametrize("strategy", STRATEGIES)
@given(data=st.data())
def test_nfab_equals_brute_force(strategy, data):
    pattern, frame = data.draw(cases())
    text = with_strategy(pattern["text"], strategy)
    note(text)
    note(frame.to_string())
    nfa = _keys("reference", text, frame)
    brute = _keys("brute", text, frame)
    assert nfa == brute
    assert all(count == 1 for count in nfa.values()), "the reference must not emit a match twice"


@given(case=cases())
def test_non_overlap_equals_brute_force(case):
    pattern, frame = case
    if pattern["trailing_negation"]:
        return
    note(pattern["text"])
    note(frame.to_string())
    assert _keys("reference", pattern["text"], frame, "non_overlap") == \
        _keys("brute", pattern["text"], frame, "non_overlap")


@given(case=cases())
def test_feeding_in_pieces_equals_one_batch(case):
    """Streaming: the matches of feed(b1), feed(b2), close() equal those of one run over b1+b2."""
    pattern, frame = case
    batch = from_pandas(frame)
    whole = compile(pattern["text"]).run(batch)
    program = compile(pattern["text"])
    cut = len(batch) // 2
    pieces = program.feed(batch.slice(0, cut)) + program.feed(batch.slice(cut, len(batch))) + program.close()
    assert Counter(m.key() for m in pieces) == Counter(m.key() for m in whole)
