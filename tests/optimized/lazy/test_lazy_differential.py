"""The optimized lazy chain (given or estimated order), tree and eager engines against the reference
(reference-lazy, reference-tree, reference-eager) on random patterns and random type frequencies, fed in
random chunks: the same matches in the same order, and the same work counters for the same order.

Budget: about 1 s of Numba work per example once the kernels are cached; max_examples is set here, not
by the profile (CI's allows 1000)."""
from __future__ import annotations

import os

import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, event, given, note, settings
from hypothesis import strategies as st

from cepkit import compile
from cepkit.core.errors import QueryError, Unsupported
from cepkit.front.language import parse
from cepkit.front.pattern.model import compile_pattern
from cepkit.core.readers import from_pandas
from tests.lazy.strategies import STREAM_TYPES, pattern_trees

PAIRS = (("optimized-eager", "reference-eager"), ("optimized-tree", "reference-tree"))


@st.composite
def skewed_streams(draw, max_events: int = 14) -> pd.DataFrame:
    """A stream whose types follow random frequencies (weights 1..1000), with x in 0..2 and g in 0..1."""
    weights = [draw(st.sampled_from((1, 10, 100, 1000))) for _ in STREAM_TYPES]
    n = draw(st.integers(0, max_events))
    rows, ts = [], 0
    total = sum(weights)
    for i in range(n):
        ts += draw(st.integers(0, 2))
        u = draw(st.integers(0, total - 1))
        k = 0
        while u >= weights[k]:
            u -= weights[k]
            k += 1
        rows.append({"id": f"e{i}", "type": STREAM_TYPES[k], "ts": ts, "x": draw(st.integers(0, 2)),
                     "g": draw(st.integers(0, 1))})
    return pd.DataFrame(rows, columns=["id", "type", "ts", "x", "g"])


def _run(text: str, frame: pd.DataFrame, engine: str, chunks: list[int], **options):
    """(match rows in output order, counters, chain orders) with the stream fed in chunks."""
    program = compile(text, engine=engine, **options)
    batch = from_pandas(frame)
    rows, i, k = [], 0, 0
    while i < len(batch):
        size = chunks[k % len(chunks)]
        rows += [(m.key(), m.ts) for m in program.feed(batch.slice(i, min(len(batch), i + size)))]
        i += size
        k += 1
    rows += [(m.key(), m.ts) for m in program.close()]
    return rows, program.counters, getattr(program, "orders", None)


def _model(text: str):
    try:
        return compile_pattern(parse(text))
    except QueryError:
        return None


@settings(max_examples=int(os.environ.get("LAZY_EXAMPLES", 30)), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(pattern=pattern_trees(allow_kleene=False), frame=skewed_streams(), data=st.data())
def test_optimized_engines_equal_the_reference(pattern, frame, data):
    text = pattern["text"]
    model = _model(text)
    assume(model is not None)
    note(text)
    note(frame.to_string())
    chunks = data.draw(st.lists(st.integers(1, 6), min_size=1, max_size=3), label="chunk sizes")
    order = list(data.draw(st.permutations(model.variables), label="order"))
    ran = 0
    for fast, ref, options in (("optimized-lazy", "reference-lazy", {"order": order}),
                               ("optimized-lazy", "reference-lazy", {"estimate_prefix": data.draw(st.integers(1, 8)),
                                                                     "negation": "first-chance"}),
                               *((f, r, {}) for f, r in PAIRS)):
        try:
            got = _run(text, frame, fast, chunks, **options)
        except Unsupported:
            continue
        except QueryError as exc:  # first-chance negation of a trailing negation: the reference's error
            with pytest.raises(QueryError) as want_exc:
                _run(text, frame, ref, chunks, **options)
            assert str(want_exc.value) == str(exc)
            continue
        want = _run(text, frame, ref, chunks, **options)
        assert got[0] == want[0], (fast, options)
        assert got[2] == want[2], (fast, options)
        assert got[1] == want[1], (fast, options)
        ran += 1
    assume(ran)
    event(f"ran {ran} engines" + (", negation" if model.branches[0].negations or any(b.negations for b in model.branches) else "")
          + (", OR" if len(model.branches) > 1 else ""))


@settings(max_examples=int(os.environ.get("LAZY_EXAMPLES", 20)), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(frame=skewed_streams(max_events=20), data=st.data())
def test_lazy_and_eager_give_the_same_matches(frame, data):
    """Eager and lazy (random order, both negation strategies) agree on fixed SEQ / AND / OR / negation
    shapes, and with the reference."""
    text = data.draw(st.sampled_from((
        "PATTERN SEQ(A a, B b, C c) WHERE a.x = c.x WITHIN 6",
        "PATTERN AND(A a, SEQ(B b, C c), D d) WHERE [g] WITHIN 5",
        "PATTERN OR(SEQ(A a, C c), SEQ(C c, D d)) WITHIN 4 EVENTS",
        "PATTERN SEQ(A a, AND(B b, C c), D d) WHERE b.x >= a.x",
        "PATTERN SEQ(A a, !(B b), C c, D d) WHERE b.x = c.x WITHIN 6",
        "PATTERN SEQ(!(D d), A a, B b) WHERE d.x = a.x WITHIN 5",
        "PATTERN AND(A a, !(B b), C c) WITHIN 4",
    )))
    order = list(data.draw(st.permutations(_model(text).variables)))
    chunks = data.draw(st.lists(st.integers(1, 7), min_size=1, max_size=3))
    eager = _run(text, frame, "optimized-eager", chunks)[0]
    assert eager == _run(text, frame, "reference-eager", chunks)[0]
    assert _run(text, frame, "optimized-lazy", chunks, order=order)[0] == eager
    if "AND(A a, !(B b)" not in text:  # first-chance negation needs a positive after the negated one
        assert _run(text, frame, "optimized-lazy", chunks, order=order, negation="first-chance")[0] == eager
    assert _run(text, frame, "optimized-tree", chunks)[0] == eager


@settings(max_examples=int(os.environ.get("LAZY_EXAMPLES", 6)), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_long_streams_equal_the_reference(data):
    """Streams of a few hundred events, fed in chunks of up to 90: buffers evicted, moved and grown, the store
    trimmed between feeds, held matches and OR duplicates carried across them."""
    import numpy as np

    text = data.draw(st.sampled_from((
        "PATTERN SEQ(A a, B b, C c) WHERE a.x < b.x WITHIN 12",
        "PATTERN OR(SEQ(A a, !(B b), C c), SEQ(C d, A e), SEQ(A a, C c)) WHERE a.g = c.g AND d.x <= e.x WITHIN 9",
        "PATTERN AND(A a, SEQ(B b, !(D d))) WHERE a.x = b.x WITHIN 15 EVENTS",
    )))
    seed = data.draw(st.integers(0, 2**16))
    weights = np.array(data.draw(st.lists(st.sampled_from((1, 10, 100)), min_size=4, max_size=4)), float)
    rng = np.random.default_rng(seed)
    n = data.draw(st.integers(100, 400))
    frame = pd.DataFrame({"id": np.arange(n), "type": rng.choice(list(STREAM_TYPES), size=n, p=weights / weights.sum()),
                          "ts": np.cumsum(rng.integers(0, 3, size=n)), "x": rng.integers(0, 3, size=n),
                          "g": rng.integers(0, 2, size=n)})
    chunks = data.draw(st.lists(st.integers(1, 90), min_size=1, max_size=3))
    for fast, ref in (("optimized-lazy", "reference-lazy"), *PAIRS):
        assert _run(text, frame, fast, chunks) == _run(text, frame, ref, chunks), fast


def _kleene_model(text: str):
    model = _model(text)
    if model is None or not any(v.kleene for b in model.branches for v in b.positives):
        return None
    return model


@settings(max_examples=int(os.environ.get("LAZY_KLEENE_EXAMPLES", 12)), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(pattern=pattern_trees(allow_kleene=True), frame=skewed_streams(max_events=9), data=st.data())
def test_kleene_equals_the_reference(pattern, frame, data):
    """Random patterns with Kleene closure (b[i] / aggregate conditions) on short skewed streams fed in chunks:
    optimized-lazy (a random order; estimated with first-chance negation) and optimized-eager give the
    reference's matches, order and counters (the tree NFA refuses Kleene closure, as reference-tree)."""
    text = pattern["text"]
    model = _kleene_model(text)
    assume(model is not None)
    note(text)
    note(frame.to_string())
    chunks = data.draw(st.lists(st.integers(1, 5), min_size=1, max_size=3), label="chunk sizes")
    order = list(data.draw(st.permutations(model.variables), label="order"))
    ran = 0
    for fast, ref, options in (("optimized-lazy", "reference-lazy", {"order": order}),
                               ("optimized-lazy", "reference-lazy", {"estimate_prefix": data.draw(st.integers(1, 6)),
                                                                     "negation": "first-chance"}),
                               ("optimized-eager", "reference-eager", {})):
        try:
            got = _run(text, frame, fast, chunks, **options)
        except QueryError as exc:  # first-chance negation of a trailing negation: the reference's error
            with pytest.raises(QueryError) as want_exc:
                _run(text, frame, ref, chunks, **options)
            assert str(want_exc.value) == str(exc)
            continue
        want = _run(text, frame, ref, chunks, **options)
        assert got == want, (fast, options)
        ran += 1
    assume(ran)
    event(f"ran {ran} engines" + (", OR" if len(model.branches) > 1 else ""))


@settings(max_examples=int(os.environ.get("LAZY_KLEENE_EXAMPLES", 8)), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(frame=skewed_streams(max_events=12), data=st.data())
def test_kleene_lazy_and_eager_give_the_same_matches(frame, data):
    """Eager and lazy agree on fixed Kleene shapes (spec/001 §9 C7-C10), and with the reference."""
    text = data.draw(st.sampled_from((
        "PATTERN SEQ(A a, B+ b[], C c) WITHIN 6",
        "PATTERN SEQ(A a, B+ b[], C c) WHERE b[i].x = b[1].x WITHIN 6",
        "PATTERN SEQ(A a, B+ b[], C c) WHERE sum(b[].x) < c.x WITHIN 7",
        "PATTERN AND(A a, B+ b[]) WHERE b[i].x >= b[i-1].x WITHIN 5",
        "PATTERN OR(SEQ(A a, B+ b[]), SEQ(B+ b[], C c)) WITHIN 4 EVENTS",
    )))
    order = list(data.draw(st.permutations(_model(text).variables)))
    chunks = data.draw(st.lists(st.integers(1, 7), min_size=1, max_size=3))
    eager = _run(text, frame, "optimized-eager", chunks)[0]
    assert eager == _run(text, frame, "reference-eager", chunks)[0]
    assert _run(text, frame, "optimized-lazy", chunks, order=order)[0] == eager


def test_kleene_return_payloads_equal_the_reference():
    """RETURN over a Kleene closure (length, aggregates, b[1]) and an OR of Kleene alternatives: the payloads
    of optimized-lazy and optimized-eager equal the reference's, fed whole and in chunks."""
    import numpy as np

    rng = np.random.default_rng(7)
    n = 40
    frame = pd.DataFrame({"id": [f"e{i}" for i in range(n)], "type": rng.choice(list("ABCD"), n),
                          "ts": np.arange(n), "x": rng.integers(0, 3, n), "g": rng.integers(0, 2, n)})
    batch = from_pandas(frame)
    for text in ("PATTERN SEQ(A a, B+ b[], C c) WHERE b[i].x >= b[i-1].x WITHIN 12 "
                 "RETURN a.x AS ax, sum(b[].x) AS s, b.LEN AS n, avg(b[].x) AS m, b[1].x AS f, c.x > 1 AS big",
                 "PATTERN OR(SEQ(A a, B+ b[]), SEQ(B+ b[], !(D d), C c)) WITHIN 5 RETURN count(b[].x) AS k, max(b[].x) AS mx"):
        for fast, ref in (("optimized-lazy", "reference-lazy"), ("optimized-eager", "reference-eager")):
            for size in (n, 7):
                got, want = [], []
                for engine, rows in ((fast, got), (ref, want)):
                    program = compile(text, engine=engine)
                    for i in range(0, n, size):
                        rows += [(m.key(), m.ts, m.payload) for m in program.feed(batch.slice(i, min(n, i + size)))]
                    rows += [(m.key(), m.ts, m.payload) for m in program.close()]
                assert got == want and got, (fast, text, size)


@pytest.mark.parametrize("seed", [1, 2])
def test_kleene_long_streams_equal_the_reference(seed):
    """A few hundred events with Kleene closures, negation (open-ended: held and released), OR, fed whole and
    in chunks (store trimmed between feeds): optimized-lazy and -eager equal the reference."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n = 150
    frame = pd.DataFrame({"id": np.arange(n), "type": rng.choice(list("ABCD"), size=n, p=[.2, .4, .2, .2]),
                          "ts": np.cumsum(rng.integers(0, 3, size=n)), "x": rng.integers(0, 3, size=n),
                          "g": rng.integers(0, 2, size=n)})
    for text in ("PATTERN SEQ(A a, B+ b[], C c) WHERE b[i].x >= b[i-1].x WITHIN 6",
                 "PATTERN OR(SEQ(A a, !(D d), B+ b[]), SEQ(B+ b[], C c)) WHERE sum(b[].x) <= 3 WITHIN 5 EVENTS",
                 "PATTERN AND(A a, SEQ(B+ b[], !(D d))) WHERE a.x = b[1].x WITHIN 6"):
        for fast, ref in (("optimized-lazy", "reference-lazy"), ("optimized-eager", "reference-eager")):
            for chunks in ([n], [37, 5, 90]):
                assert _run(text, frame, fast, chunks) == _run(text, frame, ref, chunks), (fast, text, chunks)
