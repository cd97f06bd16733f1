"""The Spark jobs on a real standalone cluster (issue 31, item 1; cepkit.spark_jobs.local_cluster): a master and
two workers in their own JVMs on 127.0.0.1, each with its own HOME, work directory and empty compile cache. The
jobs run as users run them, `cepkit spark run --master spark://...` in a child process (this process holds the
local SparkSession of the other tests: one SparkContext per process), with the optimized engine; their output
equals the single process's; the executors load the kernels the driver shipped (no task compiles); a worker
killed mid-job (by its process group) costs a retry, not the answer. Every job runs in one application (one
driver, one executor per worker): an application's start is most of a small job's time on two cores."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import cepkit
from benchmarks.workloads.stock import generate
from cepkit.core.readers import from_pandas
from cepkit.spark_jobs.class_archive import archive_path
from cepkit.spark_jobs.local_cluster import LocalCluster, can_mount_read_only
from tests.spark.helpers import TEST_JVM, cli_parquet, expected_rows, output_rows, same_as_single, stock_parquet
from tests.spark.test_languages import expected, spark_rows

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
KEYED = ("PATTERN SEQ(stock+ a[], stock b) WHERE skip_till_next_match { [symbol] and a[1].price % 5 = 0 "
         "and a[i].price > avg(a[..i-1].price) and b.volume < 200 } WITHIN 40 "
         "RETURN a[1].price AS first_price, avg(a[].price) AS avg_price")
# jobs in a child process, one driver (one SparkSession) for all: batch jobs through run_job (their summaries),
# the others as the command line runs them (its exit code and what it wrote to sys.stderr), and a stream's output
# read back through its sink's log (committed files only) into one Parquet file. Each job in its own job group,
# whose stages' lost and retried tasks it reports; a job with "kill" prints KILL once the matching stage (its
# `partitions` tasks) runs a task on each executor: the parent then kills worker 0; one with "python" stops the
# application and runs its command line in a new one, in this driver's JVM, whose executors run that Python.
# The results: JSON, last line.
JOBS = """import contextlib, io, json, os, sys, threading, time
from cepkit.cli import main
from cepkit.spark_jobs.job import run_job


def context():
    from pyspark import SparkContext
    return SparkContext._active_spark_context   # the process's (a session is active in its own thread only)


def watch(tasks, done):
    while not done.wait(0.02):
        sc = context()
        tracker = sc.statusTracker() if sc is not None else None
        for stage in (tracker.getActiveStageIds() if tracker is not None else []):
            info = tracker.getStageInfo(stage)
            if info is not None and info.numTasks == tasks and info.numActiveTasks >= 2:
                print("KILL", flush=True)
                return


def retries(group):
    tracker = context().statusTracker()
    stages = [tracker.getStageInfo(s) for j in tracker.getJobIdsForGroup(group)
              for s in tracker.getJobInfo(j).stageIds]
    return sum(s.numFailedTasks + s.currentAttemptId for s in stages if s is not None)


out = {}
for a in json.loads(sys.argv[1]):
    t0 = time.monotonic()
    if 'python' in a:
        from pyspark.sql import SparkSession
        SparkSession.getActiveSession().stop()
        os.environ['PYSPARK_PYTHON'] = a['python']
    elif context() is not None:
        context().setJobGroup(a["name"], a["name"])
    if 'read' in a:
        from pyspark.sql import SparkSession
        SparkSession.getActiveSession().read.parquet(a['read']).toPandas().to_parquet(a['to'])
        out[a["name"]] = {'wall': time.monotonic() - t0}
        continue
    if 'cli' in a:
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            code = main(a['cli'])
        out[a["name"]] = {'exit': code, 'stderr': err.getvalue(), 'wall': time.monotonic() - t0}
        continue
    done = threading.Event()
    if a.get("kill"):
        threading.Thread(target=watch, args=(a['options']['partitions'], done), daemon=True).start()
    s = run_job(open(a['query']).read(), a['events'], a['out'], master=a['master'], **a['options'])
    done.set()
    out[a["name"]] = {'matches': s.matches, 'compiles': s.task_compiles, 'seconds': s.total_seconds,
                      'wall': time.monotonic() - t0, 'phases': s.phases, 'retried': retries(a["name"])}
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def read_only_dir(tmp_path_factory) -> Path | None:
    """A folder the cluster's workers see as a read-only mount (the driver can write it), None where this
    machine cannot make one (local_cluster.can_mount_read_only)."""
    return tmp_path_factory.mktemp("workers-read-only") if can_mount_read_only() else None


@pytest.fixture(scope="module")
def cluster(read_only_dir):
    with LocalCluster(workers=2, cores=1, memory="1g", read_only=(read_only_dir,) if read_only_dir else (),
                      java_options=TEST_JVM) as c:
        yield c


def jobs(cluster: LocalCluster, specs: dict, stderr, cwd: Path, env: dict | None = None) -> subprocess.Popen:
    """Start the named jobs on the cluster, one after the other in a child process: (query, events, output,
    options) for run_job, with "kill" as a fifth item for the job during which worker 0 is killed; a `cepkit
    spark ...` command line (its --master added); {"read": stream output, "to": file}; or {"cli": a command line
    with its own --master, "python": the executors' Python} run in a new application after the others."""
    args = []
    for name, spec in specs.items():
        if isinstance(spec, dict):
            args.append({"name": name, **spec})
        elif isinstance(spec, list):
            args.append({"name": name, "cli": [*spec, "--master", cluster.url]})
        else:
            args.append({"name": name, "query": str(spec[0]), "events": str(spec[1]), "out": str(spec[2]),
                         "master": cluster.url, "options": spec[3], "kill": spec[4:] == ("kill",)})
    return subprocess.Popen([sys.executable, "-c", JOBS, json.dumps(args)], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=stderr, text=True, env={**os.environ, **cluster.app_env(), **(env or {})})


def finished(proc: subprocess.Popen, cluster: LocalCluster, stderr: Path, timeout: float = 400) -> tuple[dict, bool,
                                                                                                      list[str]]:
    """The child's results by job name once it ends (killed after `timeout` s), whether it said KILL (worker 0
    was then killed at once), and the other lines it wrote to its standard output."""
    killed, lines = False, []
    timer = threading.Timer(timeout, proc.kill)   # a child that hangs without a line still ends
    timer.start()
    try:
        for line in proc.stdout:   # KILL, then the results
            if line.strip() == "KILL" and not killed:
                cluster.kill_worker(0)
                killed = True
            else:
                lines.append(line)
        proc.wait()
    finally:
        timer.cancel()
    assert proc.returncode == 0, stderr.read_text(errors="replace")[-3000:]
    return json.loads(lines.pop()), killed, lines


@pytest.fixture(scope="module")
def stock(tmp_path_factory):
    return stock_parquet(tmp_path_factory, 20_000, symbols=4, seed=11)


@pytest.fixture(scope="module")
def runs(cluster, stock, read_only_dir, tmp_path_factory):
    """Every job of the tests below, one after the other in one driver (one application) on the cluster: its
    folder, the results by job name, the driver's standard error and output (its file descriptors: the JVM's
    too), and whether worker 0 was killed (during the job "killed"). One application start, not one per test."""
    from cepkit.reference.replay.store import write_store
    from tests.spark.test_replay_spark import QUERY as REPLAY
    from tests.spark.test_spark_csv_strict import HEADER, KEYED as BAD_CELL_QUERY
    from tests.spark.test_stream import KLEENE, with_flush, write_files

    tmp_path = tmp_path_factory.mktemp("cluster-runs")
    frame, path = stock
    query = tmp_path / "keyed.sase"
    query.write_text(KEYED)
    streamed = with_flush(generate(400, symbols=3, seed=11))
    src = tmp_path / "src"
    write_files(src, streamed, [130, 260], shift=10)
    (tmp_path / "stream.sase").write_text(KLEENE)
    rng = np.random.default_rng(7)
    trades = pd.DataFrame({"ts": np.cumsum(rng.integers(0, 3, 300)), "id": np.arange(5000, 5300),
                           "p": rng.integers(0, 100, 300), "v": rng.integers(0, 1000, 300)})
    store = tmp_path / "store"
    write_store(from_pandas(trades, type_col=None, default_type="e"), store, block_size=10, blocks_per_file=6,
                secondary=["p"])
    (tmp_path / "replay.sql").write_text(REPLAY)
    afa_text, afa_events = _afa_by_key(tmp_path)
    (tmp_path / "bad-cell.sase").write_text(BAD_CELL_QUERY)
    (tmp_path / "bad-cell.csv").write_text(HEADER + "A,1,1,s,1\nB,2,2,s,abc\nA,3,3,t,2\nB,4,4,t,3\n")
    specs = {"sase": (query, path, tmp_path / "sase", {"partitions": 4}),
             **{name: (q, e, tmp_path / name, {"partitions": 2, **o}) for name, q, e, o in OTHERS},
             "afa": (EX / "afa" / "q1.afa.yaml", afa_events, tmp_path / "afa", {"key": "sym", "partitions": 2}),
             "stream": ["spark", "stream", str(tmp_path / "stream.sase"), str(src), str(tmp_path / "streamed"),
                        "--checkpoint", str(tmp_path / "ckpt"), "--once", "--max-files-per-trigger", "1"],
             "read": {"read": str(tmp_path / "streamed"), "to": str(tmp_path / "streamed.parquet")},
             "index": ["spark", "index", str(store), "--index", "p"],
             "replay": ["spark", "replay", str(tmp_path / "replay.sql"), str(store), str(tmp_path / "replayed")],
             "bad-cell": ["spark", "run", str(tmp_path / "bad-cell.sase"), str(tmp_path / "bad-cell.csv"),
                          str(tmp_path / "bad-cell")]}
    if read_only_dir is not None:   # an output the workers cannot write (the previous output in place)
        out = read_only_dir / "out"
        out.mkdir()
        (out / "_SUCCESS").write_text("")
        (out / "part-0.parquet").write_bytes(b"the previous output")
        specs["read-only"] = ["spark", "run", str(EX / "query3.sase"), str(EX / "fig3_stream.csv"), str(out)]
    # last: the same job clean, then with worker 0 killed once its matching stage runs on both executors
    specs["clean"] = (query, path, tmp_path / "clean", {"partitions": 8})
    specs["killed"] = (query, path, tmp_path / "killed", {"partitions": 8}, "kill")
    python = _python_without_cepkit()
    if python is not None:   # then a local application whose executors' Python lacks cepkit
        specs["no-cepkit"] = {"cli": ["spark", "run", str(EX / "query3.sase"), str(EX / "fig3_stream.csv"),
                                      str(tmp_path / "no-cepkit"), "--master", "local[1]"], "python": python}
    # the driver's class archive (spark_jobs/class_archive.py) is a file that is no archive: the driver runs as
    # without one, silently
    env = {"TMPDIR": str(tmp_path),   # where the driver's log of Spark's traces goes (failures.log_path)
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", env["XDG_CACHE_HOME"])
        archive = archive_path()
    archive.parent.mkdir(parents=True)
    archive.write_bytes(b"not a class archive")
    stderr = tmp_path / "driver-stderr.txt"
    start = time.monotonic()
    with open(stderr, "w") as err:
        proc = jobs(cluster, specs, err, tmp_path, env)   # not in the checkout: no cepkit to import there
        results, killed, stdout = finished(proc, cluster, stderr)
    walls = {k: round(r["wall"], 1) for k, r in results.items()}
    print(f"cluster jobs: {time.monotonic() - start:.1f} s; each: {walls}; "
          f"phases of the first: {results['sase']['phases']}")
    return {"dir": tmp_path, "results": results, "stderr": stderr.read_text(errors="replace"), "trades": trades,
            "afa": afa_text, "streamed": streamed, "killed": killed, "stdout": stdout, "python": python}


OTHERS = [("sql", EX / "sql" / "v_shape.sql", EX / "sql" / "ticker.csv", {}),
          ("tps", EX / "tpstream" / "aggressive_drivers.tps", EX / "tpstream" / "car_sensors.csv", {"ts_unit": "s"})]


def test_every_language_and_every_job_on_the_cluster_equals_the_single_process(runs, stock):
    """SASE+ by key (mapInArrow); MATCH_RECOGNIZE, TPStream by PARTITION BY and AFA by key (the generic path);
    a SASE+ stream (three files, one micro-batch each, --once) and an index-pruned MATCH_RECOGNIZE replay, in one
    driver on the cluster. The executors start with empty compile caches and load the kernels the driver
    shipped: no task of the batch job compiles."""
    from tests.spark.test_replay_spark import QUERY as REPLAY, rows_of, spark_rows as replay_rows
    from tests.spark.test_stream import KLEENE, frame_stream_rows

    frame, _ = stock
    tmp_path, results = runs["dir"], runs["results"]
    assert [results[k].get("exit") for k in ("stream", "read", "index", "replay")] == [0, None, 0, 0], results
    got = output_rows(pd.read_parquet(tmp_path / "sase"), ["a", "b"], ["first_price", "avg_price"])
    assert got == expected_rows(KEYED, frame)
    assert results["sase"]["matches"] == len(got) > 0
    assert results["sase"]["compiles"] == 0   # no task compiled: the kernel pack reached both executors
    for name, q, e, o in OTHERS:   # their own columns, as `cepkit run --format parquet` writes them
        single = cli_parquet(q.read_text(), e, tmp_path / f"{name}-single.parquet", ts_unit=o.get("ts_unit"))
        assert same_as_single(tmp_path / name, single) > 0, name
    want, table = [], None
    for key in ("X", "Y"):
        table = cepkit.run(runs["afa"], str(tmp_path / f"afa-{key}.csv"), engine="reference")
        want += expected(table, key)
    assert want and spark_rows(tmp_path / "afa", table) == sorted(want, key=repr)
    streamed = pd.read_parquet(tmp_path / "streamed.parquet")   # read by the cluster's driver through the log
    assert frame_stream_rows(streamed, KLEENE) == expected_rows(KLEENE, runs["streamed"])
    want = rows_of(cepkit.run(REPLAY, runs["trades"], engine="reference"))
    assert want and replay_rows(tmp_path / "replayed") == want


def test_an_output_path_the_workers_cannot_write_is_one_line_and_keeps_the_previous_output(runs, read_only_dir):
    """The output folder is on a mount the workers see read-only (the driver can write it and stages the
    output there): exit 1 with one line naming the output, the failed write and the executor, Spark's traces in
    the log it names, the previous output as it was and no staging folder left."""
    if read_only_dir is None:
        pytest.skip("this machine cannot give the workers a read-only mount (needs unshare -m and mount --bind)")
    out = read_only_dir / "out"
    result = runs["results"]["read-only"]
    assert result["exit"] == 1, result
    lines = result["stderr"].strip().splitlines()
    assert len(lines) == 1, lines
    assert f"the Spark job writing {out} failed: " in lines[0] and "Mkdirs failed to create" in lines[0], lines
    assert " on executor " in lines[0] and "Spark's traces: " in lines[0] and "cwd=" not in lines[0], lines
    assert "Traceback" not in runs["stderr"], runs["stderr"][-3000:]   # nor on the driver's standard error
    assert sorted(p.name for p in read_only_dir.iterdir()) == ["out"]
    assert (out / "part-0.parquet").read_bytes() == b"the previous output"


def test_a_failed_task_is_one_line_not_spark_traces(runs):
    """A bad cell found in a task on an executor: cepkit's one-line error (exit 3), not Spark's Java and Python
    traces for each attempt, neither from Python nor from the driver's JVM; the traces are in the log."""
    result = runs["results"]["bad-cell"]
    assert result["exit"] == 3, result
    lines = result["stderr"].strip().splitlines()
    assert len(lines) == 1 and "non-numeric value 'abc'" in lines[0], lines
    assert "Traceback" not in runs["stderr"] and "PythonException" not in runs["stderr"], runs["stderr"][-3000:]
    logs = list(runs["dir"].glob("cepkit-spark-*.log"))   # Spark's own traces: in the driver's log file
    assert len(logs) == 1 and "non-numeric value 'abc'" in logs[0].read_text()
    assert not (runs["dir"] / "bad-cell").exists()


def _afa_by_key(tmp_path: Path) -> tuple[str, Path]:
    """AFA Q1 over two keys (tests/spark/test_languages.py test_afa_by_key): the events, and each key's alone."""
    text = (EX / "afa" / "q1.afa.yaml").read_text()
    rows = []
    for rec in pd.read_csv(EX / "afa" / "q1.events.csv", dtype=str).to_dict("records"):
        if rec["kind"] == "insert":
            rows += [{**rec, "sym": "X"}, {**rec, "sym": "Y", "change": str(-int(rec["change"]))}]
        else:
            rows.append({**rec, "sym": None})
    frame = pd.DataFrame(rows)
    frame.to_csv(tmp_path / "afa.csv", index=False)
    for key in ("X", "Y"):
        frame[(frame.sym == key) | frame.sym.isna()].to_csv(tmp_path / f"afa-{key}.csv", index=False)
    return text, tmp_path / "afa.csv"


def test_an_unreachable_master_is_one_line_at_once(tmp_path):
    """A standalone master that does not answer: exit 1 with one line naming it, before Spark starts (Spark
    itself retries for about a minute, then prints its traces); nothing is written."""
    from cepkit.spark_jobs.local_cluster import free_port

    out = tmp_path / "out"
    master = f"spark://127.0.0.1:{free_port()}"
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "cepkit", "spark", "run", str(EX / "query3.sase"),
                           str(EX / "fig3_stream.csv"), str(out), "--master", master], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert done.stderr.strip().splitlines()[-1] == (f"error: cannot reach the Spark master {master} "
                                                    f"({master[8:]}: Connection refused): start it, or check the "
                                                    "URL given to --master")
    assert len(done.stderr.strip().splitlines()) == 1 and time.monotonic() - start < 30
    assert not out.exists()


def _python_without_cepkit() -> str | None:
    import shutil

    for candidate in ("/usr/bin/python3", shutil.which("python3")):
        if candidate and os.path.realpath(candidate) != os.path.realpath(sys.executable):
            probe = subprocess.run([candidate, "-c", "import cepkit"], capture_output=True, cwd="/")
            if probe.returncode != 0:
                return candidate
    return None


def test_executors_that_cannot_import_cepkit_are_one_line_naming_the_log(runs):
    """Executors whose Python lacks cepkit (PYSPARK_PYTHON; an application of its own, in the same driver):
    exit 1 with one line naming that Python and what to do, Spark's traces in the log the line names; nothing
    is written."""
    if runs["python"] is None:
        pytest.skip("needs a Python on this machine without cepkit (the executors' Python of the test)")
    python, result = runs["python"], runs["results"]["no-cepkit"]
    assert result["exit"] == 1, result
    lines = result["stderr"].strip().splitlines()
    assert len(lines) == 1 and f"the executors' Python {python} cannot import cepkit: install cepkit" in lines[0], lines
    log = lines[0].rsplit("Spark's traces: ", 1)[1].rstrip(")")
    assert log.startswith(str(runs["dir"])) and "No module named 'cepkit'" in Path(log).read_text()
    assert "Traceback" not in runs["stderr"] and not (runs["dir"] / "no-cepkit").exists()


def test_a_class_archive_that_is_no_archive_is_passed_over_silently(runs):
    """The driver's class archive (spark_jobs/class_archive.py) is a file that is no archive: the driver started
    and ran every job above, and nothing of the JVM's reached its standard output or error. (Java 17 says nothing
    of such a file even without class_archive.QUIET; an archive that does not fit the class path is what it
    warns about on standard output, and QUIET's presence is pinned by tests/spark/test_class_archive.py.)"""
    assert runs["stdout"] == [], runs["stdout"]
    assert "[cds" not in runs["stderr"] and "SharedArchiveFile" not in runs["stderr"], runs["stderr"][-3000:]


def test_a_worker_killed_mid_job_costs_a_retry_not_the_answer(runs, stock):
    """SIGKILL to worker 0 and its executor once the matching stage runs a task on each executor: the job
    finishes on worker 1 with the clean run's rows, each once (Spark's output commit), having run the lost
    tasks again. The last job on the cluster (worker 0 stays dead); the same job clean just before it."""
    frame, _ = stock
    assert runs["killed"], "the job ended before worker 0 could be killed"
    clean, killed = runs["results"]["clean"], runs["results"]["killed"]
    assert killed["retried"] > 0 == clean["retried"], (clean, killed)   # tasks lost with the executor, run again
    want = expected_rows(KEYED, frame)
    for name in ("clean", "killed"):
        got = output_rows(pd.read_parquet(runs["dir"] / name), ["a", "b"], ["first_price", "avg_price"])
        assert got == want, name   # sorted rows: a duplicate would show
        assert runs["results"][name]["matches"] == len(got)
    print(f"the job with a worker killed: {killed['wall']:.1f} s; clean: {clean['wall']:.1f} s")
