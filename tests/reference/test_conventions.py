"""Conventions on the query (docs/semantics.md, "Conventions on the query"): each front end sets the null
logic and the window bound on the AST; the one reference evaluator gives the documented truth tables
under each null logic; the SQL evaluator (cepkit.reference.sql.exprs) and the shared one agree."""
from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cepkit.core.errors import EventError
from cepkit.front.evaluate import Env, compare, evaluate, truth
from cepkit.front.language import ast as A
from cepkit.front.language.printer import conventions_to_text
from cepkit.front.language.sase import parse_sase
from cepkit.front.sql import ast as S
from cepkit.reference.sql.exprs import Ctx
from cepkit.reference.sql.exprs import evaluate as sql_evaluate
from cepkit.reference.sql.exprs import holds as sql_holds
from cepkit.front.sql.parse import parse as parse_sql
from cepkit.front.tpstream.parser import parse_tpstream


# ----------------------------------------------------------------------------- front ends
def test_sase_plus_query_is_two_valued_with_a_strict_window():
    q = parse_sase("PATTERN SEQ(A a, B b) WHERE skip_till_any_match { a.x < b.x } WITHIN 10")
    assert q.conventions == A.Conventions("two_valued", "strict") == A.SASE_CONVENTIONS
    assert q.window is not None and not q.window.inclusive


def test_sase_rfid_query_keeps_todays_conventions():
    q = parse_sase("EVENT SEQ(A a, B b) WHERE a.x = b.x WITHIN 10")
    assert q.dialect == "rfid"
    assert q.conventions == A.SASE_CONVENTIONS


def test_sql_query_is_three_valued_with_an_inclusive_window():
    q = parse_sql("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (a b) WITHIN 5 "
                  "DEFINE b AS b.x > a.x)")
    assert q.conventions == A.Conventions("three_valued", "inclusive") == A.SQL_CONVENTIONS


def test_sql_within_exclusive_makes_the_window_strict():
    q = parse_sql("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (a b) WITHIN 5 EXCLUSIVE "
                  "DEFINE b AS b.x > a.x)")
    assert q.conventions == A.Conventions("three_valued", "strict")


def test_sql_query_without_within_is_three_valued():
    q = parse_sql("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (a) DEFINE a AS a.x > 0)")
    assert q.conventions.null_logic == "three_valued"


def test_tpstream_query_is_two_valued_with_an_inclusive_window():
    q = parse_tpstream("FROM s DEFINE A AS x > 1, B AS y < 2 PATTERN A before B WITHIN 10")
    assert q.conventions == A.Conventions("two_valued", "inclusive") == A.TPSTREAM_CONVENTIONS


def test_conventions_reject_unknown_values():
    with pytest.raises(ValueError):
        A.Conventions("four_valued", "strict")
    with pytest.raises(ValueError):
        A.Conventions("two_valued", "loose")


def test_a_window_that_disagrees_with_the_conventions_is_refused():
    q = parse_sase("PATTERN SEQ(A a, B b) WHERE skip_till_any_match { a.x < b.x } WITHIN 10")
    with pytest.raises(ValueError):
        A.Query(q.pattern, q.strategy, q.where, q.window, conventions=A.Conventions("two_valued", "inclusive"))
    s = parse_sql("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (a) WITHIN 5 DEFINE a AS a.x > 0)")
    with pytest.raises(ValueError):
        S.MatchRecognize(**{**{f: getattr(s, f) for f in s.__dataclass_fields__},
                            "conventions": A.Conventions("three_valued", "strict")})


def test_conventions_print():
    assert conventions_to_text(A.SQL_CONVENTIONS) == \
        "null logic three-valued (SQL); WITHIN inclusive (span <= W)"
    assert conventions_to_text(A.SASE_CONVENTIONS) == \
        "null logic two-valued (null comparisons false); WITHIN strict (span < W)"


# ----------------------------------------------------------------------------- truth tables
T, F, U = A.Const(True), A.Const(False), A.AttrRef("a", "missing")   # U reads a null


def _env(logic: str) -> Env:
    return Env({"a": (0,)}, lambda pos, attr: None, null_logic=logic)


def _v(e, logic: str):
    return evaluate(e, _env(logic))


_CASES = {"T": T, "F": F, "U": U}
# name -> (three-valued result, two-valued result); U under two-valued is a null operand read as false
_AND = {"TT": (True, True), "TF": (False, False), "TU": (None, False), "FU": (False, False),
        "UU": (None, False), "FF": (False, False), "UT": (None, False), "UF": (False, False)}
_OR = {"TT": (True, True), "TF": (True, True), "TU": (True, True), "FU": (None, False),
       "UU": (None, False), "FF": (False, False), "UT": (True, True), "UF": (None, False)}


@pytest.mark.parametrize("pair", sorted(_AND))
def test_and_truth_table(pair):
    e = A.And((_CASES[pair[0]], _CASES[pair[1]]))
    assert (_v(e, "three_valued"), _v(e, "two_valued")) == _AND[pair]


@pytest.mark.parametrize("pair", sorted(_OR))
def test_or_truth_table(pair):
    e = A.Or((_CASES[pair[0]], _CASES[pair[1]]))
    assert (_v(e, "three_valued"), _v(e, "two_valued")) == _OR[pair]


@pytest.mark.parametrize("name,expected", [("T", (False, False)), ("F", (True, True)), ("U", (None, True))])
def test_not_truth_table(name, expected):
    e = A.Not(_CASES[name])
    assert (_v(e, "three_valued"), _v(e, "two_valued")) == expected


@pytest.mark.parametrize("op", ["=", "!=", "<", "<=", ">", ">="])
def test_comparison_with_null(op):
    one = A.Const(1)
    for e in (A.Compare(op, U, one), A.Compare(op, one, U), A.Compare(op, U, U)):
        assert _v(e, "three_valued") is None
        assert _v(e, "two_valued") is False
        assert _v(A.Not(e), "three_valued") is None
        assert _v(A.Not(e), "two_valued") is True
    assert compare(op, None, 1, "two_valued", missing_true=True) is True   # the SASE RFID rule


def test_arithmetic_is_the_same_under_both_logics():
    for logic in ("three_valued", "two_valued"):
        assert _v(A.BinOp("/", A.Const(1), A.Const(3)), logic) == Fraction(1, 3)
        assert _v(A.BinOp("%", A.Const(-7), A.Const(3)), logic) == 2
        assert _v(A.BinOp("/", A.Const(1), A.Const(0)), logic) is None
        assert _v(A.BinOp("+", U, A.Const(1)), logic) is None
        assert _v(A.Neg(U), logic) is None
        with pytest.raises(EventError):
            _v(A.BinOp("+", A.Const("x"), A.Const(1)), logic)
    # a truth value reads as 0/1 in two-valued arithmetic; in three-valued logic it is not a number
    assert _v(A.Neg(A.Compare("<", A.Const(0), A.Const(1))), "two_valued") == -1
    with pytest.raises(EventError):
        _v(A.Neg(A.Compare("<", A.Const(0), A.Const(1))), "three_valued")


def test_a_condition_holds_only_when_true():
    for logic in ("three_valued", "two_valued"):
        assert truth(_v(A.Compare("=", U, A.Const(1)), logic)) is False
        assert truth(_v(A.Compare("=", A.Const("1"), A.Const(1)), logic)) is True


# ----------------------------------------------------------------------------- SQL path == shared evaluator
_COLS = ("x", "y", "s")
values = st.one_of(st.none(), st.integers(-5, 5), st.fractions(-5, 5, max_denominator=4),
                   st.sampled_from(["", "a", "b", "1", "2.5"]))
consts = st.one_of(st.integers(-3, 3), st.sampled_from(["a", "1", ""]), st.booleans(),
                   st.fractions(-3, 3, max_denominator=3))


def _exprs():
    leaves = st.one_of(st.builds(A.Const, consts), st.sampled_from(_COLS).map(lambda c: ("col", c)))

    def extend(kids):
        return st.one_of(
            st.builds(lambda op, a, b: A.Compare(op, a, b), st.sampled_from(["=", "!=", "<", "<=", ">", ">="]),
                      kids, kids),
            st.builds(lambda op, a, b: A.BinOp(op, a, b), st.sampled_from(["+", "-", "*", "/", "%"]), kids, kids),
            st.builds(A.Neg, kids),
            st.builds(A.Not, kids),
            st.lists(kids, min_size=2, max_size=3).map(lambda xs: A.And(tuple(xs))),
            st.lists(kids, min_size=2, max_size=3).map(lambda xs: A.Or(tuple(xs))))
    return st.recursive(leaves, extend, max_leaves=8)


def _to(e, col):
    """The expression with its ("col", name) leaves made column references of one language."""
    if isinstance(e, tuple):
        return col(e[1])
    if isinstance(e, A.Const):
        return e
    if isinstance(e, (A.And, A.Or)):
        return type(e)(tuple(_to(x, col) for x in e.items))
    if isinstance(e, (A.Not, A.Neg)):
        return type(e)(_to(e.operand, col))
    return type(e)(e.op, _to(e.left, col), _to(e.right, col))


def _outcome(f):
    try:
        v = f()
    except EventError:
        return "EventError"
    except TypeError:        # Python refuses to order text and numbers: the same in both paths
        return "TypeError"
    return ("value", v, type(v))


@settings(max_examples=300, deadline=None)
@given(e=_exprs(), row=st.fixed_dictionaries({c: values for c in _COLS}),
       logic=st.sampled_from(["three_valued", "two_valued"]))
def test_sql_path_and_shared_evaluator_agree(e, row, logic):
    sql_e = _to(e, lambda c: S.ColRef("A", c))
    sase_e = _to(e, lambda c: A.AttrRef("A", c))
    ctx = Ctx([row], [0], ["A"], 0, {}, null_logic=logic)
    env = Env({"A": (0,)}, lambda pos, attr: row.get(attr), null_logic=logic)
    assert _outcome(lambda: sql_evaluate(sql_e, ctx)) == _outcome(lambda: evaluate(sase_e, env))
    if logic == "three_valued":
        held = _outcome(lambda: sql_holds(sql_e, ctx))
        assert held in ("EventError", "TypeError") or held[1] == truth(evaluate(sase_e, env))


@settings(max_examples=200, deadline=None)
@given(e=_exprs(), row=st.fixed_dictionaries({c: values for c in _COLS}))
def test_sql_default_is_three_valued(e, row):
    sql_e = _to(e, lambda c: S.ColRef("A", c))
    default = Ctx([row], [0], ["A"], 0, {})
    explicit = Ctx([row], [0], ["A"], 0, {}, null_logic="three_valued")
    assert _outcome(lambda: sql_evaluate(sql_e, default)) == _outcome(lambda: sql_evaluate(sql_e, explicit))


# ----------------------------------------------------------------------------- an independent oracle
def _oracle(e, row, logic):
    """The documented rules written out directly (as SQL's and SASE's evaluators had them before they
    shared one): three-valued SQL logic, or two-valued logic where a null comparison is false."""
    from cepkit.front.evaluate import compare_values
    if isinstance(e, tuple):
        return row.get(e[1])
    if isinstance(e, A.Const):
        return e.value
    if isinstance(e, A.Compare):
        x, y = _oracle(e.left, row, logic), _oracle(e.right, row, logic)
        if x is None or y is None:
            return None if logic == "three_valued" else False
        return compare_values(e.op, x, y)
    if isinstance(e, (A.BinOp, A.Neg)):
        xs = [_oracle(k, row, logic) for k in ((e.operand,) if isinstance(e, A.Neg) else (e.left, e.right))]
        if any(x is None for x in xs):
            return None
        if any(isinstance(x, str) or (isinstance(x, bool) and logic == "three_valued") for x in xs):
            raise EventError("non-number")
        if isinstance(e, A.Neg):
            return -xs[0]
        x, y = xs
        if e.op in "/%" and y == 0:
            return None
        return {"+": lambda: x + y, "-": lambda: x - y, "*": lambda: x * y, "%": lambda: x % y,
                "/": lambda: Fraction(x, y) if isinstance(x, int) and isinstance(y, int) else x / y}[e.op]()
    if logic == "two_valued":
        if isinstance(e, A.And):
            return all(truth(_oracle(x, row, logic)) for x in e.items)
        if isinstance(e, A.Or):
            return any(truth(_oracle(x, row, logic)) for x in e.items)
        return not truth(_oracle(e.operand, row, logic))
    if isinstance(e, A.Not):
        v = _oracle(e.operand, row, logic)
        return None if v is None else not bool(v)
    vals = [_oracle(x, row, logic) for x in e.items]
    if isinstance(e, A.And):
        return False if any(v is False for v in vals) else None if any(v is None for v in vals) else True
    return True if any(v is True for v in vals) else None if any(v is None for v in vals) else False


@settings(max_examples=300, deadline=None)
@given(e=_exprs(), row=st.fixed_dictionaries({c: values for c in _COLS}),
       logic=st.sampled_from(["three_valued", "two_valued"]))
def test_shared_evaluator_follows_the_documented_rules(e, row, logic):
    env = Env({"A": (0,)}, lambda pos, attr: row.get(attr), null_logic=logic)
    got = _outcome(lambda: evaluate(_to(e, lambda c: A.AttrRef("A", c)), env))
    assert got == _outcome(lambda: _oracle(e, row, logic))


# ----------------------------------------------------------------------------- window checks read the bound
def test_window_binding_reads_the_query_bound():
    from cepkit.front.binding import window_bound
    w = A.Window(10, None)
    assert window_bound(w, None, "strict").strict
    assert not window_bound(w, None, "inclusive").strict
    assert window_bound(w, None, "inclusive").inside(0, 0, 10, 1)
    assert not window_bound(w, None, "strict").inside(0, 0, 10, 1)
    assert window_bound(w, None).strict    # without a bound: the window's own flag (strict here)


def test_tpstream_window_reads_the_query_bound():
    from cepkit.front.tpstream.reads import window_ticks
    assert window_ticks(10, "inclusive") == 10
    assert window_ticks(10, "strict") == 9
    assert window_ticks(Fraction(21, 2), "strict") == 10
    assert window_ticks(Fraction(21, 2), "inclusive") == Fraction(21, 2)


def test_sql_within_reads_the_query_bound():
    from cepkit.reference.sql.run import run_rows
    rows = [{"ts": 0, "x": 1}, {"ts": 5, "x": 2}]
    text = "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES LAST(b.ts) AS e ONE ROW PER MATCH " \
           "PATTERN (a b) WITHIN 5{} DEFINE b AS b.x > a.x)"
    assert len(run_rows(parse_sql(text.format("")), ["ts", "x"], rows).rows) == 1          # 5 <= 5
    assert len(run_rows(parse_sql(text.format(" EXCLUSIVE")), ["ts", "x"], rows).rows) == 0  # not 5 < 5


def test_explain_prints_the_conventions():
    from cepkit.explain import explain_sase, explain_sql, explain_tpstream
    assert "-- conventions: null logic two-valued (null comparisons false); WITHIN strict (span < W)" in \
        explain_sase("PATTERN SEQ(A a, B b) WHERE skip_till_any_match { a.x < b.x } WITHIN 10")
    assert "-- conventions: null logic three-valued (SQL); WITHIN inclusive (span <= W)" in \
        explain_sql("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts PATTERN (a) WITHIN 5 DEFINE a AS a.x > 0)")
    assert "-- conventions: null logic two-valued (null comparisons false); WITHIN inclusive (span <= W)" in \
        explain_tpstream("FROM s DEFINE A AS x > 1, B AS y < 2 PATTERN A before B WITHIN 10")
