"""The job's output directory, replaced atomically: Spark writes into a staging directory beside the target,
which is swapped in only when the write succeeded. A failed or killed run leaves the previous output as it
was; what a killed run leaves behind is recovered by the next run (docs/semantics.md, "Output: atomic
writes, JSON numbers, Spark retries").

For a target `DIR/NAME` (local file system):
1. `recover`: leftovers of killed runs beside it are cleaned up (below); then the target must be absent,
   empty, or an earlier job's output (`_SUCCESS`); a directory holding only Spark's `_temporary/` is named
   in an error (it is not provably ours).
2. `stage`: `DIR/.NAME.cepkit-new-XXXX` is created with the marker file `_CEPKIT_JOB` (host and pid of the
   run) and Spark appends the Parquet parts to it. A failure removes it; the target is untouched.
3. `swap`: (a) the marker is written into the old target and the old target is renamed to
   `DIR/.NAME.cepkit-old-XXXX`; (b) the staging directory is renamed to `DIR/NAME`; (c) the old one is
   deleted, its marker last. The output keeps its marker (readers skip it).

What a kill leaves, and what `recover` does with it on the next run:
- during 2: the target as it was and a `-new-` directory (maybe with `_temporary/`): the latter is removed;
- between (a) and (b): no target, an `-old-` directory (the previous output) and a complete `-new-` one:
  the `-old-` one is renamed back to the target (the previous output, as it was) and `-new-` is removed;
- between (b) and the end of (c): the new output and an `-old-` directory: the latter is removed.
A leftover counts as ours only with our marker and, if the marker names this host, a process that is no
longer running; anything else is named in an error and left alone.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile

from reference.errors import CepkitError

MARKER = "_CEPKIT_JOB"    # Spark and pyarrow skip names starting with "_" when reading the Parquet parts
NEW, OLD = "cepkit-new", "cepkit-old"


class OutputError(CepkitError):
    """The output directory cannot be written."""

    exit_code = 1


def _leftovers(target: str) -> list[tuple[str, str]]:
    """(kind, path) of the staging (NEW) and set-aside (OLD) directories beside `target`."""
    parent, name = os.path.split(os.path.abspath(target))
    found = []
    for entry in sorted(os.listdir(parent or ".")):
        for kind in (NEW, OLD):
            if entry.startswith(f".{name}.{kind}-"):
                found.append((kind, os.path.join(parent, entry)))
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _check_ours_and_stale(path: str) -> None:
    """Raise OutputError unless `path` carries our marker and its run is provably over."""
    try:
        with open(os.path.join(path, MARKER), encoding="utf-8") as fh:
            owner = json.load(fh)
    except (OSError, ValueError):
        raise OutputError(f"'{path}' looks like a cepkit job's leftover but has no readable {MARKER} marker; "
                          "remove it by hand if no job is running") from None
    if owner.get("host") != socket.gethostname():
        raise OutputError(f"'{path}' was left by a cepkit job on host {owner.get('host')!r} (pid "
                          f"{owner.get('pid')}); remove it by hand if that job is over")
    if owner.get("pid") != os.getpid() and _alive(int(owner.get("pid", -1))):
        raise OutputError(f"another cepkit job (pid {owner.get('pid')}) is writing next to this output now "
                          f"('{path}'); wait for it or stop it")


def _remove(path: str) -> None:
    """Delete one of our directories, the marker last (a kill midway leaves it recognisable)."""
    for entry in os.listdir(path):
        if entry != MARKER:
            p = os.path.join(path, entry)
            shutil.rmtree(p) if os.path.isdir(p) and not os.path.islink(p) else os.unlink(p)
    marker = os.path.join(path, MARKER)
    if os.path.exists(marker):
        os.unlink(marker)
    os.rmdir(path)


def _mark(path: str) -> None:
    with open(os.path.join(path, MARKER), "w", encoding="utf-8") as fh:
        json.dump({"host": socket.gethostname(), "pid": os.getpid()}, fh)


def recover(target: str) -> list[str]:
    """Clean up what killed runs left beside `target` (module docstring), then check the target can be
    replaced. Returns one line per action taken."""
    done = []
    leftovers = _leftovers(target)
    for _kind, path in leftovers:
        _check_ours_and_stale(path)
    olds = [p for kind, p in leftovers if kind == OLD]
    if not os.path.lexists(target) and olds:
        if len(olds) > 1:
            raise OutputError(f"'{target}' is missing and several earlier outputs were set aside beside it "
                              f"({', '.join(olds)}); keep the one you want as '{target}' and remove the others")
        os.rename(olds[0], target)
        done.append(f"restored the previous output '{target}' that a killed run had set aside")
        olds = []
    for kind, path in leftovers:
        if kind == NEW or path in olds:
            _remove(path)
            done.append(f"removed '{path}', left by a killed run")
    _check_target(target)
    return done


def _check_target(target: str) -> None:
    if os.path.isfile(target) or os.path.islink(target):
        raise OutputError(f"output '{target}' is a file; give a directory for the Parquet parts")
    if not os.path.isdir(target):
        return
    entries = set(os.listdir(target)) - {MARKER}
    if entries == {"_temporary"}:
        raise OutputError(f"output directory '{target}' holds only '_temporary/': what a Spark job killed while "
                          "writing leaves, with no complete result in it; it is not this job's to delete: "
                          f"remove it (rm -r '{target}') and run again")
    if entries and "_SUCCESS" not in entries:
        raise OutputError(f"output directory '{target}' is not empty and is not an earlier job's output; "
                          "refusing to overwrite it")


def stage(target: str) -> str:
    """A new marked staging directory beside `target`, for Spark to append the Parquet parts to."""
    parent, name = os.path.split(os.path.abspath(target))
    try:
        os.makedirs(parent, exist_ok=True)
        path = tempfile.mkdtemp(prefix=f".{name}.{NEW}-", dir=parent)
    except OSError as exc:
        raise OutputError(f"cannot write '{target}': {exc.strerror or exc}") from None
    os.chmod(path, 0o777 & ~_umask())
    _mark(path)
    return path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def discard(staging: str) -> None:
    """A failed run: drop the staging directory; the target stays as it was."""
    if os.path.isdir(staging):
        _remove(staging)


def swap(staging: str, target: str) -> None:
    """Put the complete staging directory in the target's place (steps (a)-(c) of the module docstring)."""
    target = os.path.abspath(target)
    aside = staging.replace(f".{NEW}-", f".{OLD}-", 1)
    if os.path.isdir(target):
        _mark(target)
        os.rename(target, aside)
        os.rename(staging, target)
        _remove(aside)
    else:
        os.rename(staging, target)
