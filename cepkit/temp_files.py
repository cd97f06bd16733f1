"""cepkit's temporary files: named with the process id, bounded in size, and removed by the next run when a
SIGKILL (or a power cut) left them behind (docs/semantics.md TS-7).

Four kinds, each under its own prefix, each in one directory:

- `cepkit-events-PID-XXXX/` in the temporary directory (`TMPDIR`): the copy of standard input (cepkit.cli);
- `cepkit-spill-PID-XXXX/` in the temporary directory: a chunked run's match tables (cepkit.match_output.Spill);
- `.NAME.cepkit-tmp-PID-XXXX` beside `--output NAME`: the output until the run succeeds (cepkit.output);
- `cepkit-task-errors-PID-XXXX/` in the temporary directory: a Spark driver's task errors (spark_jobs.task_errors).

A run removes the entries of these prefixes whose process is no longer alive (and that belong to its user),
in the temporary directory and beside its own output; nothing else is touched.
"""
from __future__ import annotations

import os
import re
import shutil
import tempfile
from typing import BinaryIO

from cepkit.core.errors import EventError, ResourceLimit

EVENTS = "cepkit-events-"
SPILL = "cepkit-spill-"
OUTPUT = ".cepkit-tmp-"       # after ".NAME"
TASK_ERRORS = "cepkit-task-errors-"   # spark_jobs/task_errors.py's (the engines' layer cannot import this one)
LIMIT_VARIABLE = "CEPKIT_TEMP_MAX"
_SIZE = re.compile(r"\s*(\d+)\s*([kmgt]?)i?b?\s*", re.I)
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def tagged(prefix: str) -> str:
    """The prefix of this process's temporary entries: `prefix` + the process id + '-'."""
    return f"{prefix}{os.getpid()}-"


def output_prefix(name: str) -> str:
    """The prefix of the temporary output beside `--output .../name`, without the process id."""
    return f".{name}{OUTPUT}"


def limit(directory: str | None = None) -> int:
    """The most bytes a temporary copy (standard input, the spill) may take: CEPKIT_TEMP_MAX (bytes, or
    with a K, M, G or T suffix), else 90% of the free space of `directory`'s file system (the temporary
    directory) when asked, so that the copy never fills the disk."""
    text = os.environ.get(LIMIT_VARIABLE)
    if text:
        m = _SIZE.fullmatch(text)
        if m is None:
            raise ResourceLimit(f"{LIMIT_VARIABLE}={text!r} is not a size (bytes, or a number with K, M, G or T)")
        return int(m.group(1)) * _UNITS[m.group(2).lower()]
    try:
        free = shutil.disk_usage(directory or tempfile.gettempdir()).free
    except OSError:
        return 1 << 62
    return free * 9 // 10


def shown(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} bytes"


def copy_bounded(source: BinaryIO, target: BinaryIO, head: bytes, bound: int) -> None:
    """`head`, then the rest of `source`, into `target`, in pieces; EventError (exit 3) past `bound` bytes."""
    total = len(head)
    if total > bound:
        raise _too_big(bound)
    target.write(head)
    while True:
        piece = source.read(1 << 20)
        if not piece:
            return
        total += len(piece)
        if total > bound:
            raise _too_big(bound)
        target.write(piece)


def _too_big(bound: int) -> EventError:
    return EventError(f"standard input is longer than {shown(bound)}, the bound of its temporary copy in "
                      f"{tempfile.gettempdir()} ({LIMIT_VARIABLE}, default 90% of the free space there): save the "
                      "events to a file and give its path, or set TMPDIR or CEPKIT_TEMP_MAX")


def alive(pid: int) -> bool:
    """Whether a process `pid` exists (one of another user counts as alive)."""
    if pid <= 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def remove_leftovers(directory: str, prefix: str, own: bool = False) -> list[str]:
    """Remove the entries of `directory` named `prefix` + PID + '-...' whose process is gone (with `own`: this
    process's) and that belong to this user (files, or folders with what they hold); the paths removed.
    Errors are ignored: another run may remove the same leftover at the same time."""
    removed = []
    try:
        names = os.listdir(directory)
    except OSError:
        return removed
    uid = os.getuid() if hasattr(os, "getuid") else None
    for name in names:
        if not name.startswith(prefix):
            continue
        pid_text, dash, _ = name[len(prefix):].partition("-")
        if not dash or not pid_text.isdigit():
            continue
        if (int(pid_text) != os.getpid()) if own else (int(pid_text) == os.getpid() or alive(int(pid_text))):
            continue
        path = os.path.join(directory, name)
        try:
            st = os.lstat(path)
            if uid is not None and st.st_uid != uid:
                continue
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.unlink(path)
        except OSError:
            continue
        removed.append(path)
    return removed


def clean_up_after_killed_runs(output: str | None = None, own: bool = False) -> list[str]:
    """Remove what killed runs left: the standard-input copies and spills in the temporary directory, and
    the temporary output beside `output` (for its name only). With `own`, this process's instead (a run
    stopped from another thread: cepkit.signal_watch, the memory watch's last resort)."""
    temp = tempfile.gettempdir()
    removed = [path for prefix in (EVENTS, SPILL, TASK_ERRORS) for path in remove_leftovers(temp, prefix, own)]
    if output and output != "-":
        directory, name = os.path.split(os.path.realpath(output))
        removed += remove_leftovers(directory, output_prefix(name), own)
    return removed


def remove_own(output: str | None = None) -> list[str]:
    """This process's temporary files (standard-input copy, spill, temporary output beside `output`)."""
    return clean_up_after_killed_runs(output, own=True)
