"""A task that failed on cepkit's own error (a bad event, a query an engine refuses) is not computed again
when Spark retries it (the default master allows two attempts: cepkit.spark_jobs.session): the first attempt
leaves the error's text in a folder of the driver's temporary directory, and a later attempt of the same
task (stage and partition) raises it at once, before reading its input. Errors that are not cepkit's (a
worker that died, an injected failure) are retried as Spark does. Executors on another machine do not see
the folder: there the retry runs again and fails the same way, as before (docs/spark.md "Errors")."""
from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from typing import Any, Callable, Iterator

TASK_ERRORS = "cepkit-task-errors-"   # + the driver's process id: cepkit.temp_files.TASK_ERRORS, whose leftovers it removes
_FOLDER: list[str] = []


def folder() -> str:
    """This driver process's folder for the errors of its tasks (made once, removed at exit; a killed
    driver's folder is removed by the next run: cepkit.temp_files)."""
    if not _FOLDER:
        made = tempfile.mkdtemp(prefix=f"{TASK_ERRORS}{os.getpid()}-")
        atexit.register(shutil.rmtree, made, True)
        _FOLDER.append(made)
    return _FOLDER[0]


def remembering(fn: Callable[[Any], Any], where: str, is_cepkits: Callable[[str], bool]) -> Callable[[Any], Any]:
    """`fn` (a task body of one argument) whose cepkit errors (`is_cepkits` of the exception's text) are left in
    `where`, and raised again without calling `fn` by a later attempt of the same task."""
    def body(arg):
        from pyspark import TaskContext  # lazy: the task's own context, in the executor's worker

        ctx = TaskContext.get()
        path = os.path.join(where, f"stage{ctx.stageId()}-part{ctx.partitionId()}") if ctx is not None else None
        if path is not None and ctx.attemptNumber() > 0:
            try:
                with open(path, encoding="utf-8") as f:
                    known = f.read()
            except OSError:
                known = None
            if known:
                raise RuntimeError(known)
        try:
            out = fn(arg)
        except RuntimeError as exc:
            _leave(path, exc, is_cepkits)
            raise
        if hasattr(out, "__next__"):   # mapInArrow: a generator, consumed by Spark after this returns
            return _remembered(out, path, is_cepkits)
        return out

    return body


def _remembered(batches: Iterator, path: str | None, is_cepkits: Callable[[str], bool]) -> Iterator:
    try:
        yield from batches
    except RuntimeError as exc:
        _leave(path, exc, is_cepkits)
        raise


def _leave(path: str | None, exc: RuntimeError, is_cepkits: Callable[[str], bool]) -> None:
    text = str(exc)
    if path is None or not is_cepkits(text):
        return
    try:
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(path + ".tmp", path)
    except OSError:   # another machine's folder, or none: the retry computes again
        pass
