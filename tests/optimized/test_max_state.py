"""The optimized kernel keeps to the run's budget (issue 14): it stops after the event that passes
max_state (ResourceLimit naming the variable) or brings the matches to the limit."""
from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import cepkit
from cepkit.core.errors import CepkitWarning, ResourceLimit
from cepkit.core.readers import read_events

LIMITS = Path(__file__).resolve().parents[2] / "examples" / "limits"
EXPLOSIVE = (LIMITS / "explosive.sase").read_text()


@pytest.fixture(scope="module")
def events():
    return read_events(LIMITS / "explosive.csv")


def compile_quiet(text, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CepkitWarning)
        return cepkit.compile(text, **options)


def test_unmerged_runs_pass_max_state(events):
    program = compile_quiet(EXPLOSIVE, engine="optimized", merge=False, max_state=1000)
    with pytest.raises(ResourceLimit, match="more than 1,000 live partial matches, most of them at pattern "
                                            "variable a .*WITHIN"):
        program.run(events)
    assert 1000 < program.budget.peak <= 2 * 1000 + 1  # each event at most doubles the runs here


def test_unmerged_tables_stay_within_max_state(events):
    """The kernel sizes its run planes for what max_state allows, not for an event's worst case (4 x runs):
    an event stops once it made more runs than the bound (issue 30: 3.9 GB before exit 4 at 1,000,000)."""
    program = compile_quiet(EXPLOSIVE, engine="optimized", merge=False, max_state=1000)
    with pytest.raises(ResourceLimit, match="more than 1,000 live partial matches"):
        program.run(events)
    assert program.R.shape[1] <= 2048   # the worst case of the last event (512 runs) was 4 x 512 + 8 rows
    assert program.budget.peak == 1001  # the event stopped at the first run past the bound


@pytest.mark.parametrize("merge", [True, False])
@pytest.mark.parametrize("limit", [1, 10, 200])
def test_limit_equals_the_reference_prefix(events, merge, limit):
    prefix = events.slice(0, 12)
    reference = compile_quiet(EXPLOSIVE).run(prefix)
    cut = compile_quiet(EXPLOSIVE, engine="optimized", merge=merge, limit=limit).run(events)
    assert cut.rows() == reference.rows()[:limit]


def test_limit_stops_the_kernel(events):
    """Matches double with each B: all 40 events would give about 2^37 matches. With limit=10 the kernel
    stops at the second B, and runs fewer partial matches than over the 12-event prefix unlimited."""
    program = compile_quiet(EXPLOSIVE, engine="optimized", merge=False, limit=10)
    assert len(program.run(events)) == 10
    whole = compile_quiet(EXPLOSIVE, engine="optimized", merge=False)
    whole.run(events.slice(0, 12))
    assert program.counters.partial_matches < whole.counters.partial_matches
    assert program.budget.peak < whole.budget.peak


def test_peak_is_the_largest_state_inside_a_feed(events):
    program = compile_quiet(EXPLOSIVE, engine="optimized", merge=False)
    program.run(events.slice(0, 12))
    # after event 11 (a B) the A runs number 2^9 - 1 = 511 (one per non-empty subset of the 9 As)
    assert program.budget.peak >= 511


def test_merged_runs_count_as_the_matches_they_stand_for(events):
    """Merging folds the 2^k subsets of the As into a few runs; without a window each member path stays live,
    so max_state counts them (issue 30): 12 As before the fourth B are 4,095 paths, past 1,000."""
    program = compile_quiet(EXPLOSIVE, engine="optimized", max_state=1000)
    assert program.merging
    with pytest.raises(ResourceLimit, match="more than 1,000 live partial matches, most of them at pattern "
                                            "variable a "):
        program.run(events.slice(0, 16))
    assert program.budget.peak > 1000


def test_matches_of_an_event_are_counted_before_they_are_built(events):
    """With a window the merged members expire, so runs count once; the matches an event completes are
    counted before they are materialized (2^12 - 1 at the fourth B), past max_state."""
    program = compile_quiet(EXPLOSIVE.replace("RETURN", "WITHIN 1000\nRETURN"), engine="optimized", max_state=1000)
    assert program.merging
    with pytest.raises(ResourceLimit, match="more than 1,000 matches completed at once"):
        program.run(events.slice(0, 16))
    # under the bound the same run completes
    assert len(compile_quiet(EXPLOSIVE.replace("RETURN", "WITHIN 1000\nRETURN"), engine="optimized",
                             max_state=5000).run(events.slice(0, 16))) == 7 + 63 + 511 + 4095


@pytest.mark.parametrize("engine", ["optimized-lazy"])
def test_lazy_kernels_count_an_events_matches_inside_it(events, engine):
    """The Numba lazy chain waits at B with few instances; at the fourth B it enumerates 4,095 subsets of
    the As in one event (issue 30). The Kleene kernels count the matches an event completes and stop inside
    it, past max_state."""
    program = compile_quiet(EXPLOSIVE, engine=engine, max_state=1000)
    with pytest.raises(ResourceLimit, match="more than 1,000 live partial matches"):
        program.run(events.slice(0, 16))
    assert len(compile_quiet(EXPLOSIVE, engine=engine, max_state=5000).run(events.slice(0, 16))) \
        == 7 + 63 + 511 + 4095


@pytest.mark.parametrize("engine", ["optimized-lazy", "optimized-eager"])
def test_lazy_kernels_stop_at_the_limit(events, engine):
    """limit=10 stops the Kleene kernels after the second B (70 matches), long before the B whose subsets
    pass the budget: 10 matches, the reference's first 10, and no ResourceLimit (max_state 5,000 here)."""
    reference = compile_quiet(EXPLOSIVE).run(events.slice(0, 8)).rows()[:10]
    program = compile_quiet(EXPLOSIVE, engine=engine, limit=10, max_state=5000)
    assert program.run(events).rows() == reference


PARTITION_KLEENE = "PATTERN SEQ(S+ a[], S b) WHERE partition-contiguity AND [symbol] AND b.volume < 10"


@pytest.fixture(scope="module")
def long_partition():
    """One symbol, 200 events, the last 5 with a small volume: each of them ends about 200 matches (every
    start of a contiguous run of As) of about 100 events each, 100,000 events bound in all by 1,000 matches."""
    import pandas as pd

    return pd.DataFrame({"id": range(200), "ts": range(200), "type": "S", "symbol": 1,
                         "volume": [100] * 195 + [1] * 5})


@pytest.mark.parametrize("engine", ["optimized", "reference"])
@pytest.mark.parametrize("merge", [True, False])
def test_the_events_held_matches_bind_are_bounded(long_partition, engine, merge):
    """A partition-contiguity Kleene closure without WITHIN keeps few runs and completes few matches at once,
    but their events explode (issue 30): the matches a feed holds bind at most HELD_EVENTS x max_state events."""
    options = {"merge": merge} if engine == "optimized" else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CepkitWarning)
        full = cepkit.run(PARTITION_KLEENE, long_partition, engine=engine, dialect="sase+", max_state=10_000,
                          **options)
        assert len(full) == 195 + 196 + 197 + 198 + 199
        with pytest.raises(ResourceLimit, match="the matches held before they are output bind more than "
                                                "64,000 events .*--max-state"):
            cepkit.run(PARTITION_KLEENE, long_partition, engine=engine, dialect="sase+", max_state=1000, **options)


def test_many_matches_of_many_events_in_one_feed_are_not_an_explosion():
    """max_state bounds the matches one event completes at once, not those of a whole feed: 20 Bs after 20 As
    complete 20 matches each, 400 in one feed, under max_state=50 (this session's first cut counted the feed:
    a 1 M-event program.run of seq3 stopped with exit 4 at the default bound)."""
    import pandas as pd

    from cepkit.core.readers import from_pandas

    rows = [{"type": "A", "ts": i} for i in range(20)] + [{"type": "B", "ts": 20 + i} for i in range(20)]
    program = compile_quiet("PATTERN SEQ(A a, B b) WHERE skip_till_any_match(a, b) { a.ts < b.ts } WITHIN 100", engine="optimized",
                            max_state=50)
    assert program.merging
    assert len(program.run(from_pandas(pd.DataFrame(rows)))) == 400


def test_bounds_beyond_64_bits_bound_nothing_and_run(tmp_path, capsys):
    """--max-state / --limit of 10^30 (the fuzz: OverflowError, then a Numba typing traceback in the optimized
    kernels' int64 counters): held as 2^50 (core/contract.py UNREACHABLE), the run is the unbounded one."""
    from cepkit.cli import main

    root = Path(__file__).resolve().parents[2]
    args = ["run", str(root / "examples" / "sase1_stock.query"), str(root / "examples" / "stocks.csv"),
            "--no-progress", "--engine", "optimized"]
    assert main(args) == 0
    plain = capsys.readouterr().out
    assert main(args + ["--max-state", "1" + "0" * 30, "--limit", "1" + "0" * 30]) == 0
    assert capsys.readouterr().out == plain and plain


CONSECUTIVE = "PATTERN SEQ(A+ a[], B b) WHERE skip_till_any_match(a[], b) { a[i].price = a[i-1].price + 1 }"


def _rising(n):
    import pandas as pd

    from cepkit.core.readers import from_pandas

    rows = [{"id": i, "ts": i, "type": "A", "price": i} for i in range(n)] + [{"id": n, "ts": n, "type": "B", "price": 0}]
    return from_pandas(pd.DataFrame(rows))


@pytest.mark.parametrize("engine", ["reference-lazy", "optimized-lazy"])
def test_a_lazy_buffer_counts_the_instances_it_stands_for(engine):
    """A Kleene state's c buffered candidates stand for 2^c instances, enumerated when a later event comes
    (issue 30): past max_state they are the bound's ResourceLimit before any is enumerated. Few of them match
    here (the contiguous runs of As: n(n+1)/2), so counting matches never fired: 30 As hung the lazy engines,
    70 raised ValueError inside the Numba kernel (more than 62 candidates)."""
    for n in (30, 70):
        with pytest.raises(ResourceLimit, match="pattern variable a"):
            compile_quiet(CONSECUTIVE, engine=engine).run(_rising(n))
    small = compile_quiet(CONSECUTIVE, engine=engine, max_state=1000).run(_rising(9))   # 2^9 = 512 instances
    assert small.rows() == compile_quiet(CONSECUTIVE, engine="optimized").run(_rising(9)).rows()
    assert len(small) == 45
    with pytest.raises(ResourceLimit, match="more than 500 live"):
        compile_quiet(CONSECUTIVE, engine=engine, max_state=500).run(_rising(9))
