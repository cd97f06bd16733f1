"""The per-run memory bound (`--max-memory`, `max_memory=`): the process's resident memory, watched.

Why a watch and not `resource.setrlimit(RLIMIT_AS)`: an address-space limit also counts what is reserved and
never touched (LLVM's JIT, Numba's and Arrow's allocators, a JVM's heap reservation inherited by a Spark child),
so it fails runs that use little memory and cannot be lifted once lowered. The resident set is what the machine
loses. A daemon thread samples it (Linux: /proc/self/statm) every `INTERVAL` seconds while a run is fed; the
engines' budget checkpoints (`Budget.check_state`, every `Program.feed` / `close`) raise ResourceLimit once it
went past the bound. Code that runs long without coming back to Python (a Numba kernel inside one event) cannot
be interrupted: there the engines count what they hold (`--max-state`), an allocation failure is a
ResourceLimit too, and a process that asked for it (`hard_stop`, the command line) ends with exit 4 when the
resident set stays past the bound for `GRACE` seconds. docs/semantics.md "Limits".
"""
from __future__ import annotations

import os
import re
import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterator

DEFAULT_FRACTION = 0.5   # of the machine's memory (or of the cgroup's limit, if lower): the default bound
INTERVAL = 0.02          # seconds between two samples of the resident set
GRACE = 1.0              # seconds past the bound before `hard_stop` (engines stuck in native code)

_UNITS = {"": 1, "B": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def parse_size(text: str) -> int:
    """Bytes of a size such as `2G`, `512M`, `1.5G`, `800000K` or `4000000000` (binary units; ValueError)."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?\s*", str(text), re.IGNORECASE)
    if not m:
        raise ValueError(f"expected a size such as 2G, 512M or a number of bytes, not {text!r}")
    value = int(float(m.group(1)) * _UNITS[m.group(2).upper()])
    if value < 1:
        raise ValueError(f"expected a positive size, not {text!r}")
    return value


def shown(size: int) -> str:
    """A size for a message: `2.0 GiB`, `512 MiB`."""
    if size >= 1 << 30:
        return f"{size / (1 << 30):.1f} GiB"
    return f"{size / (1 << 20):,.0f} MiB"


def physical_memory() -> int:
    """The memory this process may use: the machine's, or its cgroup's limit where that is lower (0: unknown)."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = 0
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path) as f:
                text = f.read().strip()
        except OSError:
            continue
        if text.isdigit() and 0 < int(text) < (total or 1 << 62):
            total = int(text)
    return total


def default_max_memory() -> int | None:
    """The default bound: DEFAULT_FRACTION of physical_memory() (None where it cannot be known)."""
    total = physical_memory()
    return int(total * DEFAULT_FRACTION) if total else None


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def rss() -> int:
    """The process's resident set in bytes now (where /proc is missing: its peak so far)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        import resource
        import sys

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


class _Watch:
    """One sampling thread per process, running while some run is watched; the lowest bound watched wins."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.bounds: dict[int, int] = {}   # token -> bound in bytes
        self.over: dict[int, int] = {}     # token -> the resident set seen past its bound
        self.since: float | None = None    # when the resident set first went past the lowest bound
        self.thread: threading.Thread | None = None
        self.wake = threading.Event()
        self.next_token = 0
        # the command line's last resort (a kernel that never comes back): called with (resident set, bound)
        self.hard_stop: Callable[[int, int], None] | None = None

    def add(self, bound: int) -> int:
        with self.lock:
            self.next_token += 1
            token = self.next_token
            self.bounds[token] = bound
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._loop, name="cepkit-memory-watch", daemon=True)
                self.thread.start()
            self.wake.set()
        return token

    def remove(self, token: int) -> None:
        with self.lock:
            self.bounds.pop(token, None)
            self.over.pop(token, None)
            if not self.bounds:
                self.since = None

    def sample(self, token: int, now: bool = False) -> int | None:
        """The resident set the thread saw past the token's bound (with `now`, or sampled now), else None."""
        seen = self.over.get(token)
        if seen is not None or not now:
            return seen
        bound = self.bounds.get(token)
        resident = rss()
        return resident if bound is not None and resident > bound else None

    def _loop(self) -> None:
        while True:
            with self.lock:
                bounds = dict(self.bounds)
            if not bounds:
                self.wake.clear()
                self.wake.wait(1.0)
                continue
            now = rss()
            past = {t: b for t, b in bounds.items() if now > b}
            with self.lock:
                for t in past:
                    self.over.setdefault(t, now)
                if past and self.since is None:
                    self.since = time.monotonic()
                elif not past:
                    self.since = None
                stuck = self.since is not None and time.monotonic() - self.since > GRACE
            if stuck and self.hard_stop is not None:
                self.hard_stop(now, min(past.values()))
            time.sleep(INTERVAL)


WATCH = _Watch()


@contextmanager
def watched(bound: int | None) -> Iterator[int | None]:
    """While the block runs, the resident set is sampled against `bound` (None: not watched); yields the
    token `over` takes."""
    if bound is None:
        yield None
        return
    token = WATCH.add(bound)
    try:
        yield token
    finally:
        WATCH.remove(token)


def over(token: int | None, now: bool = False) -> int | None:
    """The resident set seen past the bound of a `watched` block (the thread's last samples: a dictionary
    look-up; with `now`, also a sample now), else None."""
    return None if token is None else WATCH.sample(token, now)


def message(resident: int | None, bound: int) -> str:
    """What a ResourceLimit for the memory bound says."""
    seen = f"{shown(resident)}, " if resident else ""
    return (f"the run's memory reached {seen}past the bound of {shown(bound)} (the bound: --max-memory, "
            "max_memory=); bound the pattern with WITHIN (or a smaller window), a more selective strategy or "
            "predicate, --limit / --max-state, or raise the bound")
