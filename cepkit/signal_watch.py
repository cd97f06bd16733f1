"""SIGTERM and Ctrl-C end the command line's run within about a second, also inside a compiled kernel.

Python runs a signal handler in the main thread between two bytecodes, so a Numba kernel that never comes
back to Python would delay it until the kernel returns (minutes for an exploding pattern). The kernels
release the GIL (`nogil=True`), and the C-level handler writes the signal's number to a wake-up pipe
(`signal.set_wakeup_fd`): a daemon thread reads it and, when the main thread's handler has not run within
`GRACE` seconds, stops the process itself: this process's temporary files removed (cepkit.temp_files), one
line, exit 130 (SIGINT) or 143 (SIGTERM), the output file as it was. A run whose handler did run but that has
not ended `UNWIND` seconds later is stopped the same way (the handler's exception was lost somewhere); one
whose handler raised inside a weakref callback or a finalizer, where Python drops the exception ("Exception
ignored in ..."), is stopped at once (`dropped_signal`, the command line's sys.unraisablehook). docs/semantics.md
L6d.
"""
from __future__ import annotations

import os
import signal
import sys
import threading
from typing import Callable

from cepkit.temp_files import remove_own

GRACE = 1.0   # seconds the main thread has to answer a signal before the watch stops the process
UNWIND = 10.0  # seconds the run then has to end (a handler's exception can be lost: raised in a weakref callback)
CODES = {signal.SIGINT: 130, signal.SIGTERM: 143}
NAMES = {signal.SIGINT: "SIGINT (Ctrl-C)", signal.SIGTERM: "SIGTERM"}


class SignalWatch:
    """The wake-up pipe and its thread; `answered()` is called by the main thread's handlers."""

    def __init__(self, stop: Callable[[int, str], None]) -> None:
        self.stop = stop   # called with the signal's number and why, when the run did not end by itself
        self.answered_event = threading.Event()
        self.closed_event = threading.Event()   # the command ended (it handled the signal, or none came)
        self.read_end, self.write_end = os.pipe()
        os.set_blocking(self.write_end, False)
        self.before = signal.set_wakeup_fd(self.write_end, warn_on_full_buffer=False)
        self.thread = threading.Thread(target=self._loop, name="cepkit-signal-watch", daemon=True)
        self.thread.start()

    def answered(self) -> None:
        """The main thread runs its handler: the run unwinds by itself (cleaning up on the way)."""
        self.answered_event.set()

    def close(self) -> None:
        """The command ended: give the wake-up descriptor back (the thread stays blocked on a pipe no one
        writes, a daemon)."""
        self.closed_event.set()
        signal.set_wakeup_fd(self.before)

    def _loop(self) -> None:
        while True:
            try:
                data = os.read(self.read_end, 64)
            except OSError:
                return
            if not data:
                return
            for signum in data:
                if signum not in CODES or self.closed_event.is_set():
                    continue
                if not self.answered_event.wait(GRACE):
                    self.stop(signum, "stopped inside the engine")   # native code: the handler never ran
                # the handler ran and the run unwinds; had its exception been dropped somewhere (a broad
                # `except`), the run would go on
                if not self.closed_event.wait(UNWIND):
                    self.stop(signum, "the run did not end after the signal")


class Terminated(BaseException):
    """SIGTERM, raised where the run is, so that it unwinds as Ctrl-C does (cleaning up on the way)."""


def signal_of(exc: BaseException) -> int | None:
    """The signal behind a handler's exception (Terminated: SIGTERM, KeyboardInterrupt: SIGINT), else None."""
    return signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT if isinstance(exc, KeyboardInterrupt) \
        else None


def stopped_line(signum: int, output: str | None, why: str = "") -> str:
    """What the command line says when a signal stopped the run."""
    kept = f"; {output} is as it was" if output and output != "-" else ""
    return f"cepkit: stopped by {NAMES[signum]}{kept}{f' ({why})' if why else ''}"


def end_process(code: int, line: str, output: str | None) -> None:
    """Stop the process from any thread: this process's temporary files removed (the output file as it was),
    `line` on standard error, exit `code`."""
    try:
        remove_own(output)
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    finally:
        os._exit(code)


def stop_process(signum: int, output: str | None, why: str = "") -> None:
    """end_process for a signal: its line, its exit code (130, 143)."""
    end_process(CODES[signum], stopped_line(signum, output, why), output)


def dropped_signal(watch: SignalWatch, exc: BaseException) -> bool:
    """For sys.unraisablehook: a signal's exception that Python dropped (raised by the handler inside a weakref
    callback or a finalizer, "Exception ignored in ..."; the run would go on) stops the process now; False for
    any other exception (the default hook reports it)."""
    signum = signal_of(exc)
    if signum is None:
        return False
    watch.stop(signum, "the signal arrived inside a finalizer")
    return True
