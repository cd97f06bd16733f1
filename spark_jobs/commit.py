"""The job's output directory, replaced atomically: Spark writes into a staging directory beside the target,
which is swapped in only when the write succeeded. A failed or killed run leaves the previous output as it
was; what a killed run leaves behind is recovered by the next run (docs/semantics.md, "Output: atomic
writes, JSON numbers, Spark retries"). Renames within one directory are atomic on local and HDFS file
systems; object stores (s3a:) copy on rename, so there the swap is not atomic, only ordered.

For a target `DIR/NAME` (on the local file system through `LocalFS`, elsewhere through Hadoop's
FileSystem API, `HadoopFS`):
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
import uuid

from cepkit.core.errors import CepkitError

MARKER = "_CEPKIT_JOB"    # Spark and pyarrow skip names starting with "_" when reading the Parquet parts
NEW, OLD = "cepkit-new", "cepkit-old"


class OutputError(CepkitError):
    """The output directory cannot be written."""

    exit_code = 1


class LocalFS:
    """The file operations the swap needs, on the local file system."""

    def split(self, path: str) -> tuple[str, str]:
        return os.path.split(os.path.abspath(path))

    def join(self, parent: str, name: str) -> str:
        return os.path.join(parent, name)

    def list(self, path: str) -> list[str]:
        return sorted(os.listdir(path))

    def exists(self, path: str) -> bool:
        return os.path.lexists(path)

    def isdir(self, path: str) -> bool:
        return os.path.isdir(path) and not os.path.islink(path)

    def new_dir(self, parent: str, prefix: str) -> str:
        os.makedirs(parent, exist_ok=True)
        path = tempfile.mkdtemp(prefix=prefix, dir=parent)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(path, 0o777 & ~mask)  # as a plain mkdir would (mkdtemp gives 0700)
        return path

    def write(self, path: str, text: str) -> None:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)

    def read(self, path: str) -> str:
        with open(path, encoding="utf-8") as fh:
            return fh.read()

    def rename(self, src: str, dst: str) -> None:
        os.rename(src, dst)

    def delete(self, path: str) -> None:
        """A file, or a directory and everything in it."""
        shutil.rmtree(path) if self.isdir(path) else os.unlink(path)


class HadoopFS:
    """The same operations through Hadoop's FileSystem API (hdfs:, s3a:, ...), with the session's
    Hadoop configuration."""

    def __init__(self, spark):
        self.jvm = spark.sparkContext._jvm
        self.conf = spark.sparkContext._jsc.hadoopConfiguration()

    def _path(self, path: str):
        return self.jvm.org.apache.hadoop.fs.Path(path)

    def _fs(self, path: str):
        return self._path(path).getFileSystem(self.conf)

    def split(self, path: str) -> tuple[str, str]:
        p = self._fs(path).makeQualified(self._path(path))
        return p.getParent().toString(), p.getName()

    def join(self, parent: str, name: str) -> str:
        return self.jvm.org.apache.hadoop.fs.Path(self._path(parent), name).toString()

    def list(self, path: str) -> list[str]:
        return sorted(s.getPath().getName() for s in self._fs(path).listStatus(self._path(path)))

    def exists(self, path: str) -> bool:
        return bool(self._fs(path).exists(self._path(path)))

    def isdir(self, path: str) -> bool:
        fs, p = self._fs(path), self._path(path)
        return bool(fs.exists(p) and fs.getFileStatus(p).isDirectory())

    def new_dir(self, parent: str, prefix: str) -> str:
        path = self.join(parent, prefix + uuid.uuid4().hex[:12])
        if self.exists(path) or not self._fs(path).mkdirs(self._path(path)):
            raise OSError(f"cannot create {path}")
        return path

    def write(self, path: str, text: str) -> None:
        out = self._fs(path).create(self._path(path), True)
        try:
            out.write(bytearray(text.encode("utf-8")))
        finally:
            out.close()

    def read(self, path: str) -> str:
        fs, p = self._fs(path), self._path(path)
        size = fs.getFileStatus(p).getLen()
        stream = fs.open(p)
        try:
            buf = self.jvm.org.apache.commons.io.IOUtils.toByteArray(stream, size)
        finally:
            stream.close()
        return bytes(buf).decode("utf-8")

    def rename(self, src: str, dst: str) -> None:
        if self.exists(dst) or not self._fs(src).rename(self._path(src), self._path(dst)):
            raise OSError(f"cannot rename {src} to {dst}")

    def delete(self, path: str) -> None:
        self._fs(path).delete(self._path(path), True)


def _leftovers(fs, target: str) -> list[tuple[str, str]]:
    """(kind, path) of the staging (NEW) and set-aside (OLD) directories beside `target`."""
    parent, name = fs.split(target)
    found = []
    for entry in fs.list(parent) if fs.exists(parent) else []:
        for kind in (NEW, OLD):
            if entry.startswith(f".{name}.{kind}-"):
                found.append((kind, fs.join(parent, entry)))
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _check_ours_and_stale(fs, path: str) -> None:
    """Raise OutputError unless `path` carries our marker and its run is provably over."""
    try:
        owner = json.loads(fs.read(fs.join(path, MARKER)))
    except Exception:  # missing or unreadable, whichever file system says so
        raise OutputError(f"'{path}' looks like a cepkit job's leftover but has no readable {MARKER} marker; "
                          "remove it by hand if no job is running") from None
    if owner.get("host") != socket.gethostname():
        raise OutputError(f"'{path}' was left by a cepkit job on host {owner.get('host')!r} (pid "
                          f"{owner.get('pid')}); remove it by hand if that job is over")
    if owner.get("pid") != os.getpid() and _alive(int(owner.get("pid", -1))):
        raise OutputError(f"another cepkit job (pid {owner.get('pid')}) is writing next to this output now "
                          f"('{path}'); wait for it or stop it")


def _remove(fs, path: str) -> None:
    """Delete one of our directories, the marker last (a kill midway leaves it recognisable)."""
    for entry in fs.list(path):
        if entry != MARKER:
            fs.delete(fs.join(path, entry))
    fs.delete(path)


def _mark(fs, path: str) -> None:
    fs.write(fs.join(path, MARKER), json.dumps({"host": socket.gethostname(), "pid": os.getpid()}))


def recover(target: str, fs=None) -> list[str]:
    """Clean up what killed runs left beside `target` (module docstring), then check the target can be
    replaced. Returns one line per action taken."""
    fs = fs or LocalFS()
    done = []
    leftovers = _leftovers(fs, target)
    for _kind, path in leftovers:
        _check_ours_and_stale(fs, path)
    olds = [p for kind, p in leftovers if kind == OLD]
    if not fs.exists(target) and olds:
        if len(olds) > 1:
            raise OutputError(f"'{target}' is missing and several earlier outputs were set aside beside it "
                              f"({', '.join(olds)}); keep the one you want as '{target}' and remove the others")
        fs.rename(olds[0], target)
        done.append(f"restored the previous output '{target}' that a killed run had set aside")
        olds = []
    for kind, path in leftovers:
        if kind == NEW or path in olds:
            _remove(fs, path)
            done.append(f"removed '{path}', left by a killed run")
    _check_target(fs, target)
    return done


def _check_target(fs, target: str) -> None:
    if fs.exists(target) and not fs.isdir(target):
        raise OutputError(f"output '{target}' is a file; give a directory for the Parquet parts")
    if not fs.exists(target):
        return
    entries = {e for e in fs.list(target) if not e.startswith(".")} - {MARKER}  # .crc files of Hadoop's local FS
    if entries == {"_temporary"}:
        raise OutputError(f"output directory '{target}' holds only '_temporary/': what a Spark job killed while "
                          "writing leaves, with no complete result in it; it is not this job's to delete: "
                          f"remove it (rm -r '{target}') and run again")
    if entries and "_SUCCESS" not in entries:
        raise OutputError(f"output directory '{target}' is not empty and is not an earlier job's output; "
                          "refusing to overwrite it")


def stage(target: str, fs=None) -> str:
    """A new marked staging directory beside `target`, for Spark to append the Parquet parts to."""
    fs = fs or LocalFS()
    parent, name = fs.split(target)
    try:
        path = fs.new_dir(parent, f".{name}.{NEW}-")
    except OSError as exc:
        raise OutputError(f"cannot write '{target}': {exc.strerror or exc}") from None
    _mark(fs, path)
    return path


def discard(staging: str, fs=None) -> None:
    """A failed run: drop the staging directory; the target stays as it was."""
    fs = fs or LocalFS()
    if fs.isdir(staging):
        _remove(fs, staging)


def swap(staging: str, target: str, fs=None) -> None:
    """Put the complete staging directory in the target's place (steps (a)-(c) of the module docstring)."""
    fs = fs or LocalFS()
    parent, name = fs.split(target)
    target = fs.join(parent, name)
    aside = fs.join(parent, fs.split(staging)[1].replace(f".{NEW}-", f".{OLD}-", 1))
    if fs.isdir(target):
        _mark(fs, target)
        fs.rename(target, aside)
        fs.rename(staging, target)
        _remove(fs, aside)
    else:
        fs.rename(staging, target)
