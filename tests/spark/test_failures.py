"""Failures of the Spark job: a task whose first attempt fails (before or after it emitted rows, on both
plans) is retried and the output is the failure-free one, without duplicates; a failed rerun leaves the
previous output as it was; what a killed run leaves is recovered or named (spark_jobs/commit.py;
docs/semantics.md, "Output: atomic writes, JSON numbers, Spark retries")."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from benchmarks.workloads.stock import generate
from cepkit.cli import main
from cepkit.spark_jobs import commit as C
from cepkit.spark_jobs.job import run_job
from cepkit.spark_jobs.session import DEFAULT_MASTER
from tests.spark.helpers import expected_rows, output_rows

KEYED = ("PATTERN SEQ(stock+ a[], stock b) WHERE skip_till_next_match { [symbol] and a[1].price % 5 = 0 "
         "and a[i].price > avg(a[..i-1].price) and b.volume < 200 } WITHIN 40 "
         "RETURN a[1].price AS first_price, avg(a[].price) AS avg_price")
SLICED = ("PATTERN SEQ(!(stock n), stock+ a[], stock b) WHERE skip_till_next_match { a[1].volume > 700 "
          "and a[i].price >= a[i-1].price and b.volume < 100 and n.volume > 990 } WITHIN 12 "
          "RETURN b.volume AS drop")
# two partitions each: every task fails once and a retry restarts a Python worker (about 1 s here)
PLANS = {"by key": (KEYED, {"partitions": 2}), "by time slice": (SLICED, {"slice_length": 17, "partitions": 2})}


@pytest.fixture(scope="module")
def events(tmp_path_factory):
    """300 events, 3 symbols, as Parquet."""
    frame = generate(300, symbols=3, seed=5)
    path = tmp_path_factory.mktemp("events") / "stock.parquet"
    frame.to_parquet(path, index=False)
    return frame, path


def rows(out: Path, text: str) -> list:
    from cepkit.front.language import parse

    q = parse(text)
    return output_rows(pd.read_parquet(out), [c.var for c in q.pattern.components if not c.negated],
                       [r.name for r in q.returns])


def snapshot(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def beside(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.parent.iterdir() if ".cepkit-" in p.name)


def test_default_master_retries_a_failed_task(spark):
    """Spark reads the default master as local[N,F] with F = 2 attempts per task (plain local[*] gives
    one attempt, so any task failure fails the job)."""
    regex = spark.sparkContext._jvm.org.apache.spark.SparkMasterRegex.LOCAL_N_FAILURES_REGEX()
    found = regex.pattern().matcher(DEFAULT_MASTER)
    assert found.matches() and found.group(1) == "*" and int(found.group(2)) == 2


@pytest.fixture(scope="module")
def clean(spark, events, tmp_path_factory):
    """Each plan's failure-free output rows (mapInArrow)."""
    _, path = events
    out = {}
    for plan, (text, options) in PLANS.items():
        target = tmp_path_factory.mktemp("clean") / "out"
        run_job(text, str(path), str(target), spark=spark, engine="reference", **options)
        out[plan] = rows(target, text)
    return out


# the reference engine inside the tasks: a retried task starts a fresh Python worker, which would
# compile the optimized engine's kernels again (the engines agree: test_spark_job.py)
@pytest.mark.parametrize("plan, when, udf", [(p, w, "arrow") for p in sorted(PLANS) for w in ("before", "after")]
                         + [(p, "after", "pandas") for p in sorted(PLANS)])
def test_first_attempt_failing_gives_the_failure_free_output(spark, events, clean, tmp_path, plan, when, udf):
    frame, path = events
    text, options = PLANS[plan]
    log = tmp_path / "failures"
    log.mkdir()
    summary = run_job(text, str(path), str(tmp_path / "out"), spark=spark, udf=udf, engine="reference",
                      fail_first_attempt=(when, str(log)), **options)
    assert summary.plan.startswith(plan)
    failures = [name.split("-") for name in os.listdir(log)]
    assert failures, "the injected failures must have happened"
    if when == "after":
        assert any(int(f[-1]) > 0 for f in failures), "some task must have failed after emitting rows"
    got = rows(tmp_path / "out", text)
    assert len(got) == len(set(got)) == summary.matches  # no duplicates
    assert got == clean[plan] == expected_rows(text, frame)
    assert beside(tmp_path / "out") == []


def test_failed_rerun_leaves_the_previous_output(spark, events, tmp_path, capsys):
    frame, path = events
    query = tmp_path / "q.sase"
    query.write_text(KEYED)
    out = tmp_path / "out"
    assert main(["spark", "run", str(query), str(path), str(out), "--engine", "reference"]) == 0
    before = snapshot(out)
    bad = frame.copy()
    bad["price"] = bad["price"].astype(str)
    bad.loc[150, "price"] = "high"  # found inside a task, while the output is being written
    bad.to_parquet(tmp_path / "bad.parquet", index=False)
    assert main(["spark", "run", str(query), str(tmp_path / "bad.parquet"), str(out), "--engine", "reference"]) == 3
    assert "non-numeric value 'high'" in capsys.readouterr().err
    assert snapshot(out) == before and beside(out) == []


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _leftover(target: Path, kind: str, pid: int | None, parts: dict[str, bytes]) -> Path:
    """A directory as a killed run leaves it beside `target`."""
    import socket

    path = target.parent / f".{target.name}.{kind}-k1ll3d"
    for name, data in parts.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_bytes(data)
    if pid is not None:
        (path / C.MARKER).write_text(json.dumps({"host": socket.gethostname(), "pid": pid}))
    return path


def test_run_killed_mid_write_is_cleaned_by_the_next(spark, events, tmp_path, capsys):
    frame, path = events
    query = tmp_path / "q.sase"
    query.write_text(KEYED)
    out = tmp_path / "out"
    stale = _leftover(out, C.NEW, _dead_pid(), {"_temporary/0/_temporary/attempt_1/part-0.parquet": b"half"})
    assert main(["spark", "run", str(query), str(path), str(out), "--engine", "reference"]) == 0
    assert f"removed '{stale}', left by a killed run" in capsys.readouterr().err
    assert beside(out) == [] and rows(out, KEYED) == expected_rows(KEYED, frame)


def test_only_temporary_in_the_target_is_named(tmp_path, events, capsys):
    _, path = events
    query = tmp_path / "q.sase"
    query.write_text(KEYED)
    out = tmp_path / "out"
    (out / "_temporary" / "0").mkdir(parents=True)
    assert main(["spark", "run", str(query), str(path), str(out), "--engine", "reference"]) == 1
    err = capsys.readouterr().err
    assert "holds only '_temporary/'" in err and f"rm -r '{out}'" in err
    assert (out / "_temporary" / "0").is_dir()


# ---- recovery of each state a kill can leave (spark_jobs/commit.py), on the local file system and
# through Hadoop's FileSystem API (the path of hdfs: and s3a: outputs; here on file: URIs)

@pytest.fixture(params=["local", "hadoop"])
def fs(request):
    """(file system, how it names a local path)."""
    if request.param == "local":
        return C.LocalFS(), str
    return C.HadoopFS(request.getfixturevalue("spark")), lambda p: f"file://{p}"


def visible(directory: Path) -> dict[str, bytes]:
    """The directory's files without Hadoop's local .crc checksum files."""
    return {k: v for k, v in snapshot(directory).items() if not Path(k).name.startswith(".")}


def test_kill_between_set_aside_and_rename_restores_the_previous_output(tmp_path, fs):
    fs, name = fs
    out = tmp_path / "out"
    old = _leftover(out, C.OLD, _dead_pid(), {"_SUCCESS": b"", "part-0.parquet": b"previous"})
    _leftover(out, C.NEW, _dead_pid(), {"_SUCCESS": b"", "part-0.parquet": b"new"})
    done = C.recover(name(out), fs)
    assert (out / "part-0.parquet").read_bytes() == b"previous" and not old.exists()
    assert beside(out) == [] and len(done) == 2


def test_kill_while_deleting_the_set_aside_output_removes_it(tmp_path, fs):
    fs, name = fs
    out = tmp_path / "out"
    out.mkdir()
    (out / "_SUCCESS").write_bytes(b"")
    (out / "part-0.parquet").write_bytes(b"new")
    _leftover(out, C.OLD, _dead_pid(), {"part-1.parquet": b"half deleted"})
    C.recover(name(out), fs)
    assert beside(out) == [] and (out / "part-0.parquet").read_bytes() == b"new"


def test_swap_replaces_and_discard_leaves_the_target(tmp_path, fs):
    fs, name = fs
    out = tmp_path / "out"
    out.mkdir()
    (out / "_SUCCESS").write_bytes(b"")
    (out / "part-0.parquet").write_bytes(b"old")
    staging = C.stage(name(out), fs)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out.cepkit-new-")]
    fs.write(fs.join(staging, "part-9.parquet"), "failed run")
    C.discard(staging, fs)
    assert visible(out) == {"_SUCCESS": b"", "part-0.parquet": b"old"} and beside(out) == []
    staging = C.stage(name(out), fs)
    fs.write(fs.join(staging, "_SUCCESS"), "")
    fs.write(fs.join(staging, "part-1.parquet"), "new")
    C.swap(staging, name(out), fs)
    assert set(visible(out)) == {"_SUCCESS", "part-1.parquet", C.MARKER} and beside(out) == []
    assert json.loads((out / C.MARKER).read_text())["pid"] == os.getpid()


@pytest.mark.parametrize("owner, why", [("none", "no readable _CEPKIT_JOB marker"),
                                        ("live", "is writing next to this output now"),
                                        ("other host", "remove it by hand if that job is over")])
def test_leftover_not_provably_ours_and_over_is_named_and_kept(tmp_path, fs, owner, why):
    fs, name = fs
    out = tmp_path / "out"
    pid = {"none": None, "live": os.getppid(), "other host": _dead_pid()}[owner]
    stale = _leftover(out, C.NEW, pid, {"part-0.parquet": b"?"})
    if owner == "other host":
        (stale / C.MARKER).write_text(json.dumps({"host": "elsewhere", "pid": pid}))
    with pytest.raises(C.OutputError, match=why):
        C.recover(name(out), fs)
    assert (stale / "part-0.parquet").read_bytes() == b"?"


def test_a_target_holding_only_temporary_is_named(tmp_path, fs):
    fs, name = fs
    out = tmp_path / "out"
    (out / "_temporary" / "0").mkdir(parents=True)
    with pytest.raises(C.OutputError, match="holds only '_temporary/'"):
        C.recover(name(out), fs)
    assert (out / "_temporary" / "0").is_dir()


def _task_body(log: str):
    """A task body that logs each call and fails on cepkit's own error (as a bad event does)."""
    from cepkit.core.errors import EventError
    from cepkit.spark_jobs.tasks import wrap_error

    def body(rows):
        with open(log, "a", encoding="utf-8") as f:
            f.write("called\n")
        for _ in rows:
            raise wrap_error(EventError("row 1, column 'price': not a number"))
        yield 0

    return body


def test_a_deterministic_failure_is_not_computed_again(spark, tmp_path):
    """A task that failed on cepkit's error (EventError, QueryError) fails the same way on its retry without
    running its body again (spark_jobs/task_errors.py); other failures are retried (the tests above)."""
    from cepkit.spark_jobs.task_errors import folder, remembering
    from cepkit.spark_jobs.tasks import _ERROR_RE, unwrap_error

    log = tmp_path / "calls.log"
    body = remembering(_task_body(str(log)), folder(), lambda text: _ERROR_RE.search(text) is not None)
    with pytest.raises(Exception) as failed:
        spark.sparkContext.parallelize([1, 2, 3], 1).mapPartitions(body).collect()
    # local[2,2]: Spark made two attempts, and the second re-raised the first one's error without calling it
    assert log.read_text() == "called\n"
    found = unwrap_error(str(failed.value))
    assert found is not None and "column 'price': not a number" in str(found)


def test_the_task_error_folder_is_one_the_next_run_cleans_up():
    """A killed driver's folder carries its process id under the prefix cepkit.temp_files removes."""
    from cepkit import temp_files
    from cepkit.spark_jobs import task_errors

    assert task_errors.TASK_ERRORS == temp_files.TASK_ERRORS
    assert os.path.basename(task_errors.folder()).startswith(temp_files.tagged(temp_files.TASK_ERRORS))
