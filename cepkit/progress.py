"""The progress display of cepkit's commands on stderr: tqdm's bar (done of total, percentage, rate, time left
where the total is known), drawn only on a terminal and only once the work has taken DELAY seconds; tqdm is
imported when the first bar is drawn, never at start-up (scripts/lazy_imports.py, test_start_imports.py)."""
from __future__ import annotations

import contextlib
import os
import sys
import time
from typing import Any, Callable, Iterator

from cepkit.summary_line import quiet

DELAY = 2.0        # seconds of work before a bar appears (quick work shows nothing)
REDRAW = 0.1       # seconds between two draws at most
# tqdm's lines, with the rate always per second ("0.40 tasks/s", not "2.50s/ tasks")
KNOWN = "{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_noinv_fmt}{postfix}]"
OPEN = "{desc}: {n_fmt}{unit} [{elapsed}, {rate_noinv_fmt}{postfix}]"


def delay() -> float:
    """DELAY, or the seconds $CEPKIT_PROGRESS_DELAY gives (tests: 0)."""
    try:
        return float(os.environ.get("CEPKIT_PROGRESS_DELAY", DELAY))
    except ValueError:
        return DELAY


def on_terminal() -> bool:
    """Whether stderr is a terminal (a bar is never written into a pipe or a file)."""
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def terminal_width() -> int:
    """stderr's width in columns, 0 where the terminal does not say."""
    try:
        return os.get_terminal_size(sys.stderr.fileno()).columns
    except (AttributeError, ValueError, OSError):
        return 0


class Bar:
    """A bar of `done` of `total` `unit`s (total None: a count and its rate), with a `note` after the rate.
    `update` draws it when due; `close` draws the last state (if the bar was shown) and ends its line. `scale`:
    counts shown as 1.20M, 45.0k (for events; not for tens of vectors)."""

    def __init__(self, label: str, enabled: bool = True, total: int | None = None, unit: str = " events",
                 scale: bool = True):
        self.label, self.total, self.unit, self.scale = label, total, unit, scale
        self.enabled = enabled and on_terminal()
        self.start = time.monotonic()
        self.delay = delay()
        self.done = 0
        self.note = ""
        self.bar: Any = None     # the tqdm bar, once drawn
        self.drawn = 0.0

    @property
    def shown(self) -> bool:
        return self.bar is not None

    def update(self, done: int, total: int | None = None, note: str | None = None) -> None:
        """The work done so far (and its total, and the note, where they changed); drawn when due."""
        self.done = done
        if total is not None:
            self.total = total
        if note is not None:
            self.note = note
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.start < self.delay or now - self.drawn < REDRAW:
            return
        self.drawn = now
        self._draw()

    def _draw(self) -> None:
        if self.bar is None:
            from tqdm import tqdm  # lazy: start-up (a bar is drawn only on a terminal, after DELAY seconds)

            sized = terminal_width() > 0   # follows the terminal's size where it has one (a pty may have none)
            self.bar = tqdm(desc=self.label, total=self.total, unit=self.unit, unit_scale=self.scale,
                            postfix=self.note or None, file=sys.stderr, leave=True, dynamic_ncols=sized,
                            ncols=None if sized else 80, nrows=None if sized else 24, mininterval=0,
                            bar_format=KNOWN if self.total else OPEN, delay=1e-9)   # (delay: not drawn yet)
            shift = time.monotonic() - self.start   # its clock from the start of the work: the elapsed time
            self.bar.start_t -= shift               # and the rates count the work done before the first draw
            self.bar.last_print_t -= shift
        bar = self.bar
        if self.total is not None and self.total != bar.total:
            bar.total, bar.bar_format = max(self.total, self.done), KNOWN
        if self.note:
            bar.set_postfix_str(self.note, refresh=False)
        if self.done != bar.n:
            bar.update(self.done - bar.n)
        else:
            bar.refresh()

    def close(self) -> None:
        """The last state drawn and the line ended, where the bar was shown."""
        if self.bar is None:
            return
        bar, self.bar = self.bar, None
        bar.total, bar.bar_format = max(self.total or 0, self.done), KNOWN   # done: a count was the whole
        if self.note:
            bar.set_postfix_str(self.note, refresh=False)
        bar.n = self.done
        bar.close()   # its last draw, and the line ended


class Progress(Bar):
    """`cepkit run`'s bar: the engine's (done, total) events of the batch it is fed, as the Progress callback of
    cepkit.core.contract; `offset` is the events of the chunks fed before (chunked reading), whose total is the
    file's events where `count` finds them. With a program's Budget (`watch`) the note is the matches so far
    and the live partial matches, "live runs" (and their peak)."""

    def __init__(self, label: str, enabled: bool, open_ended: bool = False,
                 count: Callable[[], int | None] | None = None):
        super().__init__(label, enabled)
        self.open_ended = open_ended   # chunked reading: the engine's total is the chunk's, not the stream's
        self.offset = 0
        self.count = count if self.enabled else None   # the events of the whole input, or None (unknown)
        self.budget = None

    def watch(self, budget) -> "Progress":
        self.budget = budget
        return self

    def __call__(self, done: int, total: int) -> None:
        if self.open_ended:
            done, total = self.offset + done, (self.count() if self.count is not None else None)
        elif total <= 0:
            return
        self.update(done, total, self.matches())

    def matches(self) -> str:
        """The matches so far and the live partial matches (peak), when watching a Budget."""
        b = self.budget
        if b is None:
            return ""
        return f"{b.matches + b.batch_matches:,} matches, {b.live:,} live runs (peak {b.peak:,})"

    def finish(self) -> None:
        self.note = self.matches()
        self.close()


@contextlib.contextmanager
def engine_progress(label: str, args: Any, program: Any) -> Iterator[Progress]:
    """The bar of a program's run over its whole input (as `program.run(batch, progress)` takes it), with
    its matches and live runs; none with -q."""
    bar = Progress(label, not quiet(args)).watch(program.budget)
    try:
        yield bar
    finally:
        bar.finish()
