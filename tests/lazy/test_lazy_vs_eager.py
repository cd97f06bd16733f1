"""The lazy Chain NFA (every frequency order, both negation strategies), the Tree NFA and the eager NFA
all equal the brute-force definition of spec/001 §2.7 on random patterns and streams; on plain SASE+
sequences they also equal the NFA^b reference."""
from __future__ import annotations

from collections import Counter
from itertools import permutations

from hypothesis import assume, given, note, settings
from hypothesis import strategies as st

from cepkit import compile
from cepkit.front.nfab.compile import is_nfab_query
from cepkit.core.errors import QueryError, Unsupported
from cepkit.core.readers import from_pandas
from cepkit.front.language import parse
from cepkit.front.pattern.model import compile_pattern
from tests.lazy.strategies import pattern_trees, streams


def _keys(text, frame, engine: str, **options) -> Counter:
    """The match keys of `text` (query text, or its parsed AST) over `frame` on `engine`."""
    return Counter(m.key() for m in compile(text, engine=engine, **options).run(from_pandas(frame)))


def _valid(text: str):
    try:
        return compile_pattern(parse(text))
    except QueryError:
        return None  # e.g. a clause over two OR branches: the compile-time errors have their own tests


def _definition(pattern: dict, frame) -> tuple:
    """(text, pattern model, brute-force matches) of a drawn pattern that compiles (else the example is
    rejected)."""
    text = pattern["text"]
    model = _valid(text)
    assume(model is not None)
    note(text)
    note(frame.to_string())
    return text, model, _keys(text, frame, "brute")


def _once(keys: Counter, what: str) -> None:
    assert all(c == 1 for c in keys.values()), f"{what} emitted a match twice"


@settings(deadline=None)
@given(pattern=pattern_trees(), frame=streams(), data=st.data())
def test_every_engine_equals_the_definition(pattern, frame, data):
    text, model, oracle = _definition(pattern, frame)
    eager = _keys(text, frame, "reference-eager")
    assert eager == oracle
    _once(eager, "eager")
    names = model.variables
    order = data.draw(st.permutations(names), label="frequency order")
    lazy = _keys(text, frame, "reference-lazy", order=list(order))
    assert lazy == oracle
    _once(lazy, "lazy chain")
    try:
        fc = _keys(text, frame, "reference-lazy", order=list(order), negation="first-chance")
    except QueryError as exc:
        assert "first-chance" in str(exc)  # a negation with no positive after it
    else:
        assert fc == oracle
    if not pattern["kleene"]:
        tree = _keys(text, frame, "reference-tree")
        assert tree == oracle
        _once(tree, "tree")
    if is_nfab_query(parse(text)):
        assert _keys(text, frame, "reference") == oracle


ALL_ORDERS_UP_TO = 4   # variables: every order of up to 4! = 24; beyond, 24 drawn orders (n! grows too fast)


@settings(deadline=None, max_examples=max(20, settings().max_examples // 10))
@given(pattern=pattern_trees(allow_or=False), frame=streams(max_events=8), data=st.data())
def test_lazy_chain_in_every_frequency_order(pattern, frame, data):
    """Theorem 1 of spec/001: the frequency order changes the work, never the matches."""
    text, model, oracle = _definition(pattern, frame)
    names = list(model.variables)
    if len(names) <= ALL_ORDERS_UP_TO:
        orders = list(permutations(names))
    else:
        orders = [data.draw(st.permutations(names), label=f"frequency order {i}") for i in range(24)]
    query = parse(text)  # parsed once: every order compiles the same AST
    for order in orders:
        assert _keys(query, frame, "reference-lazy", order=list(order)) == oracle, order


@settings(deadline=None)
@given(pattern=pattern_trees(dialect="rfid"), frame=streams())
def test_rfid_dialect_engines_equal_the_definition(pattern, frame):
    text, model, oracle = _definition(pattern, frame)
    assert _keys(text, frame, "reference") == oracle
    assert _keys(text, frame, "reference-lazy") == oracle
    assert _keys(text, frame, "reference-tree") == oracle


@settings(deadline=None)
@given(pattern=pattern_trees(), frame=streams(), cut=st.integers(0, 11))
def test_feeding_in_pieces_equals_one_batch(pattern, frame, cut):
    text = pattern["text"]
    assume(_valid(text) is not None)
    batch = from_pandas(frame)
    cut = min(cut, len(batch))
    for engine in ("reference-eager", "reference-lazy") + (() if pattern["kleene"] else ("reference-tree",)):
        whole = compile(text, engine=engine).run(batch)
        program = compile(text, engine=engine)
        pieces = program.feed(batch.slice(0, cut)) + program.feed(batch.slice(cut, len(batch))) + program.close()
        assert Counter(m.key() for m in pieces) == Counter(m.key() for m in whole), engine


@settings(deadline=None, max_examples=max(10, settings().max_examples // 20))
@given(seed=st.integers(0, 10_000), k=st.integers(3, 12))
def test_tree_follows_rate_switches(seed, k):
    """spec/001 Fig. 18 design: the rarest type switches every k events; the tree still equals eager."""
    import random

    rng = random.Random(seed)
    rows, rare = [], "A"
    for i in range(60):
        if i % k == 0:
            rare = "B" if rare == "A" else "A"
        typ = rare if rng.random() < 0.1 else rng.choice([t for t in "ABC" if t != rare])
        rows.append({"id": f"e{i}", "type": typ, "ts": i, "x": rng.randint(0, 2)})
    frame = __import__("pandas").DataFrame(rows)
    text = "PATTERN SEQ(A a, B b, C c) WHERE a.x <= c.x WITHIN 8"
    eager = _keys(text, frame, "reference-eager")
    assert _keys(text, frame, "reference-tree") == eager
    assert _keys(text, frame, "reference-lazy") == eager


@given(m=st.integers(1, 6))
def test_kleene_between_fixed_ends_gives_every_non_empty_subset(m):
    """spec/001 §9 property: m qualifying B's between a and c give 2^m - 1 matches."""
    import pandas as pd

    rows = [{"id": "a", "type": "A", "ts": 0}] + [{"id": f"b{i}", "type": "B", "ts": i + 1} for i in range(m)]
    frame = pd.DataFrame(rows + [{"id": "c", "type": "C", "ts": m + 1}])
    for engine in ("reference", "reference-eager", "reference-lazy"):
        assert sum(_keys("PATTERN SEQ(A a, B+ b[], C c)", frame, engine).values()) == 2 ** m - 1
