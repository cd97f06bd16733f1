"""`--command "CMD"`: an engine in any language, run once per vector as an external command.

For each vector the kit writes a directory with the query (`query<suffix>`, the language's first file
suffix; `.query` for `sase1`), the events as JSON lines (`events.jsonl`; `right_events.jsonl` for a two-input query) and
`case.json` (the Vector: id, language, query, options, read_options, events, right_events, stream, and the file
names). Every file is standard JSON: an infinite number is the string "Infinity" (AFA's sigma). In CMD (split
like a shell line, run without a shell) these placeholders are replaced: {case} {query} {events}
{right_events} {language} {options} {read_options} {id} {dir}; a CMD with none of them gets the case.json
path as its last argument. The same paths are in the environment: CEPKIT_CASE, CEPKIT_QUERY,
CEPKIT_EVENTS, CEPKIT_RIGHT_EVENTS, CEPKIT_LANGUAGE. It runs in the kit's working directory.

The command answers with its exit code: 0 and one JSON object per match on stdout (the Match.to_json form;
blank lines ignored); 65 a query error; 66 an event error; 77 a refusal, the refused construct on the last
line of stderr; 69 the engine cannot run here (a missing runtime), the reason on the last line of stderr. Anything else (another code, a line that is not a match row, running past --timeout) is a
crash and fails the vector."""
from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path

from cepkit.conformance.harness import Case
from cepkit.conformance.kit import outside
from cepkit.conformance.kit.answers import Answer, Crash, Missing, Raised, Refusal, Rows
from cepkit.conformance.kit.protocol import Vector, vector_of
from cepkit.conformance.kit.rows import RowError, to_table
from cepkit.conformance.kit.vectors import query_suffix
from cepkit.core.match import json_safe

# Unusual codes, so that what interpreters and argument parsers exit with on their own (1, 2, 126, 127) is never
# read as an answer: sysexits' EX_DATAERR for the query, the next one for the events, automake's SKIP.
EXIT_QUERY_ERROR = 65
EXIT_EVENT_ERROR = 66
EXIT_REFUSED = 77
EXIT_UNAVAILABLE = 69     # sysexits' EX_UNAVAILABLE: the engine cannot run here (the reason on stderr)
PLACEHOLDERS = ("case", "query", "events", "right_events", "language", "options", "read_options", "id", "dir")


class CommandError(Exception):
    """The command named on the command line cannot be run at all."""


def strict_json(value, **kwargs) -> str:
    """Standard JSON: an infinite or NaN number as the strings "Infinity", "-Infinity", "NaN" (as in the rows)."""
    return json.dumps(json_safe(value), default=str, allow_nan=False, **kwargs)


def _jsonl(rows: list, path: Path) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(strict_json(row) + "\n")


def write_vector(vector: Vector, directory: Path) -> dict[str, str]:
    """The vector's files in `directory`; the placeholder values."""
    suffix = query_suffix(vector.language)
    query = directory / f"query{suffix}"
    query.write_text(vector.query, encoding="utf-8")
    events = directory / "events.jsonl"
    _jsonl(vector.events, events)
    right = ""
    if vector.right_events is not None:
        right = str(directory / "right_events.jsonl")
        _jsonl(vector.right_events, Path(right))
    case = directory / "case.json"
    doc = {**vector.to_json(), "query_file": str(query), "events_file": str(events), "right_events_file": right or None}
    case.write_text(strict_json(doc, indent=1), encoding="utf-8")
    return {"case": str(case), "query": str(query), "events": str(events), "right_events": right,
            "language": vector.language, "options": strict_json(vector.options),
            "read_options": strict_json(vector.read_options), "id": vector.id, "dir": str(directory)}


def command_line(words: list[str], values: dict[str, str]) -> list[str]:
    """The command's argv for one vector: placeholders replaced, or the case.json path appended."""
    used = any("{" + p + "}" in w for w in words for p in PLACEHOLDERS)
    if not used:
        return words + [values["case"]]
    out = []
    for w in words:
        for p in PLACEHOLDERS:
            w = w.replace("{" + p + "}", values[p])
        out.append(w)
    return out


OUTPUT_LIMIT_VARIABLE = "CEPKIT_KIT_OUTPUT_MAX"   # MiB a command may write to stdout or stderr per vector
OUTPUT_LIMIT_MIB = 256


def output_bound() -> int:
    """The bytes an engine may write to stdout or stderr on one vector (CEPKIT_KIT_OUTPUT_MAX MiB, default 256)."""
    return int(float(os.environ.get(OUTPUT_LIMIT_VARIABLE) or OUTPUT_LIMIT_MIB) * (1 << 20))


class OutputFlood(Exception):
    """A command wrote past the bound of an answer."""

    def __init__(self, stream: str, bound: int):
        super().__init__(stream)
        self.stream, self.bound = stream, bound


def _bounded_run(argv: list[str], env: dict, folder: Path, timeout: float) -> subprocess.CompletedProcess:
    """Run the command with stdout and stderr in files of `folder`, stopping it (its process group) past
    `timeout` seconds (TimeoutExpired) or past the output bound on either (OutputFlood): memory stays bounded
    whatever the command writes, and a command that never ends is ended."""
    import signal
    import time

    bound = output_bound()
    out_path, err_path = folder / ".stdout", folder / ".stderr"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        child = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env,
                                 start_new_session=True)
        deadline = time.monotonic() + timeout
        try:
            while child.poll() is None:
                for stream, path in (("stdout", out_path), ("stderr", err_path)):
                    if path.stat().st_size > bound:
                        raise OutputFlood(stream, bound)
                if time.monotonic() > deadline:
                    raise subprocess.TimeoutExpired(argv, timeout)
                time.sleep(0.01)
        except BaseException:
            try:
                os.killpg(child.pid, signal.SIGKILL)
            except OSError:
                pass
            child.wait()
            raise
    for stream, path in (("stdout", out_path), ("stderr", err_path)):
        if path.stat().st_size > bound:
            raise OutputFlood(stream, bound)
    return subprocess.CompletedProcess(argv, child.returncode, out_path.read_text(errors="replace"),
                                       err_path.read_text(errors="replace"))


def _tail(text: str, lines: int = 15) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])


class CommandEngine:
    """An external command as a kit engine."""

    outside = True

    def __init__(self, command: str, timeout: float = 60.0):
        try:
            self.words = shlex.split(command)
        except ValueError as exc:
            raise CommandError(f"--command {command!r}: {exc}") from None
        if not self.words:
            raise CommandError("--command needs a command line")
        if shutil.which(self.words[0]) is None:
            raise CommandError(f"--command: {self.words[0]!r} is not an executable file nor a program on PATH")
        self.name = command
        self.label = f"command {command}"
        self.timeout = timeout

    def languages(self) -> list[str]:
        return outside.languages()

    def runs(self, case: Case) -> bool:
        return outside.runs(case)

    def answer(self, case: Case) -> Answer:
        with tempfile.TemporaryDirectory(prefix="cepkit-kit-") as tmp:
            values = write_vector(vector_of(case), Path(tmp))
            argv = command_line(self.words, values)
            env = {**os.environ, "CEPKIT_CASE": values["case"], "CEPKIT_QUERY": values["query"],
                   "CEPKIT_EVENTS": values["events"], "CEPKIT_RIGHT_EVENTS": values["right_events"],
                   "CEPKIT_LANGUAGE": values["language"]}
            try:
                done = _bounded_run(argv, env, Path(tmp), self.timeout)
            except subprocess.TimeoutExpired:
                return Crash(f"the command ran past {self.timeout:g} s: {shlex.join(argv)}")
            except OutputFlood as exc:
                return Crash(f"the command wrote more than {exc.bound // (1 << 20)} MiB to {exc.stream} (the bound "
                             f"of an answer, {OUTPUT_LIMIT_VARIABLE}); it was stopped: {shlex.join(argv)}")
            except OSError as exc:
                return Crash(f"cannot run {shlex.join(argv)}: {exc}")
        if done.returncode == EXIT_UNAVAILABLE:
            return Missing((done.stderr.strip().splitlines() or ["(no reason on stderr)"])[-1].strip())
        if done.returncode == EXIT_REFUSED:
            last = (done.stderr.strip().splitlines() or ["(no construct named on stderr)"])[-1]
            return Refusal(last.strip(), last.strip())
        if done.returncode in (EXIT_QUERY_ERROR, EXIT_EVENT_ERROR):
            kind = "query" if done.returncode == EXIT_QUERY_ERROR else "event"
            return Raised(kind, _tail(done.stderr) or f"exit code {done.returncode}")
        if done.returncode != 0:
            return Crash(f"exit code {done.returncode} (0: matches, {EXIT_QUERY_ERROR}: query error, "
                         f"{EXIT_EVENT_ERROR}: event error, {EXIT_REFUSED}: refused) from {shlex.join(argv)}\n"
                         f"stderr:\n{_tail(done.stderr)}")
        rows = []
        for n, line in enumerate(done.stdout.splitlines(), 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except ValueError as exc:
                return Crash(f"stdout line {n} is not JSON ({exc}): {line[:200]}")
        try:
            return Rows(to_table(rows, outside.reference_layout(case)), done.stdout)
        except RowError as exc:
            return Crash(f"malformed match row: {exc}")
