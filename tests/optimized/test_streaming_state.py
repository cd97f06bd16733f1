"""State carried across feed calls stays bounded by the window, and chunked feeding of a longer stream
gives the reference's matches."""
from __future__ import annotations

from benchmarks.workloads.stock import generate
from cepkit import compile
from cepkit.core.readers import from_pandas

QUERY = ("PATTERN SEQ(stock+ a[], stock b) WHERE skip-till-next-match AND [symbol] AND a[1].price % 5 = 0 "
         "AND a[i].price > min(a[..i-1].price) AND b.volume < 150 WITHIN 40")


def test_store_and_buffer_bounded_by_window():
    batch = from_pandas(generate(12_000, seed=3))
    program = compile(QUERY, engine="optimized")
    got, chunk, peak_store = [], 500, 0
    for lo in range(0, len(batch), chunk):
        got += program.feed(batch.slice(lo, lo + chunk))
        peak_store = max(peak_store, len(program.store.ts))
        # runs live at most one window (ts = position here), so the store holds that window plus one chunk
        assert program.store.end - program.store.base <= 40 + chunk
    got += program.close()
    assert peak_store <= 40 + 2 * chunk
    assert program.arena.shape[0] < 4 * 4096  # dead runs' buffer nodes are reclaimed between feeds
    assert got == compile(QUERY).run(batch)


def test_leading_negation_without_window_keeps_history():
    """A leading negation with no window may be blocked by any earlier event: nothing is dropped."""
    text = "PATTERN SEQ(!(stock z), stock a, stock b) WHERE skip_till_next_match { z.price = 1000 and a.price = 999 and b.price = 998 }"
    batch = from_pandas(generate(3_000, seed=5))
    program = compile(text, engine="optimized")
    got = []
    for lo in range(0, len(batch), 250):
        got += program.feed(batch.slice(lo, lo + 250))
    assert program.store.base == 0
    assert got + program.close() == compile(text).run(batch)


def test_unshared_buffer_gives_the_same_matches_with_more_nodes():
    """share_buffer=False copies each run's bindings (spec/000 §5.1 off): same answer, more buffer nodes."""
    batch = from_pandas(generate(3_000, seed=4))
    shared = compile(QUERY, engine="optimized")
    private = compile(QUERY, engine="optimized", share_buffer=False)
    assert shared.feed(batch) == private.feed(batch)
    assert private.arena.shape[0] > shared.arena.shape[0]  # peak buffer size


def _peak_state(text: str, n: int, chunk: int) -> tuple[dict, list]:
    """The largest state_size() after any chunk of a stream of n events, and the matches."""
    batch = from_pandas(generate(n, seed=2))
    program = compile(text, engine="optimized")
    peak: dict[str, int] = {}
    got = []
    for lo in range(0, n, chunk):
        got += program.feed(batch.slice(lo, lo + chunk))
        for key, value in program.state_size().items():
            peak[key] = max(peak.get(key, 0), value)
    return peak, got + program.close()


def test_live_state_of_a_ten_times_longer_stream_stays_at_the_same_bound():
    """Runs, buffer nodes, allocations and stored events do not grow with the stream's length."""
    window, chunk = 200, 500
    text = ("PATTERN SEQ(stock+ a[], stock b) WHERE skip_till_next_match { [symbol] and a[1].price % 7 = 0 and "
            f"a[i].price > a[i-1].price and b.volume < 150 }} WITHIN {window}")
    short, _ = _peak_state(text, 4_000, chunk)
    long, matches = _peak_state(text, 40_000, chunk)
    assert short["runs"] > 10 and len(matches) > 100  # the workload keeps runs alive
    assert long["stored_events"] <= window + chunk  # ts = position: one window plus the chunk
    assert long["buffer_rows"] == short["buffer_rows"] and long["run_rows"] == short["run_rows"]
    assert long["runs"] <= 1.5 * short["runs"] and long["buffer_nodes"] <= 1.5 * short["buffer_nodes"]
    assert long["held_matches"] == 0


def test_merged_runs_do_not_keep_the_stream_history():
    """With merging (p1-like: every run of a symbol merges into one), members that left the window are
    dropped: the merged run's buffer stays at what the window holds, and the matches are the reference's."""
    window, chunk = 200, 500
    text = ("PATTERN SEQ(stock+ a[], stock b) WHERE skip_till_next_match { [symbol] and a[1].price % 5 = 0 and "
            f"b.volume < 3 }} WITHIN {window}")
    short, matches = _peak_state(text, 4_000, chunk)
    long, _ = _peak_state(text, 40_000, chunk)
    assert short["runs"] <= 4  # one merged run per symbol and state
    assert matches == compile(text).run(from_pandas(generate(4_000, seed=2)))
    assert long["stored_events"] <= window + chunk
    assert long["buffer_rows"] == short["buffer_rows"] and long["buffer_nodes"] <= 1.5 * short["buffer_nodes"]
