"""The pattern program's lockstep VM (SQL mode's matcher) against two independent definitions.

1. Preferment: with row-local DEFINE conditions, the match SQL reports at each start row ends where
   Python's backtracking `re` (Perl preferment: leftmost alternative, greedy/reluctant) ends on an
   encoding of the rows.
2. Completeness: every path of the program (the VM without deduplication or cut-off) yields exactly
   the label sequences that a brute-force enumeration accepts (regex membership on the label string +
   every DEFINE on its prefix), with cross-row conditions (PREV, other variables, aggregates).
"""
from __future__ import annotations

import re
from itertools import product

from hypothesis import given, settings
from hypothesis import strategies as st

from cepkit.front.language import ast as A
from cepkit.front.sql import ast as S
from cepkit.reference.sql.exprs import Ctx, holds
from cepkit.front.sql.parse import parse
from cepkit.front.sql.printer import pattern_text
from cepkit.front.sql.program import compile_pattern
from cepkit.reference.sql.vm import VM
from tests.sql.strategies import VARS, patterns, to_python_re

V = S.ColRef(None, "v")


def _in(values: frozenset[int]):
    if not values:
        return A.Compare("<", V, A.Const(0))
    return A.Or(tuple(A.Compare("=", V, A.Const(x)) for x in sorted(values))) if len(values) > 1 \
        else A.Compare("=", V, A.Const(next(iter(values))))


local_defines = st.dictionaries(st.sampled_from(VARS), st.frozensets(st.integers(0, 3)), max_size=3)
rows_st = st.lists(st.integers(0, 3), min_size=0, max_size=7)


@settings(deadline=None)
@given(patterns(), local_defines, rows_st)
def test_preferred_match_agrees_with_python_re(pattern, allowed, values):
    rows = [{"v": x} for x in values]
    define = {var: _in(vals) for var, vals in allowed.items()}
    width = len(VARS) + 2

    def holds_local(var, x):
        return var not in allowed or x in allowed[var]

    text = "".join("<" + "".join(var if holds_local(var, x) else "." for var in VARS) + ">" for x in values)

    def atom(var):
        k = VARS.index(var)
        return "<" + "[^>]" * k + var + "[^>]" * (len(VARS) - k - 1) + ">"

    rx = re.compile(to_python_re(pattern, atom))
    m = VM(compile_pattern(pattern), define, {})
    for s in range(len(rows)):
        got = m.first(rows, s)
        want = rx.match(text, s * width)
        assert (got is None) == (want is None), (pattern_text(pattern), values, s, got, want)
        if got is not None:
            assert got[0] == want.end() // width, (pattern_text(pattern), values, s, got, want)


def test_pattern_text_round_trips():
    @settings(deadline=None)
    @given(patterns())
    def check(p):
        q = parse(f"SELECT * FROM t MATCH_RECOGNIZE (PATTERN ({pattern_text(p)}))")
        assert pattern_text(q.pattern) == pattern_text(p)
    check()


CROSS = {
    "A": S.IsNull(S.ColRef(None, "v"), negated=True),
    "B": A.Compare(">", S.ColRef(None, "v"), S.Nav("prev", S.ColRef(None, "v"), 1)),
    "C": A.Compare(">=", S.ColRef(None, "v"), A.BinOp("+", S.ColRef("A", "v"), A.Const(1))),
}
CROSS_AGG = {
    "B": A.Compare("<", S.SqlAgg("count", None, "B"), A.Const(3)),
    "C": A.Compare("<=", S.SqlAgg("sum", S.ColRef("C", "v"), None), A.Const(4)),
}


def _label_regex(pattern, at_start: bool, at_end: bool):
    def atom(var):
        return var
    src = to_python_re(pattern, atom)
    src = src.replace(r"\A", r"\A" if at_start else "(?!)").replace(r"\Z", r"\Z" if at_end else "(?!)")
    return re.compile(src)


@settings(deadline=None)
@given(patterns(max_leaves=5), st.sampled_from([CROSS, CROSS_AGG]), st.lists(st.integers(0, 3), max_size=5))
def test_all_matches_of_the_matcher_equal_brute_force(pattern, define, values):
    rows = [{"v": x} for x in values]
    n = len(rows)
    m = VM(compile_pattern(pattern), define, {})
    for s in range(n):
        got = {(end, labels) for end, labels, _ in m.all_matches(rows, s)}
        want = set()
        for length in range(0, n - s + 1):
            rx = _label_regex(pattern, s == 0, s + length == n)
            for labels in product(VARS, repeat=length):
                if not rx.fullmatch("".join(labels)):
                    continue
                if all(labels[k] not in define or
                       holds(define[labels[k]], Ctx(rows, range(s, s + k + 1), labels[:k + 1], k, {}))
                       for k in range(length)):
                    want.add((s + length, labels))
        assert got == want, (pattern_text(pattern), values, s)
