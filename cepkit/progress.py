"""The progress bar `cepkit run` shows on stderr."""
from __future__ import annotations

import sys
import time


class Progress:
    """A progress bar on stderr, shown only on a terminal and only once the work has taken 2 s; with a
    program's Budget (`watch`) it also shows the matches so far and the live partial matches."""

    def __init__(self, label: str, enabled: bool, open_ended: bool = False):
        self.label = label
        self.open_ended = open_ended  # chunked reading: the stream's length is not known, only the events so far
        self.offset = 0                # events of the chunks before the one being fed
        self.enabled = enabled and sys.stderr.isatty()
        self.start = time.monotonic()
        self.shown = False
        self.budget = None
        self.drawn = 0.0

    def watch(self, budget) -> "Progress":
        self.budget = budget
        return self

    def __call__(self, done: int, total: int) -> None:
        if self.open_ended:
            done, total = self.offset + done, -1
        elif total <= 0:
            return
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.start < 2.0 or (now - self.drawn < 0.1 and (done < total or total < 0)):
            return
        self.shown, self.drawn = True, now
        sys.stderr.write(f"\r{self.line(done, total)}\x1b[K")
        sys.stderr.flush()

    def line(self, done: int, total: int) -> str:
        """The bar: events done of total, then matches and live partial matches (peak) when watching."""
        width = 30
        if total < 0:
            text = f"{self.label} {done} events so far"
        else:
            filled = int(width * done / total)
            text = f"{self.label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} events"
        b = self.budget
        if b is not None:
            text += f", {b.matches + b.batch_matches:,} matches, {b.live:,} live partial matches (peak {b.peak:,})"
        return text

    def finish(self) -> None:
        if self.shown:
            sys.stderr.write("\n")
