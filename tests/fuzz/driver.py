"""Run one input through the real CLI in-process (`cepkit.cli.main`) and classify what happened.

Outcome kinds: "ok" (exit 0), "error" (exit 2, 3 or 4 with stderr naming what is wrong), and the
failures "unnamed" (exit 2/3/4 whose message names no line:column / option / row / column / variable),
"bad-exit" (any other exit code), "traceback" (an exception escaped `main`), "hang" (the time limit
passed) and "memory" (resident memory grew past the guard).
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import resource
import signal
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from tests.fuzz.seeds import SUFFIX

TIME_LIMIT_S = float(os.environ.get("CEPKIT_FUZZ_TIMEOUT", "10"))
MEMORY_LIMIT_MB = float(os.environ.get("CEPKIT_FUZZ_MEMORY_MB", "1500"))
MAX_STATE = "100000"   # passed as --max-state when the CLI has it
FAILURES = ("unnamed", "bad-exit", "traceback", "hang", "memory")

LINE_COLUMN = re.compile(r"line \d+, column \d+")
OPTION = re.compile(r"--[a-z][a-z-]+")
ROW_OR_COLUMN = re.compile(r"\brow \d+|\bcolumn '[^']*'|\bline \d+")


class _Hang(BaseException):
    """Raised in the run when its time is up (a BaseException: no `except Exception` swallows it)."""


class _Memory(BaseException):
    """Raised in the run when its resident memory passed the guard."""


@dataclass
class Outcome:
    kind: str                 # ok, error, or one of FAILURES
    code: int | None          # the exit code (None for traceback, hang, memory)
    stdout: str
    stderr: str
    error: str = ""           # the escaped exception: "TypeError: ... at reference/x.py:12 in f"
    seconds: float = 0.0

    @property
    def failed(self) -> bool:
        return self.kind in FAILURES

    def signature(self) -> str:
        """What tells one defect from another: the kind, the exit code, the exception and where it rose."""
        if self.kind == "traceback":
            return f"traceback {self.error.split(':')[0]} {self.error.rpartition(' at ')[2]}"
        if self.kind in ("unnamed", "bad-exit"):
            first = self.stderr.strip().splitlines()[-1] if self.stderr.strip() else "(no message)"
            first = re.sub(r"\d+", "N", re.sub(r"'[^']*'", "'…'", first.split(": ", 2)[-1]))[:90]
            return f"{self.kind} exit {self.code}: {first}"
        return self.kind


@lru_cache(maxsize=None)
def run_options() -> frozenset[str]:
    """The options `cepkit run` takes (from its --help), so the driver passes --max-state only if it exists."""
    from cepkit.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        try:
            main(["run", "--help"])
        except SystemExit:
            pass
    return frozenset(OPTION.findall(out.getvalue()))


def _rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * resource.getpagesize() / 2**20


@contextlib.contextmanager
def _guard(seconds: float, memory_mb: float):
    """Raise _Hang after `seconds`, _Memory once resident memory grew by `memory_mb` (checked every 50 ms)."""
    deadline = time.monotonic() + seconds
    ceiling = _rss_mb() + memory_mb

    def check(signum, frame):
        if time.monotonic() > deadline:
            raise _Hang()
        if _rss_mb() > ceiling:
            raise _Memory()

    previous = signal.signal(signal.SIGALRM, check)
    signal.setitimer(signal.ITIMER_REAL, 0.05, 0.05)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0, 0)
        signal.signal(signal.SIGALRM, previous)


def _where(exc: BaseException) -> str:
    """The innermost frame of the project's code (cepkit, reference, optimized, gpu) the exception rose in."""
    root = str(Path(__file__).resolve().parents[2]) + os.sep
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if f.filename.startswith(root) and not f.filename.startswith(root + "tests")]
    f = (ours or frames)[-1]
    return f"{f.filename[len(root):] if f.filename.startswith(root) else Path(f.filename).name}:{f.lineno} in {f.name}"


def named(code: int, stderr: str, query: str, options: list[str], argv: list[str] = ()) -> bool:
    """Whether the message names what is wrong: exit 2 a line and column, an option or an option's value
    (quoted); exit 3 a row, line or column of the events, or the events file; exit 4 a pattern variable, or the
    bound that was met ("at most N events" of the brute-force engine)."""
    if code == 2:
        values = [v for k, v in zip(argv, argv[1:]) if k.startswith("--") and v]
        return (bool(LINE_COLUMN.search(stderr)) or any(o in options for o in OPTION.findall(stderr))
                or any(f"'{v}'" in stderr or f"{v!r}" in stderr for v in values))
    if code == 3:
        return bool(ROW_OR_COLUMN.search(stderr)) or "events." in stderr
    if code == 4:
        idents = set(re.findall(r"[A-Za-z_]\w*", query))
        quoted = re.findall(r"['`\"]([A-Za-z_]\w*)['`\"]|variable\s+([A-Za-z_]\w*)", stderr)
        return any(q in idents for pair in quoted for q in pair if q) or bool(re.search(r"at most \d+ events", stderr))
    return False


def run_cli(argv: list[str], query: str = "", timeout: float = TIME_LIMIT_S,
            memory_mb: float = MEMORY_LIMIT_MB) -> Outcome:
    """`cepkit.cli.main(argv)` with stdout and stderr captured, under the time and memory guard."""
    from cepkit.cli import main

    out, err = io.StringIO(), io.StringIO()
    start = time.monotonic()
    code: int | None = None
    escaped = ""
    kind = ""
    limit = sys.getrecursionlimit()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), _guard(timeout, memory_mb):
            try:
                code = main(argv)
            except SystemExit as exc:   # argparse: exit 2 for a usage error
                code = exc.code if isinstance(exc.code, int) else 1
    except _Hang:
        kind = "hang"
    except _Memory:
        kind = "memory"
    except MemoryError as exc:
        kind, escaped = "memory", f"MemoryError at {_where(exc)}"
    except Exception as exc:    # noqa: BLE001 - what escapes main is the finding
        kind, escaped = "traceback", f"{type(exc).__name__}: {str(exc)[:200]} at {_where(exc)}"
    finally:
        sys.setrecursionlimit(limit)
    seconds = time.monotonic() - start
    if not kind:
        if code == 0:
            kind = "ok"
        elif code in (2, 3, 4):
            kind = "error" if named(code, err.getvalue(), query, sorted(run_options()), argv) else "unnamed"
        else:
            kind = "bad-exit"
    return Outcome(kind, code, out.getvalue(), err.getvalue(), escaped, seconds)


def _counts_state(lang: str, args: tuple[str, ...]) -> bool:
    """Whether the engine the arguments pick counts its live state (the others refuse --max-state by name)."""
    from cepkit.core import registry
    engine = next((v for k, v in zip(args, args[1:]) if k == "--engine"), "reference")
    try:
        entry = registry.engine_entry("sase" if lang == "sase1" else lang, engine)
        return bool(registry.load(entry.target).counts_state)
    except Exception:  # an unknown engine (a fuzzed option): the CLI says so, exit 2
        return False


def run_case(lang: str, query: bytes, events_name: str, events: bytes, args: tuple[str, ...] = (),
             **limits: float) -> Outcome:
    """Write the query and the events into a temporary folder and run `cepkit run` on them."""
    with tempfile.TemporaryDirectory(prefix="cepkit-fuzz-") as tmp:
        qpath, epath = Path(tmp) / ("query" + SUFFIX[lang]), Path(tmp) / events_name
        qpath.write_bytes(query)
        epath.write_bytes(events)
        argv = ["run", str(qpath), str(epath), "--no-progress", *args]
        if "--max-state" in run_options() and "--max-state" not in args and _counts_state(lang, args):
            argv += ["--max-state", MAX_STATE]
        return run_cli(argv, query.decode("utf-8", "replace"), **limits)
