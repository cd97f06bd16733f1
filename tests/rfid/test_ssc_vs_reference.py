"""The SSC engine (spec/002's optimized plan) equals the project's reference engine (NFA^b, spec/000) on
random flat SEQ queries under skip-till-any-match (SASE+ dialect, no ANY), and every plan of the SSC
engine (PAIS on/off, Dynamic Filtering / Multi-PAIS / σ, predicates and windows pushed or not) gives the
same matches."""
from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

from cepkit import compile
from cepkit.core.readers import from_pandas
from cepkit.reference.rfid import SSCEngine
from tests.rfid.strategies import queries, streams

# scaled from the active profile (tests/conftest.py): ~1000 examples in CI take a few seconds
EXAMPLES = max(10, min(settings().max_examples, 2000))

PLANS = [
    {},
    {"pais": False},
    {"equivalence": "sigma"},
    {"equivalence": "multi_pais"},
    {"pais": False, "equivalence": "sigma"},
    {"push_predicates": False},
    {"push_window": False},
    {"pais": False, "equivalence": "sigma", "push_predicates": False, "push_window": False},
]


def _result(program, batch) -> Counter:
    return Counter((m.key(), m.ts, m.payload) for m in program.run(batch))


def _ssc_and_reference(data, query) -> Counter:
    """SSC's matches on a drawn stream, asserted equal to the reference's."""
    frame = data.draw(streams(query["types"]))
    note(query["text"])
    note(frame.to_string())
    batch = from_pandas(frame)
    got = _result(SSCEngine().compile(query["text"]), batch)
    assert got == _result(compile(query["text"], engine="reference"), batch)
    return got


@settings(deadline=None, max_examples=EXAMPLES)
@given(data=st.data())
def test_ssc_equals_reference(data):
    got = _ssc_and_reference(data, data.draw(queries()))
    assert all(n == 1 for n in got.values()), "one match per distinct tuple of positive events"


@pytest.mark.parametrize("rfid", [False, True], ids=["sase+", "rfid"])
@settings(deadline=None, max_examples=max(10, EXAMPLES // 4))
@given(data=st.data())
def test_every_plan_gives_the_same_matches(rfid, data):
    query = data.draw(queries(rfid=rfid))
    frame = data.draw(streams(query["types"]))
    note(query["text"])
    note(frame.to_string())
    batch = from_pandas(frame)
    base = SSCEngine().compile(query["text"])
    expected = _result(base, batch)
    for plan in PLANS[1:]:
        program = SSCEngine().compile(query["text"], **plan)
        assert _result(program, batch) == expected, plan
        # pushing work down never constructs more sequences than the basic plan
        if plan == PLANS[-1]:
            assert base.sequences_constructed <= program.sequences_constructed


@settings(deadline=None, max_examples=max(10, EXAMPLES // 4))
@given(data=st.data())
def test_feeding_in_pieces_equals_one_batch(data):
    query = data.draw(queries())
    frame = data.draw(streams(query["types"]))
    batch = from_pandas(frame)
    whole = _result(SSCEngine().compile(query["text"]), batch)
    program = SSCEngine().compile(query["text"])
    cut = data.draw(st.integers(0, len(batch)))
    pieces = program.feed(batch.slice(0, cut)) + program.feed(batch.slice(cut, len(batch))) + program.close()
    assert Counter((m.key(), m.ts, m.payload) for m in pieces) == whole


@settings(deadline=None, max_examples=max(10, EXAMPLES // 2))
@given(data=st.data())
def test_ssc_equals_reference_rfid_dialect(data):
    """The EVENT form: ANY(...) components, the missing-attribute rule (y is sometimes missing), the A4(a)
    negated-end rule."""
    _ssc_and_reference(data, data.draw(queries(rfid=True)))
