"""The axes of `cepkit plot` as people read them: round tick values ("nice numbers": 1, 2, 2.5 or 5 × 10^k,
as matplotlib's MaxNLocator picks them), clock-time ticks on round times of day, and every time written in
the axis's form (ISO 8601 clock time in UTC, or a count of the query's unit)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from cepkit.core.events import TIME_UNITS

NICE = (1.0, 2.0, 2.5, 5.0, 10.0)
# clock-time steps in seconds: round seconds, minutes, hours, days; past a week, nice numbers of days
CLOCK_STEPS = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
               172800, 604800)
DAY = 86400
# timestamps that stand for times between these (seconds since 1970) are drawn as clock times
CLOCK_FROM, CLOCK_TO = 3.2e7, 7.3e9


def nice_step(span: float, most: int) -> float:
    """The smallest nice step (1, 2, 2.5, 5 × 10^k) that cuts `span` into at most `most` pieces."""
    raw = span / max(1, most) if span > 0 else 1.0
    mag = 10.0 ** math.floor(math.log10(raw))
    return next(m * mag for m in NICE if m * mag >= raw * (1 - 1e-9))


def decimals(step: float) -> int:
    """How many decimals show every multiple of `step` exactly (2.5 -> 1, 0.25 -> 2, 20 -> 0)."""
    for d in range(0, 16):
        if abs(round(step, d) - step) <= step * 1e-9:
            return d
    return 15


def nice_ticks(lo: float, hi: float, most: int = 6) -> list[tuple[float, str]]:
    """(value, label) of the multiples of a nice step between `lo` and `hi`, at most `most` + 1 of them."""
    if hi <= lo:
        lo, hi = lo - 0.5, hi + 0.5
    step = nice_step(hi - lo, most)
    d = decimals(step)
    first = math.ceil(lo / step - 1e-9)
    out = []
    k = first
    while k * step <= hi + step * 1e-9:
        value = round(k * step, d)
        out.append((value, f"{value:.{d}f}" if d else f"{value:.0f}"))
        k += 1
    return out


@dataclass(frozen=True)
class TimeAxis:
    """How the timestamps of a plot are drawn and written. A clock axis draws seconds since `t0` (the
    first timestamp, in ticks of `unit`) and writes times as ISO 8601 in UTC; any other draws the ticks as
    they are and writes them with the unit's name (`48 s`), or bare when the unit is not known."""

    unit: str | None
    clock: bool = False
    t0: int = 0
    day: str | None = None       # a clock axis's one day (YYYY-MM-DD) when every time is on it: times of day
    name: str | None = None      # the axis label, where not the time's kind (AFA: "time (LE)")

    @classmethod
    def of(cls, ts: list[int], unit: str | None, datetimes: bool = False) -> "TimeAxis":
        """Clock time for timestamps read from dates, or integers with a unit that land between 1971 and 2200."""
        if ts and unit in TIME_UNITS:
            t0 = min(ts)
            seconds = t0 * TIME_UNITS[unit] / 1e9
            if datetimes or CLOCK_FROM < seconds < CLOCK_TO:
                first, last = (iso(t * TIME_UNITS[unit])[:10] for t in (t0, max(ts)))
                return cls(unit, True, t0, first if first == last else None)
        return cls(unit)

    @property
    def label(self) -> str:
        """The axis label: the time's kind, and the day where the times are times of that day."""
        if self.name:
            return self.name
        if self.clock:
            return f"time (UTC), {self.day}" if self.day else "time (UTC)"
        return f"time ({self.unit})" if self.unit else "time (ticks)"

    def x(self, tick: float) -> float:
        """Where a timestamp (ticks of the unit) is drawn."""
        if self.clock:
            return (tick - self.t0) * TIME_UNITS[self.unit] / 1e9
        return float(tick)

    def text(self, tick) -> str:
        """A timestamp as the legend and the hover text write it, in the axis's form: ISO 8601 (the time of
        day alone where the axis label names the day), or the count and the unit."""
        number = _int(tick)
        if self.clock and number is not None:
            text = iso(number * TIME_UNITS[self.unit])
            return text[11:] if self.day and text.startswith(self.day) else text
        if number is None:
            return str(tick)
        return f"{number} {self.unit}" if self.unit else str(number)

    def ticks(self, lo: float, hi: float, most: int = 6) -> list[tuple[float, str]]:
        """(x, label) of round ticks between drawn positions `lo` and `hi`: nice numbers, or round clock
        times (whole seconds, minutes, hours, days)."""
        if not self.clock:
            return nice_ticks(lo, hi, most)
        if hi <= lo:
            hi = lo + 1
        raw = (hi - lo) / most
        if raw < 1:
            step_ns = max(1, round(nice_step(hi - lo, most) * 1e9))
        else:
            step_s = next((s for s in CLOCK_STEPS if s >= raw), None)
            step_ns = (step_s or round(nice_step((hi - lo) / DAY, most)) * DAY) * 1_000_000_000
        base = self.t0 * TIME_UNITS[self.unit]
        lo_ns, hi_ns = base + math.floor(lo * 1e9), base + math.ceil(hi * 1e9)
        out = []
        at = -(-lo_ns // step_ns) * step_ns
        while at <= hi_ns:
            out.append(((at - base) / 1e9, _clock_label(at, step_ns)))
            at += step_ns
        return out


def iso(ns: int) -> str:
    """ISO 8601 of nanoseconds since 1970 (UTC, no zone written): the fraction only where there is one,
    in 3, 6 or 9 digits."""
    text = np.datetime_as_string(np.datetime64(int(ns), "ns"))
    whole, _, fraction = text.partition(".")
    fraction = fraction.rstrip("0")
    if not fraction:
        return whole
    return f"{whole}.{fraction.ljust(3 * math.ceil(len(fraction) / 3), '0')}"


def _clock_label(ns: int, step_ns: int) -> str:
    """A clock tick's label: the date for steps of days, else the time of day (with the fraction a
    sub-second step needs)."""
    text = str(np.datetime_as_string(np.datetime64(int(ns), "ns")))   # YYYY-MM-DDTHH:MM:SS.fffffffff
    if step_ns >= DAY * 1_000_000_000:
        return text[:10]
    places = decimals(step_ns / 1e9) if step_ns < 1_000_000_000 else 0
    return text[11:19] + (text[19:20 + places] if places else "")


def _int(value) -> int | None:
    """A timestamp's integer tick count, or None (null, a fraction)."""
    if isinstance(value, (bool, np.bool_)) or value is None:
        return None
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)) and math.isfinite(value) and float(value).is_integer():
        return int(value)
    return None
