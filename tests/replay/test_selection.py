"""Index selection: the thesis' example where greedy fails, Pareto frontiers, and both methods against
the exhaustive optimum under the cost model (spec/004 §3.4.3)."""
from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from cepkit.reference.replay.cost import Stats, estimator
from cepkit.reference.replay.select import Candidate, _pareto, _select, greedy, optimal, pareto


def test_greedy_fails_example():
    # spec/004 §3.4.3: PQ = (A, B*, C, D), phi_A = 1 %, phi_C = 2 %, phi_D = 3 %, a window of 100 events.
    n = 100_000
    kinds = ["BS", "KS", "BS", "BS"]
    a = Candidate(1, "A", "x", "", n // 100, 0)
    c = Candidate(3, "C", "x", "", 2 * n // 100, 1)
    d = Candidate(4, "D", "x", "", 3 * n // 100, 1)
    cost = estimator(kinds, Stats(n, n, 1000), 100)
    assert min([(a,), (c,), (d,)], key=lambda cfg: cost(cfg)[0]) == (a,)      # best single index: A
    two_greedy = tuple(sorted(sorted([a, c, d], key=lambda x: x.count)[:2], key=lambda x: x.position))
    assert two_greedy == (a, c)                                                 # greedy would add C
    assert cost((c, d))[0] < cost((a, c))[0]                                    # but C, D reads less
    frontier_2 = _select([[a], [c, d]], 3, cost)[2]
    assert (c, d) in frontier_2                                                 # and Pareto keeps it


def test_pareto_keeps_exactly_the_non_dominated():
    table = {("p",): (1.0, 5.0), ("q",): (2.0, 2.0), ("r",): (3.0, 3.0), ("s",): (0.5, 9.0)}
    got = _pareto(list(table), lambda cfg: (*table[cfg], 0.0))
    assert sorted(got) == [("p",), ("q",), ("s",)]


@st.composite
def problems(draw):
    kinds = draw(st.lists(st.sampled_from(["BS", "BS", "KS"]), min_size=1, max_size=7))
    blocks, b = [], 0
    for k in kinds:
        b += k == "KS"
        blocks.append(b)
    cands = [Candidate(i + 1, f"V{i}", "x", "", draw(st.integers(1, 5000)), blocks[i])
             for i, k in enumerate(kinds) if k == "BS" and draw(st.booleans())]
    return kinds, cands, draw(st.integers(5, 500))


@settings(deadline=None, max_examples=max(50, settings().max_examples // 5))
@given(problems())
def test_selections_against_the_exhaustive_optimum(problem):
    kinds, cands, w = problem
    cost = estimator(kinds, Stats(100_000, 100_000, 1000), w)
    best = optimal(cands, cost)
    every = [cfg for r in range(len(cands) + 1) for cfg in combinations(sorted(cands, key=lambda c: c.position), r)]
    assert cost(best)[2] == min(cost(cfg)[2] for cfg in every)
    for chosen in (greedy(cands, cost), pareto(cands, cost)):
        assert cost(best)[2] <= cost(chosen)[2] <= cost(())[2]   # never worse than a full replay
