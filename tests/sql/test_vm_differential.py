"""The VM's preferred match per start row against an obviously correct enumeration.

The oracle lists every path of the pattern (a sequence of variables with their exclusion flag, and
anchors) in SQL:2016 preference order, straight from the definition: alternatives left to right, PERMUTE
in lexicographic order of the items, greedy quantifiers more iterations first and reluctant fewer first,
concatenation lexicographically, and an iteration beyond the minimum that takes no row ends the loop.
The preferred match from a start row is the first path whose anchors fit and whose every DEFINE holds
with RUNNING semantics on its prefix. It recurses and is exponential: only for a few rows.
"""
from __future__ import annotations

from itertools import permutations

from hypothesis import given, settings
from hypothesis import strategies as st

from cepkit.front.language import ast as A
from cepkit.front.sql import ast as S
from cepkit.reference.sql.exprs import Ctx, holds
from cepkit.front.sql.printer import pattern_text
from cepkit.front.sql.program import compile_pattern
from cepkit.reference.sql.vm import VM
from tests.sql.strategies import VARS, patterns

V = S.ColRef(None, "v")


def _rows_of(path) -> int:
    return sum(1 for t in path if t[0] == "var")


def paths(p: S.Pattern, budget: int, excluded: bool = False) -> list[tuple]:
    """Every path of p taking at most `budget` rows, most preferred first."""
    if isinstance(p, S.PVar):
        return [(("var", p.name, excluded),)] if budget >= 1 else []
    if isinstance(p, S.PEmpty):
        return [()]
    if isinstance(p, S.PAnchor):
        return [(("anchor", p.kind),)]
    if isinstance(p, S.PExclude):
        return paths(p.item, budget, True)
    if isinstance(p, S.PConcat):
        return _concat(list(p.items), budget, excluded)
    if isinstance(p, S.PAlt):
        return [x for item in p.items for x in paths(item, budget, excluded)]
    if isinstance(p, S.PPermute):
        return [x for order in permutations(p.items) for x in _concat(list(order), budget, excluded)]
    if isinstance(p, S.PQuant):
        return _loop(p, 0, budget, excluded)
    raise TypeError(p)


def _concat(items: list, budget: int, excluded: bool) -> list[tuple]:
    if not items:
        return [()]
    return [x + y for x in paths(items[0], budget, excluded)
            for y in _concat(items[1:], budget - _rows_of(x), excluded)]


def _loop(p: S.PQuant, count: int, budget: int, excluded: bool) -> list[tuple]:
    more: list[tuple] = []
    if p.high is None or count < p.high:
        for x in paths(p.item, budget, excluded):
            if _rows_of(x) == 0 and count >= p.low:
                more.append(x)                       # an empty iteration beyond the minimum ends the loop
            else:
                more += [x + y for y in _loop(p, count + 1, budget - _rows_of(x), excluded)]
    stop = [()] if count >= p.low else []
    return stop + more if p.reluctant else more + stop


def oracle(pattern, define, rows, start):
    n = len(rows)
    for path in paths(pattern, n - start):
        labels: list[str] = []
        excl: list[bool] = []
        ok = True
        for tok in path:
            i = start + len(labels)
            if tok[0] == "anchor":
                ok = (i == 0) if tok[1] == "^" else (i == n)
            else:
                labels.append(tok[1])
                excl.append(tok[2])
                cond = define.get(tok[1])
                ok = cond is None or holds(cond, Ctx(rows, range(start, i + 1), labels, len(labels) - 1, {}))
            if not ok:
                break
        if ok:
            return start + len(labels), tuple(labels), tuple(excl)
    return None


def _cmp(op, left, right):
    return A.Compare(op, left, right)


# Conditions: row-local ones and ones that read the match so far (so that deduplication must keep threads
# with different labels apart).
CONDITIONS = [
    _cmp("<", V, A.Const(2)),
    _cmp(">=", V, A.Const(1)),
    _cmp(">", V, S.Nav("prev", V, 1)),
    _cmp("=", V, S.Nav("first", V, 0)),
    _cmp(">", V, S.ColRef("A", "v")),
    _cmp("<=", V, S.Nav("prev", S.ColRef("B", "v"), 1)),
    _cmp("<", S.SqlAgg("count", None, "B"), A.Const(2)),
    _cmp("<=", S.SqlAgg("sum", S.ColRef("C", "v"), None), A.Const(3)),
    _cmp("=", S.Nav("first", S.ColRef("A", "v"), 0), V),
    _cmp("!=", S.Nav("last", S.ColRef("A", "v"), 1), V),
    _cmp("=", S.Nav("prev", S.Classifier(), 1), A.Const("A")),
    _cmp("!=", S.Classifier("B"), A.Const("B")),
]

defines = st.dictionaries(st.sampled_from(VARS), st.sampled_from(CONDITIONS), max_size=3)


@settings(deadline=None)
@given(patterns(max_leaves=5), defines, st.lists(st.integers(0, 3), max_size=6))
def test_first_match_per_start_row_equals_the_enumeration(pattern, define, values):
    rows = [{"v": x} for x in values]
    vm = VM(compile_pattern(pattern), define, {})
    for s in range(len(rows)):
        assert vm.first(rows, s) == oracle(pattern, define, rows, s), (pattern_text(pattern), values, s)
