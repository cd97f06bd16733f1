"""The Spark commands' driver-side bars (cepkit/spark_progress.py): a bar per Spark job, its tasks done of its
stages' tasks as Spark's status tracker reports them; checked on a stand-in tracker (no Spark started)."""
from __future__ import annotations

from types import SimpleNamespace as NS

from cepkit.spark_progress import JobBars, job_tasks


class Tracker:
    """Spark's StatusTracker as far as the bars read it: jobs of stages, each with its task counts."""

    def __init__(self):
        self.active: list[int] = []
        self.jobs: dict[int, list[int]] = {}
        self.stages: dict[int, NS] = {}

    def stage(self, job: int, stage: int, name: str, tasks: int, done: int = 0) -> None:
        self.jobs.setdefault(job, []).append(stage)
        self.stages[stage] = NS(stageId=stage, name=name, numTasks=tasks, numCompletedTasks=done)

    def getActiveJobsIds(self):
        return list(self.active)

    def getJobInfo(self, job):
        return NS(stageIds=self.jobs[job]) if job in self.jobs else None

    def getStageInfo(self, stage):
        return self.stages.get(stage)


class FakeBar:
    def __init__(self, label, **kw):
        self.label, self.kw, self.seen, self.closed = label, kw, [], False

    def update(self, done, total=None):
        self.seen.append((done, total))

    def close(self):
        self.closed = True


def test_a_bar_per_job_with_its_tasks_done_of_its_stages_tasks():
    tracker, made = Tracker(), []
    bars = JobBars("cepkit spark run", make=lambda label, **kw: made.append(FakeBar(label, **kw)) or made[-1])
    tracker.stage(0, 0, "collect at /x/spark_jobs/job.py:108", tasks=8, done=3)
    tracker.active = [0]
    bars.look(tracker)
    tracker.stages[0].numCompletedTasks = 8   # job 0 ends between two looks; job 1 (two stages) runs
    tracker.stage(1, 1, "mapInArrow at /x/tasks.py:50", tasks=4, done=4)
    tracker.stage(1, 2, "parquet at /x/spark_io.py:88", tasks=4, done=1)
    tracker.active = [1]
    bars.look(tracker)
    bars.end(tracker)
    first, second = made
    assert first.label == "cepkit spark run: job 0 (collect at job.py:108)" and first.kw["unit"] == " tasks"
    assert first.seen == [(3, 8), (8, 8)] and first.closed   # ended with its last counts
    assert second.label == "cepkit spark run: job 1 (parquet at spark_io.py:88)"
    assert second.seen[0] == (5, 8) and second.closed


def test_a_job_the_tracker_forgot_or_with_no_stage_yet_draws_nothing():
    tracker = Tracker()
    assert job_tasks(tracker, 7) is None
    tracker.jobs[7] = [99]   # a stage not submitted yet
    assert job_tasks(tracker, 7) is None
    bars = JobBars("x", make=lambda *a, **k: (_ for _ in ()).throw(AssertionError("no bar")))
    tracker.active = [7]
    bars.look(tracker)
    assert bars.bar is None
