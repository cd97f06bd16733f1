"""Limits in the engine contract (issue 14): limit=N stops after N matches, max_state=N bounds the live
partial matches (ResourceLimit, exit 4, naming the variable), and a Kleene closure without WITHIN warns."""
from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import cepkit
from cepkit.api import unbounded_kleene
from cepkit.core import registry
from cepkit.core.contract import DEFAULT_MAX_STATE, Budget
from cepkit.core.errors import CepkitWarning, QueryError, ResourceLimit
from cepkit.core.readers import read_events

LIMITS = Path(__file__).resolve().parents[2] / "examples" / "limits"
EXPLOSIVE = (LIMITS / "explosive.sase").read_text()
COUNTING = ["reference", "reference-eager", "reference-lazy"]


@pytest.fixture(scope="module")
def events():
    return read_events(LIMITS / "explosive.csv")


def compile_quiet(text, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CepkitWarning)
        return cepkit.compile(text, **options)


@pytest.mark.parametrize("engine", ["reference", "reference-eager"])  # the lazy chain holds the As in a
def test_max_state_names_the_kleene_variable(engine, events):              # buffer: its instances stay few
    program = compile_quiet(EXPLOSIVE, engine=engine, max_state=1000)
    with pytest.raises(ResourceLimit) as info:
        program.run(events)
    assert info.value.exit_code == 4
    message = str(info.value)
    assert "more than 1,000 live partial matches" in message and "pattern variable a " in message
    assert "WITHIN" in message


@pytest.mark.parametrize("engine", COUNTING)
@pytest.mark.parametrize("limit", [1, 7, 10, 30])
def test_limit_gives_the_first_matches_of_the_full_run(engine, limit, events):
    prefix = events.slice(0, 12)  # Bs after 3, 6 and 9 As: 7 + 63 + 511 matches
    full = compile_quiet(EXPLOSIVE, engine=engine).run(prefix)
    cut = compile_quiet(EXPLOSIVE, engine=engine, limit=limit).run(prefix)
    assert len(full) == 7 + 63 + 511
    assert cut.rows() == full.rows()[:limit]


@pytest.mark.parametrize("engine", COUNTING)
def test_limit_stops_the_engine_before_the_explosion(engine, events):
    """Over all 40 events the state passes the default max_state; with limit=10 the engine stops at the
    second B (event 7) and never meets it."""
    program = compile_quiet(EXPLOSIVE, engine=engine, limit=10)
    assert program.budget.max_state == DEFAULT_MAX_STATE
    assert len(program.feed(events)) == 10
    assert program.budget.peak < 1000
    assert len(program.feed(events.slice(0, 4))) == 0 and len(program.close()) == 0


def test_limit_counts_across_feeds(events):
    program = compile_quiet(EXPLOSIVE, limit=9)
    first = program.feed(events.slice(0, 4))
    second = program.feed(events.slice(4, 12))
    assert (len(first), len(second)) == (7, 2)


@pytest.mark.parametrize("value", [0, -3, 2.5, "10", True])
@pytest.mark.parametrize("option", ["limit", "max_state"])
def test_budget_options_must_be_positive_integers(option, value):
    with pytest.raises(QueryError, match=f"option '{option}' must be a positive integer"):
        cepkit.compile("PATTERN SEQ(A a, B b)", **{option: value})


def test_every_engine_counts_its_state_or_refuses_max_state():
    """No engine ignores max_state silently: it counts its live state or refuses the option by name."""
    counting = set()
    for (lang, name), entry in registry.ENGINES.items():
        try:
            cls = registry.load(entry.target)
        except ImportError:  # a device engine whose driver is not installed
            continue
        if cls.counts_state:
            counting.add((lang, name))
            continue
        with pytest.raises(QueryError, match=f"engine '{name}' takes no max_state"):
            cls.check_budget(max_state=5)
        assert cls.check_budget(limit=5) == (5, None, None)
    assert counting == {("sase", n) for n in ("reference", "reference-eager", "reference-lazy", "reference-tree",
                                              "optimized", "optimized-eager", "optimized-lazy", "optimized-tree")} \
        | {("sql", "reference"), ("sql", "optimized")}


SQL_ALL_MATCHES = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES COUNT(*) AS n ALL MATCHES "
                   "SKIP_TILL_ANY_MATCH PATTERN (A+ B) DEFINE A AS v > 0, B AS v < 0)")


@pytest.mark.parametrize("engine", ["reference", "optimized"])
def test_sql_all_matches_counts_runs_and_held_matches(engine):
    """ALL MATCHES under skip_till_any forks a run per subset of the A rows: 15 A rows give 32,767 matches;
    max_state bounds the live runs plus the matches held, naming the variable most runs are at."""
    import pandas as pd

    df = pd.DataFrame({"ts": range(16), "v": [1] * 15 + [-1]})
    with pytest.warns(CepkitWarning):
        assert len(cepkit.run(SQL_ALL_MATCHES, df, language="sql", engine=engine)) == 2**15 - 1
    with pytest.warns(CepkitWarning), pytest.raises(ResourceLimit, match="more than 1,000 live partial matches, "
                                                                          "most of them at pattern variable A "):
        cepkit.run(SQL_ALL_MATCHES, df, language="sql", engine=engine, max_state=1000)


def test_sql_mode_threads_are_counted():
    """SQL:2016 mode: the lockstep VM's live threads after each row are the state (deduplicated, so a normal
    query keeps a handful)."""
    import pandas as pd

    q = ("SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES COUNT(*) AS n ONE ROW PER MATCH "
         "PATTERN ((A | B)+ C) DEFINE A AS v > 0, B AS v > 0, C AS v < 0)")
    df = pd.DataFrame({"ts": range(30), "v": [1] * 29 + [-1]})
    with pytest.warns(CepkitWarning):
        program = cepkit.compile(q, language="sql")
    program.run(registry.read_input("sql", "reference", df, program.query))
    assert 1 <= program.budget.peak <= 10


def test_budget_take_cuts_and_counts(events):
    table = compile_quiet(EXPLOSIVE).run(events.slice(0, 8))  # 7 + 63 matches
    budget = Budget(limit=50)
    assert len(budget.take(table)) == 50 and budget.stopped and budget.matches == 50
    assert len(Budget(limit=None).take(table)) == len(table)


@pytest.mark.parametrize("language, text, var", [
    ("sase", EXPLOSIVE, "a"),
    ("sase", "PATTERN SEQ(A a, B+ b[], C c) WHERE skip_till_next_match(a, b[], c) { a.x > 0 }", "b"),
    ("sase", EXPLOSIVE.replace("RETURN", "WITHIN 10\nRETURN"), None),
    ("sase", "PATTERN SEQ(A a, B b)", None),
    ("sql", "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts ONE ROW PER MATCH PATTERN (A B+) "
            "DEFINE B AS B.price > A.price)", "B"),
    ("sql", "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts ONE ROW PER MATCH PATTERN (A B{2,}) "
            "DEFINE B AS B.price > A.price)", "B"),
    ("sql", "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts ONE ROW PER MATCH PATTERN (A B{1,3}) "
            "DEFINE B AS B.price > A.price)", None),
])
def test_kleene_without_within_warns(language, text, var):
    q = registry.parse(language, text)
    assert unbounded_kleene(language, q) == var
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        cepkit.compile(text, language=language)
    found = [w for w in seen if issubclass(w.category, CepkitWarning)]
    assert len(found) == (var is not None)
    if var is not None:
        assert f"Kleene closure of {var} has no WITHIN" in str(found[0].message)


def test_lazy_chain_counts_inside_the_event(events):
    """The lazy chain waits at B and enumerates the subsets of the buffered As when a B comes: the fourth B
    completes 4,095 matches in one event while few instances wait (issue 30). max_state counts what the event
    builds, and stops inside it."""
    program = compile_quiet(EXPLOSIVE, engine="reference-lazy", max_state=1000)
    with pytest.raises(ResourceLimit, match="more than 1,000 live partial matches"):
        program.run(events.slice(0, 16))
    assert len(compile_quiet(EXPLOSIVE, engine="reference-lazy", max_state=5000).run(events.slice(0, 16))) \
        == 7 + 63 + 511 + 4095


def test_memory_bound_and_allocation_failure_are_resource_limits(events):
    """max_memory (issue 30): a bound below what the process already holds stops the first feed, and a
    MemoryError inside an engine is a ResourceLimit naming the bound, never a traceback."""
    program = compile_quiet(EXPLOSIVE, engine="reference", max_memory="1M", limit=10)
    with pytest.raises(ResourceLimit, match=r"past the bound of 1 MiB \(the bound: --max-memory, max_memory=\)"):
        program.run(events)
    program = compile_quiet(EXPLOSIVE, engine="reference", max_memory=1 << 40)
    assert program.budget.max_memory == 1 << 40

    def fail(*args, **kwargs):
        raise MemoryError("Allocation failed")

    program._feed = fail
    with pytest.raises(ResourceLimit, match="an allocation failed .*--max-memory"):
        program.feed(events)
    with pytest.raises(QueryError, match="max_memory"):
        compile_quiet(EXPLOSIVE, max_memory="lots")


def test_brute_holds_its_matches_under_the_default_bound(events):
    """The brute-force engine refuses an explicit max_state (it holds no partial matches) but the matches it
    enumerates before output count against the run's bound (issue 30): 7 + 63 + 511 + 4,095 over 16 events."""
    program = compile_quiet(EXPLOSIVE, engine="brute")
    program.budget.max_state = 1000   # what the default bound does at 1,000,000
    with pytest.raises(ResourceLimit, match="more than 1,000 matches completed at once"):
        program.run(events.slice(0, 16))
    assert len(compile_quiet(EXPLOSIVE, engine="brute").run(events.slice(0, 16))) == 7 + 63 + 511 + 4095


@pytest.mark.parametrize("selection", ["all", "non_overlap"])
@pytest.mark.parametrize("query", [EXPLOSIVE, "PATTERN SEQ(A a, !(C c), B b) WHERE skip_till_any_match(a, b) "
                                              "{ a.price >= 0 } WITHIN 6 RETURN b.price AS p"])
def test_brute_limit_gives_the_first_matches_of_the_full_run(selection, query, events):
    prefix = events.slice(0, 12)
    full = compile_quiet(query, engine="brute", selection=selection).run(prefix)
    assert len(full) >= 3
    for limit in (1, 2, 3, 8, 100):
        cut = compile_quiet(query, engine="brute", selection=selection, limit=limit).run(prefix)
        assert cut.rows() == full.rows()[:limit]


def test_brute_limit_stops_before_the_explosion(events):
    """With --limit the brute-force engine enumerates one end event at a time, in output order, and stops once
    the matches wanted are known: over all 40 events it never holds the 2^37 matches (issue 30)."""
    program = compile_quiet(EXPLOSIVE, engine="brute", limit=10)
    program.budget.max_state = 1000   # what the default bound does at 1,000,000
    assert len(program.run(events)) == 10
