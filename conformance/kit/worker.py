"""A child process that answers vectors for one engine, so that whatever the engine does is one vector's error
and the run goes on: the parent gives each vector its timeout from outside, bounds the child's stdout and
stderr (files, never memory), and starts a fresh child after one that exited, crashed or had to be stopped.

The child (`serve`) builds the engine once, then for each vector key it is sent runs the engine and judges
the answer there (conformance/kit/outcome.py), and sends back the Verdict."""
from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import time
import warnings
from pathlib import Path

from cepkit.conformance.harness import Case
from cepkit.conformance.kit.answers import Rows
from cepkit.conformance.kit.command import OUTPUT_LIMIT_VARIABLE, output_bound
from cepkit.conformance.kit.engine_spec import EngineSpec, KitUsageError
from cepkit.conformance.kit.outcome import ERROR, SKIPPED, Verdict, judge
from cepkit.conformance.kit.protocol import Unavailable
from cepkit.conformance.kit.vectors import language_cases
from cepkit.core.errors import CepkitWarning

START_SECONDS = 120.0       # a child may take this long to start (import the engine, read the vectors)
COMMAND_GRACE = 30.0        # past a command's own timeout (which the child enforces on it), the kit's own work
ROWS_SHOWN = 100            # lines of an engine's rows a failure report shows


def key_of(case: Case) -> str:
    """A vector's key: `language:id`."""
    return f"{case.kit_language}:{case.id}"


def find(key: str) -> Case:
    """The vector of a key (its language's vectors read on the first)."""
    language = key.split(":", 1)[0]
    return next(c for c in language_cases(language) if key_of(c) == key)


def _to_files(folder: str, prefix: str) -> None:
    """Point the child's stdout and stderr (fds 1 and 2) at the files `prefix`.stdout and `prefix`.stderr of
    `folder` (fresh ones each vector, so that the parent reads this vector's sizes)."""
    sys.stdout.flush()
    sys.stderr.flush()
    for fd, stream in ((1, "stdout"), (2, "stderr")):
        new = os.open(os.path.join(folder, f"{prefix}.{stream}"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(new, fd)
        os.close(new)


def _first_lines(text: str) -> str:
    lines = text.splitlines()
    return "\n".join(lines[:ROWS_SHOWN] + ([f"... {len(lines) - ROWS_SHOWN} more lines"]
                                           if len(lines) > ROWS_SHOWN else []))


def serve(conn, spec: EngineSpec, strict_types: bool, folder: str) -> None:
    """The child's loop: build the engine ("ready", or "unusable" with the reason), then answer each key sent
    with ("verdict", Verdict) until the connection closes."""
    os.setsid()      # its own process group: the parent stops it with whatever it started
    _to_files(folder, "start")
    try:
        engine = spec.build()
    except KitUsageError as exc:
        conn.send(("unusable", str(exc)))
        return
    except Unavailable as exc:
        conn.send(("unavailable", f"{spec.label} cannot run here: {exc}"))
        return
    except BaseException as exc:  # noqa: BLE001 - an engine that cannot even start: the parent says why
        conn.send(("unusable", f"{spec.label}: cannot start it: {type(exc).__name__}: {exc}"))
        return
    conn.send(("ready", None))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CepkitWarning)
        while True:
            try:
                key, prefix = conn.recv()
            except EOFError:
                return
            _to_files(folder, prefix)
            case = find(key)
            answer = engine.answer(case)
            verdict = judge(case, answer, spec.outside, strict_types)
            if isinstance(answer, Rows) and verdict.status != "passed":
                verdict = Verdict(verdict.status, verdict.detail, verdict.refused, _first_lines(answer.text))
            sys.stdout.flush()
            sys.stderr.flush()
            conn.send(("verdict", verdict))


class Worker:
    """The parent's side: `verdict(key)` asks the child, within the vector's timeout."""

    def __init__(self, spec: EngineSpec, strict_types: bool = False):
        self.spec, self.strict_types = spec, strict_types
        self.folder = tempfile.mkdtemp(prefix="cepkit-kit-worker-")
        self.process = self.conn = None
        self.prefix = "start"                 # the files the child writes its stdout and stderr to now
        self.asked = 0
        self.unusable: str | None = None      # the engine cannot be built: every vector is this error
        self.unavailable: str | None = None   # the engine cannot run here: every vector is skipped, saying why
        self.what = {"engine": "the engine", "adapter": "the adapter", "command": "the kit's child"}[spec.kind]

    def start(self) -> str | None:
        """Start the child and wait until it is ready; the reason when the engine cannot be run at all."""
        context = multiprocessing.get_context("spawn")   # a fresh interpreter: no threads or state of the parent's
        parent, child = context.Pipe()
        self.process = context.Process(target=serve, args=(child, self.spec, self.strict_types, self.folder),
                                       daemon=True, name="cepkit-kit-worker")
        self._clear()
        self.prefix = "start"
        self.process.start()
        child.close()
        self.conn = parent
        got = self._wait(time.monotonic() + START_SECONDS + self.spec.timeout, "while starting")
        if isinstance(got, Verdict):
            self.stop()
            return got.detail
        kind, reason = got
        if kind == "unusable":
            self.unusable = reason
            self.stop()
            return reason
        if kind == "unavailable":
            self.unavailable = reason
            self.stop()
        return None

    def verdict(self, key: str) -> Verdict:
        if self.unusable is not None:
            return Verdict(ERROR, self.unusable)
        if self.unavailable is not None:
            return Verdict(SKIPPED, self.unavailable)
        if self.process is None:
            reason = self.start()
            if self.unavailable is not None:
                return Verdict(SKIPPED, self.unavailable)
            if reason is not None:
                return Verdict(ERROR, reason)
        self._clear()
        self.asked += 1
        self.prefix = f"vector{self.asked}"
        self.conn.send((key, self.prefix))
        grace = COMMAND_GRACE if self.spec.kind == "command" else 0.0
        got = self._wait(time.monotonic() + self.spec.timeout + grace, "on this vector")
        if isinstance(got, Verdict):
            self.stop()
            return got
        return got[1]

    def _wait(self, deadline: float, when: str):
        """The child's next message, or the Verdict (an error, named) when it ended, flooded its output or ran
        past the deadline."""
        bound = output_bound()
        while not self.conn.poll(0.02):
            for stream in ("stdout", "stderr"):
                path = os.path.join(self.folder, f"{self.prefix}.{stream}")
                if os.path.exists(path) and os.path.getsize(path) > bound:
                    return Verdict(ERROR, f"{self.what} wrote more than {bound // (1 << 20)} MiB to {stream} {when} "
                                   f"(the bound of an answer, {OUTPUT_LIMIT_VARIABLE}); its process was stopped")
            if not self.process.is_alive():
                if self.conn.poll(0):
                    break
                return Verdict(ERROR, self._ended(when))
            if time.monotonic() > deadline:
                return Verdict(ERROR, f"{self.what} ran past the timeout ({self.spec.timeout:g} s, --timeout) "
                               f"{when}; its process was stopped" + self._stderr_tail())
        try:
            return self.conn.recv()
        except (EOFError, OSError):
            self.process.join(5)
            return Verdict(ERROR, self._ended(when))

    def _ended(self, when: str) -> str:
        self.process.join(5)
        code = self.process.exitcode
        how = (f"was killed by {signal.Signals(-code).name}" if code is not None and code < 0 and
               -code in signal.valid_signals() else f"exited (exit code {code})")
        return (f"{self.what}'s process {how} {when}, without an answer: an engine returns match rows or raises, "
                f"it does not end the process" + self._stderr_tail())

    def _stderr_tail(self, lines: int = 15) -> str:
        try:
            text = Path(self.folder, f"{self.prefix}.stderr").read_text(errors="replace")[-20000:]
        except OSError:
            return ""
        tail = "\n".join(text.rstrip().splitlines()[-lines:])
        return f"\nits stderr ends:\n{tail}" if tail else ""

    def _clear(self) -> None:
        """Remove the last vector's output files (the child writes the next to new ones)."""
        for stream in ("stdout", "stderr"):
            try:
                os.unlink(os.path.join(self.folder, f"{self.prefix}.{stream}"))
            except OSError:
                pass

    def stop(self) -> None:
        """Stop the child and everything it started (its process group)."""
        if self.process is None:
            return
        if self.process.is_alive():
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except OSError:
                self.process.kill()
        self.process.join(5)
        self.conn.close()
        self.process = self.conn = None

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)
