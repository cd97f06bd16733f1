"""Differential tests: the gpu filter, aggregation and join equal the reference on random streams
(small device batches, so state crosses batch boundaries)."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cepkit.gpu.aggregate import aggregate_rows
from cepkit.gpu.filter import filter_rows
from cepkit.gpu.join import join_rows_gpu
from cepkit.core.errors import EventError, Unsupported
from cepkit.reference.windows.aggregate import FUNCS
from cepkit.reference.windows.api import aggregate_batch, filter_batch, join_batches
from tests.gpu.strategies import batches, specs

SETTINGS = settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
WHERE = ["v > 3", "v * 2 <= f", "f * 3 - v / 2 > 0.5", "(f + 0.1) / v < ts", "s < 'b' OR v IS NULL",
         "NOT (v % 3 = 1) AND s != '10'", "f >= 0.25",
         "s > 5", "-v = ts", "v / (ts - 2) >= 1 / 3", "ts / v < '2.5'"]
ON = ["L.v <= R.v", "L.s = R.s AND L.v != R.v", "L.f < R.v OR R.s IS NULL", "L.v + R.v > L.ts - R.ts",
      "L.v / R.v = R.ts / L.v", "L.f + R.f > L.v * 0.5"]


@SETTINGS
@given(batch=batches(80), where=st.sampled_from(WHERE), batch_size=st.sampled_from([1, 33, 1 << 20]))
def test_filter_equals_reference(batch, where, batch_size):
    """The same rows, or the same event error (text in a column ordered against a number: RD-12)."""
    assert _outcome(lambda: filter_rows(batch, where, batch_size=batch_size)) == \
        _outcome(lambda: filter_batch(batch, where))


def _outcome(run):
    try:
        return run()
    except EventError as exc:
        return ("event error", exc.row, exc.column)


@SETTINGS
@given(batch=batches(), spec=specs(), attr=st.sampled_from(["v", "f"]), skip=st.booleans(),
       batch_size=st.sampled_from([1, 7, 1 << 20]))
def test_aggregate_equals_reference(batch, spec, attr, skip, batch_size):
    want = aggregate_batch(batch, attr, spec, FUNCS, "naive", skip)
    assert aggregate_rows(batch, attr, spec, FUNCS, skip, batch_size=batch_size) == want


@SETTINGS
@given(left=batches(), right=batches(), lw=specs(), rw=specs(), on=st.sampled_from(ON),
       active=st.sampled_from(["strict", "warmup"]), batch_size=st.sampled_from([1, 5, 1 << 20]))
def test_join_equals_reference(left, right, lw, rw, on, active, batch_size):
    try:
        want = join_batches(left, right, on, lw, rw, active)
    except EventError:
        return
    try:
        got = join_rows_gpu(left, right, on, lw, rw, active, batch_size=batch_size)
    except Unsupported as exc:       # L.f is float64 and '+' would compute on it
        assert "float64" in exc.construct
        return
    assert got == want


def test_many_words_and_probes_scan_in_segments():
    """Streams longer than the scan's work-group (256 words / probes), so every thread scans a segment."""
    import numpy as np
    import pandas as pd

    from cepkit.gpu.filter import filter_indices
    from cepkit.core.readers import from_pandas
    from cepkit.front.windows.spec import WindowSpec

    rng = np.random.default_rng(5)

    def stream(n):
        df = pd.DataFrame({"ts": np.cumsum(rng.integers(0, 2, n)), "v": rng.integers(0, 40, n)})
        return from_pandas(df, type_col=None, default_type="e")

    big = stream(50_000)
    assert np.array_equal(filter_indices(big, "v > 3 AND v % 5 != 0", batch_size=20_000),
                          np.flatnonzero((big.columns["v"] > 3) & (big.columns["v"] % 5 != 0)))
    left, right, w = stream(1_500), stream(1_500), WindowSpec("count", 8, 3)
    assert join_rows_gpu(left, right, "L.v < R.v", w, w) == join_batches(left, right, "L.v < R.v", w, w)


def test_long_windows_combine_block_partials_exactly():
    """Windows of hundreds of events read whole blocks from partials; sums pass 2^64 (128-bit)."""
    import numpy as np
    import pandas as pd

    from cepkit.core.readers import from_pandas
    from cepkit.front.windows.spec import WindowSpec

    rng = np.random.default_rng(11)
    n = 2_000
    v = rng.integers(2 ** 61, 2 ** 62, n).astype(object)
    v[rng.random(n) < 0.2] = None
    df = pd.DataFrame({"ts": np.cumsum(rng.integers(0, 3, n)), "v": v,
                       "f": np.round(rng.normal(size=n) * 1e3, 3)})
    batch = from_pandas(df, type_col=None, default_type="e")
    for spec in (WindowSpec("time", 500, 7), WindowSpec("count", 300, 1), WindowSpec("count", 700, 650, "zero")):
        for attr in ("v", "f"):
            for batch_size in (1 << 20, 600):
                assert aggregate_rows(batch, attr, spec, FUNCS, batch_size=batch_size) == \
                    aggregate_batch(batch, attr, spec, FUNCS), (spec, attr, batch_size)
