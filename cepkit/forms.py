"""How a run writes values as text: the run's timestamp form (`--ts-format`), the ids per variable a text
table shows, one cell's text, the text table, and one JSON line. The writers (cepkit.output,
cepkit.match_output) share them."""
from __future__ import annotations

import contextlib
import contextvars
import json
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Sequence

import numpy as np

from cepkit.core.errors import CepkitError
from cepkit.core.match import json_safe, plain
from cepkit.core.match_json import text_bytes

if TYPE_CHECKING:
    import pandas as pd


class TsFormatError(CepkitError):
    """`--ts-format` cannot be applied to these timestamps (a usage error)."""

    exit_code = 2


# ---------------------------------------------------------------------------------------------
# Timestamps in the input's form (docs/semantics.md TS-1..TS-3).

TS_FORMATS = ("auto", "ticks", "iso")


@dataclass
class TimeForm:
    """How timestamp-like output columns are written: `spec` is `auto` (the input's form: ISO 8601 when
    the input's timestamps were datetimes, ticks when they were numbers), `ticks`, `iso`, or a strftime
    pattern. `unit` is the unit of numeric ticks (--ts-unit), needed to show them as times. `learn` takes
    the input's form from the events read (EventBatch.ts_datetime / ts_tz)."""

    spec: str = "auto"
    unit: str | None = None
    datetime: bool = False
    tz: str | None = None
    learned: bool = False

    def learn(self, batch: Any) -> None:
        if self.learned or batch is None:
            return
        self.learned = True
        if getattr(batch, "ts_datetime", False):
            self.datetime, self.tz, self.unit = True, batch.ts_tz, "ns"
        elif getattr(batch, "ts_unit", None) is not None:
            self.unit = batch.ts_unit
        self.check()

    def check(self) -> None:
        """TsFormatError when timestamps are to be shown as times but their unit is not known."""
        if self.mode != "ticks" and self.unit is None:
            raise TsFormatError(f"--ts-format {self.spec} shows timestamps as times, but the events' timestamps "
                                f"are numbers of unknown unit: add --ts-unit (ns, us, ms, s, min, h, d) to count "
                                f"them from 1970-01-01T00:00:00 UTC, or use --ts-format ticks")

    @property
    def mode(self) -> str:
        """ticks, iso or pattern."""
        if self.spec == "auto":
            return "iso" if self.datetime else "ticks"
        return self.spec if self.spec in ("ticks", "iso") else "pattern"

    def timestamp(self, value: Any) -> Any:
        """The pandas Timestamp a tick count stands for (in the input's zone; naive without one), or None
        where it stands for none (null, infinity, a fraction of a nanosecond, out of range)."""
        # lazy: start-up (pandas and core.events, which loads it: for times shown only)
        import pandas as pd
        from cepkit.core.events import TIME_UNITS

        if value is None or isinstance(value, bool) or self.unit is None:
            return None
        if isinstance(value, float):
            if not math.isfinite(value) or not value.is_integer():
                return None
            value = int(value)
        try:
            ns = Fraction(value) * TIME_UNITS[self.unit]
        except (TypeError, ValueError):
            return None
        if ns.denominator != 1:
            return None
        try:
            t = pd.Timestamp(int(ns), tz="UTC")
        except (OverflowError, ValueError):
            return None
        if not self.tz:
            return t.tz_localize(None)
        try:
            return t.tz_convert(self.tz)
        except (KeyError, ValueError, TypeError):  # a zone name this pandas cannot read back: the same instant in UTC
            self.tz = "UTC"
            return t

    def text(self, value: Any) -> Any:
        """One timestamp as output text (ISO 8601 with every digit down to the nanosecond and the zone the
        input had, or the strftime pattern); a value that stands for no time is left as it is."""
        if self.mode == "ticks":
            return value
        t = self.timestamp(value)
        if t is None:
            return value
        return t.isoformat() if self.mode == "iso" else t.strftime(self.spec)

    def texts(self, values: Sequence[Any]) -> list[Any]:
        """`text` of each value, the integers at once (numpy: a few microseconds a value, where pandas'
        Timestamp.isoformat takes forty); the same text, digit for digit."""
        # lazy: start-up (pandas and core.events, which loads it: for times shown only)
        import pandas as pd
        from cepkit.core.events import TIME_UNITS

        out = list(values)
        if self.mode == "ticks" or self.unit is None:
            return out
        at = [i for i, v in enumerate(out) if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))]
        rest = set(range(len(out))) - set(at)
        factor = TIME_UNITS[self.unit]
        ints = [int(out[i]) for i in at]
        if ints and (max(ints) * factor > _NS_MAX or min(ints) * factor < _NS_MIN):  # out of range: one by one
            rest, at = set(range(len(out))), []
        for i in rest:
            out[i] = self.text(out[i])
        if not at:
            return out
        utc = np.asarray(ints, dtype=np.int64) * np.int64(factor)
        if self.mode == "pattern" or (self.tz and self.tz != "UTC" and not _fixed(self.tz)):
            stamps = pd.DatetimeIndex(utc.view("M8[ns]")).tz_localize("UTC")
            if self.tz:
                try:
                    stamps = stamps.tz_convert(self.tz)
                except (KeyError, ValueError, TypeError):
                    self.tz = "UTC"
            else:
                stamps = stamps.tz_localize(None)
            if self.mode == "pattern":
                for i, t in zip(at, stamps.strftime(self.spec)):
                    out[i] = t
                return out
            wall = stamps.tz_localize(None).asi8
        else:
            wall = utc + np.int64(_offset_minutes(self.tz) * 60_000_000_000) if self.tz else utc
        minutes = ((wall - utc) // 60_000_000_000).tolist()
        seconds = np.datetime_as_string((wall // 1_000_000_000).view("M8[s]")).tolist()
        fractions = (wall % 1_000_000_000).tolist()
        zones: dict[int, str] = {}
        for i, s, f, m in zip(at, seconds, fractions, minutes):
            zone = "" if not self.tz else zones.get(m) or zones.setdefault(m, _offset_text(m))
            frac = "" if f == 0 else (f".{f // 1000:06d}" if f % 1000 == 0 else f".{f:09d}")
            out[i] = s + frac + zone
        return out

    def series(self, values: Iterable[Any], fmt: str) -> Any:
        """A frame column of timestamps for output format `fmt`: Parquet keeps real timestamps
        (timestamp[ns] with the zone) where every value is one; text formats get `text`."""
        import pandas as pd

        values = [None if _null(v) else v for v in values]
        if fmt == "parquet":
            stamps = [self.timestamp(v) for v in values]
            if all(t is not None or v is None for t, v in zip(stamps, values)):
                utc = np.array([np.datetime64("NaT", "ns") if t is None else np.datetime64(t.value, "ns")
                                for t in stamps], dtype="M8[ns]")
                index = pd.DatetimeIndex(utc).tz_localize("UTC")  # Timestamp.value: UTC nanoseconds
                index = index.tz_convert(self.tz) if self.tz else index.tz_localize(None)
                return pd.Series(index)
            return pd.Series([self.text(v) for v in values], dtype=object)
        return pd.Series(self.texts(values), dtype=object)


_NS_MAX, _NS_MIN = (1 << 63) - 1, -(1 << 63)


def _null(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or type(value).__name__ == "NaTType"


def exact_frame(records: Sequence[dict], columns: Sequence[str], exact: Sequence[str]) -> pd.DataFrame:
    """A frame of `records`; the `exact` columns (timestamps) hold Python values, so that a null among
    integers does not turn them into float64 (which rounds nanosecond ticks past 2^53)."""
    import pandas as pd

    table = pd.DataFrame(list(records), columns=list(columns))
    for c in exact:
        if c in table.columns:
            table[c] = pd.Series([r.get(c) for r in records], dtype=object, index=table.index)
    return table


def frame_csv(table: pd.DataFrame) -> str:
    """pandas' CSV of a frame (no index; Python's csv module), with a text cell or name holding a carriage
    return quoted as RFC 4180 asks and as cepkit.match_output.csv_quote does: the csv module leaves a lone
    CR bare with '\\n' line ends, and readers then split the row there. Such a CR goes to the writer as a
    newline and a marker character found nowhere in the frame's text (so the cell is quoted), and comes back."""
    columns = [table.iloc[:, k] for k in range(table.shape[1])]   # by position: names may repeat
    texts = [c for c in table.columns if isinstance(c, str)] + [v for col in columns if col.dtype == object
                                                              for v in col if isinstance(v, str)]
    if not any("\r" in t for t in texts):
        return table.to_csv(index=False)
    every = "".join(texts)
    mark = "\n" + next(chr(c) for c in range(0xE000, 0x110000) if chr(c) not in every)

    def marked(v: Any) -> Any:
        return v.replace("\r", mark) if isinstance(v, str) else v

    names = [marked(c) for c in table.columns]
    table = table.set_axis(range(len(names)), axis=1)   # (a copy)
    for k, col in enumerate(columns):
        if col.dtype == object:
            table[k] = type(col)([marked(v) for v in col], index=col.index, dtype=object)  # (map() infers floats)
    table.columns = names
    return table.to_csv(index=False).replace(mark, "\r")


def _fixed(tz: str) -> bool:
    """Whether a zone is a fixed UTC offset "+HH:MM" (readers.tz_name writes them so)."""
    return len(tz) == 6 and tz[0] in "+-" and tz[3] == ":"


def _offset_minutes(tz: str) -> int:
    if tz == "UTC":
        return 0
    sign = 1 if tz[0] == "+" else -1
    return sign * (int(tz[1:3]) * 60 + int(tz[4:6]))


def _offset_text(minutes: int) -> str:
    """An ISO 8601 UTC offset as pandas' isoformat writes it: +HH:MM (+00:00 for UTC)."""
    sign = "+" if minutes >= 0 else "-"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


_TIME_FORM: contextvars.ContextVar[TimeForm] = contextvars.ContextVar("cepkit_time_form")


def time_form() -> TimeForm:
    """The timestamp form of this run (`use_time_form`), else ticks (a fresh one: what is learned outside a
    run is forgotten)."""
    form = _TIME_FORM.get(None)
    return form if form is not None else TimeForm(spec="ticks")  # outside `cepkit run`: as computed


@contextlib.contextmanager
def use_time_form(form: TimeForm) -> Iterator[TimeForm]:
    """`form` for the output written inside the block (cepkit run sets it from --ts-format, --ts-unit)."""
    token = _TIME_FORM.set(form)
    try:
        yield form
    finally:
        _TIME_FORM.reset(token)


def note_input(batch: Any) -> None:
    """The events were read: their timestamps' form (datetimes or numbers, and the zone) decides how `auto`
    writes timestamps. The first batch read decides."""
    time_form().learn(batch)


_MAX_IDS: contextvars.ContextVar[int] = contextvars.ContextVar("cepkit_max_ids", default=5)


@contextlib.contextmanager
def use_max_ids(n: int) -> Iterator[None]:
    """`--format table` shows at most `n` ids per bound variable inside the block (0: all of them)."""
    token = _MAX_IDS.set(n)
    try:
        yield
    finally:
        _MAX_IDS.reset(token)


def max_ids() -> int:
    """The most ids per bound variable `--format table` shows in this block (0: all)."""
    return _MAX_IDS.get()


def ids_text(ids: Sequence[Any], limit: int | None = None) -> str:
    """A bound variable's ids for a table cell: `[e1, e2, e3, … 17 more]` past `limit` ids (0: all)."""
    limit = _MAX_IDS.get() if limit is None else limit
    shown = list(ids) if not limit or len(ids) <= limit else list(ids)[:limit]
    more = f", … {len(ids) - len(shown)} more" if len(shown) < len(ids) else ""
    return "[" + ", ".join(str(i) for i in shown) + more + "]"


def cell_text(value: Any) -> str:
    """One value as a text-table cell: null, true / false, else the text of its plain value."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(plain(value))


def numeric(value: Any) -> bool:
    """Whether a table cell's value is a number (the column is right-aligned)."""
    return isinstance(value, (int, float, Fraction)) and not isinstance(value, bool) or \
        type(value).__module__ == "numpy" and getattr(value, "dtype", None) is not None and value.dtype.kind in "iuf"


def render_table(table: pd.DataFrame) -> str:
    """The frame as an aligned text table: a header, a rule, one line per row; numbers right-aligned, other
    cells left-aligned, columns two spaces apart."""
    import pyarrow as pa

    columns = [str(c) for c in table.columns]
    cells = [pa.array([cell_text(v) for v in table.iloc[:, k]], pa.string()) for k in range(len(columns))]
    right = [bool(len(table)) and all(numeric(v) or v is None for v in table.iloc[:, k]) for k in range(len(columns))]
    return render_columns(columns, cells, right)


# what str.rstrip() strips: every character whose str.isspace() is true
RSTRIP_SPACES = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200b))) + \
    "\u2028\u2029\u202f\u205f\u3000"


def render_columns(columns: Sequence[str], cells: Sequence[Any], right: Sequence[bool]) -> str:
    """The text table of a header and columns of cell texts (Arrow string arrays): a header, a rule, one line
    per row; the `right` columns right-aligned, the others left-aligned, two spaces apart; each line with
    its trailing whitespace removed. The rows are padded and joined column by column.

    Kept by hand rather than tabulate or rich's Table: its bytes are pinned by the tests and shown in the
    docs, and measured on 100 000 rows × 3 columns it takes 0.5 s where tabulate takes 2.8 s (and writes
    0.0 as 0, 1.0 as 1) and rich's Table 8 s for 20 000 rows."""
    import pyarrow.compute as pc

    widths = [max([len(c)] + ([pc.max(pc.utf8_length(a)).as_py()] if len(a) else [])) for c, a in zip(columns, cells)]

    def line(texts: list[str]) -> str:
        return "  ".join(c.rjust(w) if r else c.ljust(w) for c, w, r in zip(texts, widths, right)).rstrip()

    head = [line(list(columns)), line(["-" * w for w in widths])]
    if not cells or not len(cells[0]):
        return "\n".join(head)
    padded = [pc.utf8_lpad(a, w) if r else pc.utf8_rpad(a, w) for a, w, r in zip(cells, widths, right)]
    rows = padded[0] if len(padded) == 1 else pc.binary_join_element_wise(*padded, "  ")
    rows = pc.utf8_rtrim(rows, RSTRIP_SPACES)
    return "\n".join(head) + "\n" + bytes(text_bytes(rows)).decode("utf-8")[:-1]


def ts_record(record: dict, ts_columns: Sequence[str]) -> dict:
    """A JSON record with its timestamp fields in this run's form."""
    return ts_records([record], ts_columns)[0]


def ts_records(records: Iterable[dict], ts_columns: Sequence[str]) -> list[dict]:
    """JSON records with their timestamp fields in this run's form (each column converted at once)."""
    records = list(records)
    form = time_form()
    if form.mode == "ticks" or not records:
        return records
    form.check()
    records = [dict(r) for r in records]
    for c in ts_columns:
        rows = [r for r in records if c in r]
        for r, text in zip(rows, form.texts([r[c] for r in rows])):
            r[c] = text
    return records


def ts_frame(table: pd.DataFrame, ts_columns: Sequence[str], fmt: str) -> pd.DataFrame:
    """A frame with its timestamp columns in this run's form (Parquet: real timestamps)."""
    form = time_form()
    if form.mode == "ticks":
        return table
    form.check()
    table = table.copy()
    for c in ts_columns:
        if c in table.columns:
            table[c] = form.series(table[c].tolist(), fmt).set_axis(table.index)
    return table


def json_line(record: Any) -> str:
    """One strict JSON line: non-finite floats as the strings "Infinity", "-Infinity", "NaN" (as the
    protobuf JSON mapping writes them), other non-JSON values as their text."""
    return json.dumps(json_safe(record), default=str, allow_nan=False) + "\n"
