"""cepkit.plot_axes: tick values are round (nice numbers, round clock times) and times are written in the
axis's form."""
from __future__ import annotations

import math
from decimal import Decimal

import numpy as np
from hypothesis import assume, given, strategies as st

from cepkit.plot_axes import CLOCK_STEPS, TimeAxis, iso, nice_ticks

NS = 1_000_000_000
DAY_2008 = 1213056000 * NS  # 2008-06-10T00:00:00


def _is_nice(step: float) -> bool:
    """Whether a step is 1, 2, 2.5 or 5 × 10^k."""
    mantissa = step / 10 ** math.floor(math.log10(step))
    return any(math.isclose(mantissa, m, rel_tol=1e-6) for m in (1, 2, 2.5, 5, 10))


def test_the_old_html_ticks_are_replaced_by_round_ones():
    """The HTML's value axis of query3 over fig3_stream (prices 100..125, padded) read 98 / 112.5 / 127."""
    assert [label for _v, label in nice_ticks(98.0, 127.0)] == ["100", "105", "110", "115", "120", "125"]
    assert [label for _v, label in nice_ticks(0, 1)] == ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]
    assert [label for _v, label in nice_ticks(0, 14)][:3] == ["0.0", "2.5", "5.0"]


@given(st.floats(-1e9, 1e9), st.floats(1e-6, 1e9), st.integers(3, 10))
def test_ticks_are_round_multiples_within_the_range(lo, width, most):
    assume(width > 1e-6 * abs(lo))   # (a span lost in the digits of its offset: not drawn; times start at 0)
    hi = lo + width
    ticks = nice_ticks(lo, hi, most)
    assert 1 <= len(ticks) <= most + 1
    assert all(lo - width * 1e-6 <= v <= hi + width * 1e-6 and float(label) == v for v, label in ticks)
    labels = [Decimal(label) for _v, label in ticks]       # what is shown, exactly
    if len(labels) > 1:
        step = labels[1] - labels[0]
        assert _is_nice(float(step))
        assert all(b - a == step for a, b in zip(labels, labels[1:]))
        assert all(label % step == 0 for label in labels)    # multiples of the step
        assert len(labels) >= most // 2.5 - 1                # not too few either


@given(st.integers(0, 86_400 * NS), st.integers(NS, 30 * 86_400 * NS))
def test_clock_ticks_are_round_times(start, width):
    """Clock ticks fall on whole seconds, minutes, hours or days of UTC, whatever the first event's time."""
    t0 = DAY_2008 + start
    axis = TimeAxis.of([t0, t0 + width], "ns", datetimes=True)
    ticks = axis.ticks(0.0, width / NS)
    assert len(ticks) >= 2
    stamps = [t0 + round(x * NS) for x, _ in ticks]
    step = stamps[1] - stamps[0]
    if step < NS:
        assert _is_nice(step)
    else:
        assert step // NS in CLOCK_STEPS or step % (86400 * NS) == 0
    assert all(min(s % step, step - s % step) <= 2 for s in stamps)   # on the step's multiples (a float's ns)
    full = [str(np.datetime_as_string(np.datetime64(s, "ns"))) for s in stamps]   # ....THH:MM:SS.fffffffff
    assert all(label in text for text, (_x, label) in zip(full, ticks))


def test_times_are_written_as_the_axis_draws_them():
    one_day = TimeAxis.of([DAY_2008 + 9 * 3600 * NS, DAY_2008 + 10 * 3600 * NS], "ns", datetimes=True)
    assert one_day.label == "time (UTC), 2008-06-10"
    assert one_day.text(DAY_2008 + 9 * 3600 * NS + 1_500_000) == "09:00:00.001500"
    days = TimeAxis.of([DAY_2008, DAY_2008 + 3 * 86400 * NS], "ns", datetimes=True)
    assert days.label == "time (UTC)" and days.text(DAY_2008 + 60 * NS) == "2008-06-10T00:01:00"
    seconds = TimeAxis.of([1213056000, 1213056060], "s")          # integers with a unit, in 2008: clock time
    assert seconds.clock and seconds.text(1213056060) == "00:01:00"
    assert TimeAxis.of([0, 240], "s").text(41) == "41 s"          # 1970: ticks of the unit
    assert TimeAxis.of([1, 7], None).text(np.int64(5)) == "5"
    assert [iso(1213088520 * NS + f) for f in (0, 120_000_000, 123_400_000, 1)] == [
        "2008-06-10T09:02:00", "2008-06-10T09:02:00.120", "2008-06-10T09:02:00.123400",
        "2008-06-10T09:02:00.000000001"]
