"""The driver-side progress of the `cepkit spark` commands: a bar per Spark job (a phase of the command: the
statistics pass that reads the events, the matching, the writing), its tasks done of its stages' tasks, read
from Spark's status tracker by a thread while the command waits on the job (cepkit/progress.py: only on a
terminal, each bar once its job has taken 2 s)."""
from __future__ import annotations

import contextlib
import os
import threading
from typing import Any, Callable, Iterator

from cepkit.progress import Bar, on_terminal

POLL = 0.25   # seconds between two looks at the status tracker


def active_context() -> Any:
    """The driver's SparkContext, once the command has started one, else None."""
    # lazy: start-up: pyspark is loaded only where a Spark command runs (and by then the command has loaded it)
    from pyspark import SparkContext

    return SparkContext._active_spark_context


def job_tasks(tracker: Any, job: int) -> tuple[int, int, str] | None:
    """(tasks done, tasks, the name of its latest stage: "collect at job.py:108") of a job's submitted
    stages, or None where the tracker no longer knows it."""
    info = tracker.getJobInfo(job)
    if info is None:
        return None
    stages = [s for s in (tracker.getStageInfo(k) for k in info.stageIds) if s is not None]
    if not stages:
        return None
    name = max(stages, key=lambda s: s.stageId).name
    where, at, path = name.partition(" at ")
    return (sum(s.numCompletedTasks for s in stages), sum(s.numTasks for s in stages),
            f"{where} at {os.path.basename(path)}" if at else name)


class JobBars:
    """A bar per Spark job seen running, labelled `label: job N (its stage's name)`; a job's bar ends when
    the next one starts or the command ends."""

    def __init__(self, label: str, make: Callable[..., Bar] = Bar):
        self.label, self.make = label, make
        self.job: int | None = None
        self.bar: Bar | None = None

    def look(self, tracker: Any) -> None:
        """Draw the latest running job's tasks (a new bar for a new job; the bar of a job that ended, with
        its last counts, ended)."""
        running = sorted(tracker.getActiveJobsIds())
        if self.job is not None and self.job not in running:
            self.end(tracker)
        if not running:
            return
        job = running[-1]
        tasks = job_tasks(tracker, job)
        if tasks is None:
            return
        done, total, name = tasks
        if job != self.job:
            self.end(tracker)
            self.job = job
            self.bar = self.make(f"{self.label}: job {job} ({name})", unit=" tasks", scale=False)
        self.bar.update(done, total)

    def end(self, tracker: Any = None) -> None:
        """The current job's bar drawn with its last counts (where the tracker still knows them) and ended."""
        if self.bar is None:
            return
        tasks = job_tasks(tracker, self.job) if tracker is not None else None
        if tasks is not None:
            self.bar.update(*tasks[:2])
        self.bar.close()
        self.bar, self.job = None, None


@contextlib.contextmanager
def spark_progress(label: str, enabled: bool) -> Iterator[None]:
    """Bars of the Spark jobs the block runs (none with `enabled` false or stderr not a terminal)."""
    if not (enabled and on_terminal()):
        yield
        return
    bars, stop = JobBars(label), threading.Event()

    def watch() -> None:
        while not stop.wait(POLL):
            context = active_context()
            if context is not None:
                with contextlib.suppress(Exception):   # a tracker torn down with the session: no bar to draw
                    bars.look(context.statusTracker())

    thread = threading.Thread(target=watch, name="cepkit-spark-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=5)
        context = active_context()
        try:
            bars.end(context.statusTracker() if context is not None else None)
        except Exception:   # a stopped session's tracker: the bar ends with the counts it had
            bars.end()
