"""A chunk's matches written while the next chunk is read and matched: one writer thread, one write in flight
(the writes stay in order; an error in one is raised by the next call, or by `wait`)."""
from __future__ import annotations

import contextvars
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable


class OverlappedWrites:
    """`write(table, batch)` handed to a thread when `enabled`, else called at once."""

    def __init__(self, write: Callable[..., Any], enabled: bool):
        self.write = write
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="cepkit-writer") if enabled else None
        self.pending: Future | None = None

    def __call__(self, table: Any, batch: Any = None) -> None:
        if self.pool is None:
            self.write(table, batch)
            return
        self.wait()   # the write runs in the caller's context (the run's time form, --max-ids: cepkit/forms.py)
        self.pending = self.pool.submit(contextvars.copy_context().run, self.write, table, batch)

    def wait(self) -> None:
        """Until the write in flight is done (its error raised here)."""
        pending, self.pending = self.pending, None
        if pending is not None:
            pending.result()

    def __enter__(self) -> "OverlappedWrites":
        return self

    def __exit__(self, kind, exc, tb) -> None:
        try:
            if kind is None:
                self.wait()
        finally:
            if self.pool is not None:   # a run that failed or was stopped: its last write ends before the
                self.pool.shutdown(wait=True)   # writer cleans up (the output left as it was)
