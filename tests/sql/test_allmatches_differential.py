"""The thesis' all-matches strategies (Glushkov runs) against brute-force enumeration of subsequences."""
from __future__ import annotations

import re
from itertools import combinations, product

from hypothesis import given, settings
from hypothesis import strategies as st

from cepkit.reference.sql.allmatches import AllMatches
from cepkit.reference.sql.exprs import Ctx, holds
from cepkit.front.sql.patterns import nullable
from cepkit.front.sql.printer import pattern_text
from tests.sql.strategies import VARS, patterns, to_python_re
from tests.sql.test_matcher_differential import CROSS, CROSS_AGG

rows_st = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2)), max_size=6)


def _rows(spec):
    t, rows = 0, []
    for v, gap in spec:
        t += gap + 1
        rows.append({"v": v, "t": t})
    return rows


def _within(rows, w):
    if w is None:
        return None
    return lambda first, r: rows[r]["t"] - rows[first]["t"] <= w


def brute(pattern, define, rows, strategy, w):
    rx = re.compile(to_python_re(pattern, lambda v: v))
    n = len(rows)
    out = set()
    for size in range(1, n + 1):
        for chosen in combinations(range(n), size):
            if strategy == "contiguous" and chosen[-1] - chosen[0] != size - 1:
                continue
            if w is not None and rows[chosen[-1]]["t"] - rows[chosen[0]]["t"] > w:
                continue
            for labels in product(VARS, repeat=size):
                if not rx.fullmatch("".join(labels)):
                    continue
                if all(labels[k] not in define or
                       holds(define[labels[k]], Ctx(rows, chosen[:k + 1], labels[:k + 1], k, {}))
                       for k in range(size)):
                    out.add((chosen, labels))
    return out


@settings(deadline=None)
@given(patterns(anchors=False, extras=False, max_leaves=4).filter(lambda p: not nullable(p)),
       st.sampled_from([CROSS, CROSS_AGG, {}]), rows_st, st.sampled_from([None, 1, 3]),
       st.sampled_from(["contiguous", "skip_till_any"]))
def test_forking_strategies_equal_brute_force(pattern, define, spec, w, strategy):
    rows = _rows(spec)
    got = set(AllMatches(pattern, define, {}, strategy, _within(rows, w)).matches(rows))
    assert got == brute(pattern, define, rows, strategy, w), pattern_text(pattern)


@settings(deadline=None)
@given(patterns(anchors=False, extras=False, max_leaves=4).filter(lambda p: not nullable(p)),
       st.sampled_from([CROSS, {}]), rows_st, st.sampled_from([None, 2]))
def test_skip_till_next_is_one_skip_till_any_match_per_start(pattern, define, spec, w):
    rows = _rows(spec)
    nxt = list(AllMatches(pattern, define, {}, "skip_till_next", _within(rows, w)).matches(rows))
    anym = set(AllMatches(pattern, define, {}, "skip_till_any", _within(rows, w)).matches(rows))
    assert set(nxt) <= anym
    starts = [m[0][0] for m in nxt]
    assert len(starts) == len(set(starts))
