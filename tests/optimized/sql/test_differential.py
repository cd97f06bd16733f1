"""The optimized MATCH_RECOGNIZE engine against the reference on random queries and tables: the same match
table (columns, and rows as a multiset) or the same error (class and message). The optimized program is fed
the table in random chunks, the reference in one batch. A query the optimized engine refuses (Unsupported,
at compile time) is rejected, except in the core scope, which it must run."""
from __future__ import annotations

from collections import Counter

import pandas as pd
import pytest
from hypothesis import HealthCheck, event, given, note, reject, settings
from hypothesis import strategies as st

from cepkit import compile
from cepkit.core import registry
from cepkit.core.errors import CepkitError, Unsupported
from cepkit.core.match_table import MatchTable
from tests.sql.strategies import core_queries, numbered_conditions, patterns, queries, tables

ENGINE = "optimized"
BASELINE = "reference"

pytestmark = pytest.mark.skipif(("sql", ENGINE) not in registry.ENGINES,
                                reason=f"no '{ENGINE}' engine for sql in core/registry.py ENGINES")


def _scaled(divisor: int, floor: int = 3, **extra):
    """A share of the profile's examples: each example is a new query, whose DEFINE and MEASURES the
    optimized engine compiles (about 1.5 s), so these tests take 1/120 .. 1/320 of the profile (CI: 6, 6, 8
    and 3 examples, which keeps the suite under 15 minutes; dev: 3 each; HYPOTHESIS_PROFILE=thorough: 3x)."""
    return settings(max_examples=max(floor, settings().max_examples // divisor), deadline=None, **extra)


def frame(rows: list[dict], columns: list[str]) -> pd.DataFrame:
    """The table with nullable integer columns (nulls stay nulls, values stay exact integers)."""
    return pd.DataFrame({c: pd.array([r[c] for r in rows], dtype="Int64") for c in columns})


def outcome(engine: str, query: str, rows: list[dict], cuts: list[int] | None = None, reread: bool = False) -> tuple:
    """('table', columns, canonical rows) or ('error', class name, message) of the query on the engine: fed
    whole, or cut at `cuts` (offsets into the ordered table; empty pieces too) as slices of one batch or,
    with `reread`, as batches read one by one (positional ids then number on across batches).
    Unsupported at compile time propagates."""
    try:
        program = compile(query, language="sql", engine=engine)
    except Unsupported:
        raise
    except CepkitError as exc:
        return ("error", type(exc).__name__, str(exc))
    columns = list(rows[0]) if rows else ["ts", "k", "x", "y"]
    parsed = registry.parse("sql", query)
    try:
        bounds = [0] + sorted(min(c, len(rows)) for c in cuts or []) + [len(rows)]
        if reread:
            pieces = [registry.read_input("sql", engine, frame(rows[lo:hi], columns), query=parsed)
                      for lo, hi in zip(bounds, bounds[1:])]
        else:
            batch = registry.read_input("sql", engine, frame(rows, columns), query=parsed)
            pieces = [batch.slice(lo, hi) for lo, hi in zip(bounds, bounds[1:])]
        tables = [program.feed(piece) for piece in pieces]
        table = MatchTable.concat(program.layout, tables + [program.close()])
    except CepkitError as exc:
        return ("error", type(exc).__name__, str(exc))
    return ("table", table.layout.column_names(), table.canonical())


def check_agrees(query: str, rows: list[dict], cuts: list[int], stats: Counter, refusals_allowed: bool,
                 reread: bool = False) -> None:
    note(query)
    note("\n".join(map(str, rows)))
    try:
        got = outcome(ENGINE, query, rows, cuts, reread)
    except Unsupported as exc:
        if not refusals_allowed:
            raise
        stats["refused"] += 1
        event(f"refused: {exc.construct}")
        reject()
    want = outcome(BASELINE, query, rows)
    stats[want[0]] += 1
    event(f"{want[0]}: {want[1] if want[0] == 'error' else 'rows' if want[2] else 'no rows'}")
    assert got == want


cuts_st = st.lists(st.integers(0, 40), max_size=4)


def test_optimized_equals_reference():
    """Random queries over every construct of the strategies (MATCH_NUMBER() in DEFINE too); refused ones
    are rejected (Hypothesis fails with Unsatisfiable when it finds no query the engine runs)."""
    stats: Counter = Counter()

    @_scaled(160, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(rows=tables(), cuts=cuts_st, reread=st.booleans(), query=queries(condition_st=numbered_conditions))
    def check(query, rows, cuts, reread):
        check_agrees(query, rows, cuts, stats, refusals_allowed=True, reread=reread)

    check()
    assert stats["table"] > 0, stats


def test_core_queries_run_and_equal_reference():
    """The core scope (strategies.core_queries) is never refused, and its tables are the reference's."""
    stats: Counter = Counter()

    @_scaled(160)
    @given(rows=tables(), cuts=cuts_st, reread=st.booleans(), query=core_queries())
    def check(query, rows, cuts, reread):
        check_agrees(query, rows, cuts, stats, refusals_allowed=False, reread=reread)

    check()
    assert stats["table"] > 0, stats  # a few examples (6 in dev): errors may equal tables by chance


@_scaled(320, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(rows=tables(max_rows=12, partitions=2), query=queries())
def test_fed_one_row_per_batch(query, rows):
    """Streaming at its finest grain: one row per batch, each read on its own."""
    check_agrees(query, rows, list(range(len(rows))), Counter(), refusals_allowed=True, reread=True)


ALL_MATCHES = ("ALL MATCHES", "ALL MATCHES SKIP_TILL_NEXT_MATCH", "ALL MATCHES SKIP_TILL_ANY_MATCH")


def test_all_matches_equal_reference():
    """The thesis' ALL MATCHES mode under its three strategies: random patterns, DEFINE and MEASURES."""
    stats: Counter = Counter()

    @_scaled(120, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(rows=tables(max_rows=14), cuts=cuts_st,
           query=queries(pattern_st=patterns(max_leaves=4, anchors=False, extras=False, var_weight=4),
                         rows=ALL_MATCHES, select=False, skip=False))
    def check(query, rows, cuts):
        check_agrees(query, rows, cuts, stats, refusals_allowed=False)

    check()
    assert stats["table"] > 0, stats
