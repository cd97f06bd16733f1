"""The pattern program (front/sql/program.py) and its lockstep VM (reference/sql/vm.py): printing,
linear cost (counted in VM steps, never in time), refusals, and what the dedup state reads."""
from __future__ import annotations

import pytest

from cepkit.core.errors import QueryError
from cepkit.front.language import ast as A
from cepkit.front.sql import ast as S
from cepkit.front.sql.parse import parse
from cepkit.front.sql.program import compile_pattern
from cepkit.reference.sql.run import run_rows
from cepkit.reference.sql.vm import FULL, VM, history_reads


def mr(text: str) -> S.MatchRecognize:
    return parse(f"SELECT * FROM t MATCH_RECOGNIZE ({text})")


def test_program_prints_one_instruction_a_line():
    q = mr("PATTERN (^ A {- B -} (C | D)*? E{1,2} $)")
    assert compile_pattern(q.pattern).describe().splitlines() == [
        " 0: at-start",
        " 1: match A",
        " 2: match B excluded",
        " 3: split 9, 4",
        " 4: split 5, 7",
        " 5: match C",
        " 6: jump 8",
        " 7: match D",
        " 8: jump 3",
        " 9: match E",
        "10: split 11, 12",
        "11: match E",
        "12: at-end",
        "13: done",
    ]
    assert str(compile_pattern(q.pattern)) == compile_pattern(q.pattern).describe()


def test_loops_that_can_match_nothing_get_iteration_marks():
    q = mr("PATTERN ((A?)* B)")
    assert compile_pattern(q.pattern).describe().splitlines() == [
        "0: split 1, 6",
        "1: iteration 0",
        "2: split 3, 4",
        "3: match A",
        "4: exit-if-empty 0, 6",
        "5: jump 0",
        "6: match B",
        "7: done",
    ]


SCALING = [
    ("(A+)+ B", "A AS k = 'a', B AS k = 'b'", lambda n: ["a"] * (n - 1) + ["b"]),
    ("(A | B)* C", "A AS k = 'a', B AS k = 'b', C AS k = 'c'", lambda n: ["a", "b"] * ((n - 1) // 2)
     + ["a"] * ((n - 1) % 2) + ["c"]),
]


@pytest.mark.parametrize("pattern, define, kinds", SCALING, ids=[s[0] for s in SCALING])
def test_steps_grow_linearly_with_rows(pattern, define, kinds):
    q = mr(f"PATTERN ({pattern}) DEFINE {define}")
    program = compile_pattern(q.pattern)
    steps = {}
    for n in (1000, 2000, 4000):
        vm = VM(program, q.define_map, {})
        assert vm.first([{"k": k} for k in kinds(n)], 0)[0] == n   # one match over every row
        steps[n] = vm.steps
    assert steps[2000] / steps[1000] <= 2.2 and steps[4000] / steps[2000] <= 2.2, steps


@pytest.mark.parametrize("pattern, define, kinds", SCALING, ids=[s[0] for s in SCALING])
def test_a_partition_without_matches_costs_linear_steps(pattern, define, kinds):
    # SQL mode tries every start row; states of a failed run are dead for the later runs
    q = mr(f"PATTERN ({pattern}) DEFINE {define}")
    program = compile_pattern(q.pattern)
    steps = {}
    for n in (500, 1000, 2000):
        rows = [{"k": k} for k in kinds(n)[:-1]] + [{"k": "x"}]     # the last row ends nothing
        vm = VM(program, q.define_map, {})
        assert vm.memo
        assert all(vm.first(rows, s) is None for s in range(n))
        steps[n] = vm.steps
    assert steps[1000] / steps[500] <= 2.2 and steps[2000] / steps[1000] <= 2.2, steps


def test_no_dead_states_when_conditions_read_the_start_or_within():
    plain = mr("PATTERN (A+ B) DEFINE A AS k = 'a', B AS k = 'b'")
    assert not VM(compile_pattern(plain.pattern), plain.define_map, {}, within=lambda s, r: True).memo
    q = mr("PATTERN (A+ B) DEFINE A AS COUNT(*) < 3, B AS k = 'b'")
    vm = VM(compile_pattern(q.pattern), q.define_map, {})
    assert not vm.memo
    # from start 0, COUNT(*) < 3 fails at row 2; from start 1 the same rows match
    rows = [{"k": "a"}, {"k": "a"}, {"k": "a"}, {"k": "b"}]
    assert [vm.first(rows, s) for s in range(4)] == [
        None, (4, ("A", "A", "B"), (False,) * 3), (4, ("A", "B"), (False,) * 2), None]


def test_steps_per_row_are_bounded_by_the_program_without_history():
    # no DEFINE reads labels: per row at most (program size x (1 + loops)) steps
    q = mr("PATTERN (((A | B)* (A? | B?)*)* C) DEFINE C AS k = 'c'")
    program = compile_pattern(q.pattern)
    rows = [{"k": "x"}] * 300 + [{"k": "c"}]
    vm = VM(program, q.define_map, {})
    assert vm.first(rows, 0)[0] == 301
    assert vm.steps <= 301 * len(program) * (1 + program.loops)


def test_long_match_of_nested_loops_needs_no_deep_recursion():
    rows = [{"ts": i, "v": i % 3} for i in range(30000)]
    table = run_rows("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES COUNT(*) AS n, COUNT(B.*) AS b "
                     "PATTERN (((A | B)+)+ C?) DEFINE A AS v = 0, B AS v > 0, C AS v < 0)", ["ts", "v"], rows)
    assert table.records() == [{"n": 30000, "b": 20000}]


@pytest.mark.parametrize("pattern, blamed", [("(A{1000}){1000}", "(A{1000}){1000}"), ("A B{200000}", "B{"),
                                             ("PERMUTE(A, B, C, D, E, F, G, H, I, J)", "PERMUTE")])
def test_a_pattern_too_large_to_compile_is_a_query_error_with_position(pattern, blamed):
    text = f"SELECT * FROM t MATCH_RECOGNIZE (PATTERN ({pattern}))"
    with pytest.raises(QueryError) as info:
        run_rows(text, ["v"], [{"v": 1}])
    assert (info.value.line, info.value.column) == (1, text.index(blamed) + 1)


V = S.ColRef(None, "v")


@pytest.mark.parametrize("cond, reads", [
    (A.Compare(">", V, S.Nav("prev", V, 2)), None),
    (A.Compare(">", V, S.Nav("first", V, 1)), None),
    (A.Compare("<", S.SqlAgg("sum", V, None), A.Const(3)), None),
    (A.Compare(">", V, S.ColRef("A", "v")), ((frozenset({"A"}), 0, 1, False),)),
    (A.Compare(">", V, S.Nav("prev", S.ColRef("U", "v"), 3)), ((frozenset({"A", "B"}), 0, 1, False),)),
    (A.Compare(">", S.Nav("first", S.ColRef("A", "v"), 1), S.Nav("last", S.ColRef("A", "v"), 2)),
     ((frozenset({"A"}), 2, 3, False),)),
    (A.Compare("<", S.SqlAgg("count", None, "B"), A.Const(3)), ((frozenset({"B"}), 0, 0, True),)),
    (A.Compare("=", S.Nav("prev", S.Classifier(), 1), A.Const("A")), FULL),
])
def test_history_reads(cond, reads):
    assert history_reads({"B": cond}, {"U": ("A", "B")}) == reads
