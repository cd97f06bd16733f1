"""The optimized AFA engine against the reference on random AFAs (tests/optimized/afa/strategies.py) and
random disordered streams (insertions in random order, retractions, re-insertions, punctuations): the
output rows of every element are the reference's (as a multiset), so the net output after every prefix
is too; fed in random chunks, the rows of every chunk are.

CI time: every random AFA compiles its generated fences (about 0.1-0.2 s an arc; the kernels themselves are
compiled once per machine, about 20 s and 11 s on a cold cache), so CI runs few examples (5 and 3)."""
from __future__ import annotations

import os
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

import cepkit
from tests.optimized.afa.strategies import afa_texts, disordered_rows

CI = bool(os.environ.get("CI"))
FEW = settings(max_examples=5 if CI else 60)
FEWER = settings(max_examples=3 if CI else 40)


def _net(rows: Counter) -> Counter:
    out: Counter = Counter()
    for (_k, _ts, sign, lifetime, _d, payload), n in rows.items():
        out[(lifetime, payload)] += sign * n
    assert all(v >= 0 for v in out.values()), "a retraction of an output never inserted"
    return +out


def _programs(text: str):
    return (cepkit.compile(text, language="afa", engine="reference"),
            cepkit.compile(text, language="afa", engine="optimized"))


@FEW
@given(afa_texts(), disordered_rows())
def test_every_prefix_gives_the_reference_rows_and_net_output(text, rows):
    """...and the net output after every prefix is Definition 2 on the net input so far (the brute-force
    oracle, reference/afa/oracle.py): the order-agnostic guarantee."""
    from cepkit.reference.afa.driver import NetInput
    from cepkit.front.afa.eventfile import element_of

    ref, opt = _programs(text)
    ref_all: Counter = Counter()
    opt_all: Counter = Counter()
    net_in = NetInput()
    for i, row in enumerate(rows, start=1):
        want = ref.feed([row]).canonical()
        got = opt.feed([row]).canonical()
        assert got == want, f"after input row {i} ({row})"
        ref_all += want
        opt_all += got
        assert _net(opt_all) == _net(ref_all)
        net_in.apply(element_of(dict(row), i, ref.afa))
        definition2 = net_in.oracle(ref.afa, ref.operator).items()
        oracle = Counter({((le, re_), (("n", r[0]),)): c for (r, le, re_), c in definition2})
        assert _net(opt_all) == +oracle, f"after input row {i}: the net output is not Definition 2"
    assert opt.close().canonical() == ref.close().canonical()


@FEWER
@given(afa_texts(), disordered_rows(max_events=12), st.lists(st.integers(1, 30), max_size=5))
def test_chunks_give_the_reference_rows(text, rows, cuts):
    ref, opt = _programs(text)
    bounds = sorted({c for c in cuts if c < len(rows)} | {0, len(rows)})
    for a, b in zip(bounds, bounds[1:]):
        assert opt.feed(rows[a:b]).canonical() == ref.feed(rows[a:b]).canonical()
    assert opt.close().canonical() == ref.close().canonical()


@st.composite
def seq_rows(draw) -> list[dict]:
    """Events numbered in LE order, arriving in a random order, with valid punctuations (AFA+O's input)."""
    from tests.afa.strategies import event_pools

    pool = sorted(draw(event_pools(10)), key=lambda e: e.le)
    rows = [{"kind": "insert", "le": e.le, "re": e.re, "seq": i, **dict(e.payload)} for i, e in enumerate(pool)]
    rows = draw(st.permutations(rows))
    for _ in range(draw(st.integers(0, 2))):
        pos = draw(st.integers(0, len(rows)))
        later = [r["le"] for r in rows[pos:] if r["kind"] == "insert"]
        rows = rows[:pos] + [{"kind": "punctuate", "le": min(later) if later else 100}] + rows[pos:]
    return rows


@FEWER
@given(afa_texts(), seq_rows())
def test_seq_flavor_gives_the_reference_rows(text, rows):
    ref = cepkit.compile(text, language="afa", engine="reference", flavor="seq")
    opt = cepkit.compile(text, language="afa", engine="optimized", flavor="seq")
    for i, row in enumerate(rows, start=1):
        assert opt.feed([row]).canonical() == ref.feed([row]).canonical(), f"after input row {i} ({row})"


@FEWER
@given(afa_texts(), disordered_rows(max_events=10), st.sampled_from([0, 1, 3, "inf"]))
def test_cleanse_flavor_gives_the_reference_rows(text, rows, sigma):
    ref = cepkit.compile(text, language="afa", engine="reference", flavor="cleanse", sigma=sigma)
    opt = cepkit.compile(text, language="afa", engine="optimized", flavor="cleanse", sigma=sigma)
    for i, row in enumerate(rows, start=1):
        assert opt.feed([row]).canonical() == ref.feed([row]).canonical(), f"after input row {i} ({row})"
    assert opt.close().canonical() == ref.close().canonical()


@FEWER
@given(afa_texts(ignorable=True), disordered_rows())
def test_ignorable_flavor_gives_the_reference_rows(text, rows):
    ref = cepkit.compile(text, language="afa", engine="reference", flavor="ignorable")
    opt = cepkit.compile(text, language="afa", engine="optimized", flavor="ignorable")
    ref_all: Counter = Counter()
    opt_all: Counter = Counter()
    for i, row in enumerate(rows, start=1):
        want = ref.feed([row]).canonical()
        got = opt.feed([row]).canonical()
        assert got == want, f"after input row {i} ({row})"
        ref_all += want
        opt_all += got
        assert _net(opt_all) == _net(ref_all)


@FEWER
@given(st.data())
def test_dynamic_patterns_give_the_reference_rows(data):
    """Arc insertions (default lifetime: LE > t_curr, or an explicit [le, re)), deletions (up to t_curr),
    retractions of arcs and arc punctuations among disordered events; an arc row the reference refuses (an
    active arc inserted, an inactive one deleted, a lifetime below the punctuation) gets the same error."""
    from cepkit.core.errors import CepkitError
    from tests.optimized.afa.strategies import dynamic_rows

    text = data.draw(afa_texts(standby=True))
    rows = data.draw(dynamic_rows(text))
    ref, opt = _programs(text)
    for i, row in enumerate(rows, start=1):
        try:
            want = ref.feed([row]).canonical()
        except CepkitError as exc:
            try:
                opt.feed([row])
            except CepkitError as got:
                assert (type(got), str(got)) == (type(exc), str(exc))
                return
            raise AssertionError(f"the reference refused input row {i} ({row}): {exc}") from None
        assert opt.feed([row]).canonical() == want, f"after input row {i} ({row})"
