"""The Spark jobs on a real standalone cluster (issue 31, item 1; cepkit.spark_jobs.local_cluster): a master and
two workers in their own JVMs on 127.0.0.1, each with its own HOME, work directory and empty compile cache. The
jobs run as users run them, `cepkit spark run --master spark://...` in a child process (this process holds the
local SparkSession of the other tests: one SparkContext per process), with the optimized engine; their output
equals the single process's; the executors load the kernels the driver shipped (no task compiles); a worker
killed mid-job (by its process group) costs a retry, not the answer."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import cepkit
from benchmarks.workloads.stock import generate
from cepkit.core.readers import from_pandas
from cepkit.spark_jobs.local_cluster import LocalCluster, can_mount_read_only
from tests.spark.helpers import (TEST_JVM, cli_parquet, expected_rows, fast_jvm_env, output_rows, same_as_single,
                                 stock_parquet)
from tests.spark.test_languages import expected, spark_rows

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
KEYED = ("PATTERN SEQ(stock+ a[], stock b) WHERE skip_till_next_match { [symbol] and a[1].price % 5 = 0 "
         "and a[i].price > avg(a[..i-1].price) and b.volume < 200 } WITHIN 40 "
         "RETURN a[1].price AS first_price, avg(a[].price) AS avg_price")
# jobs in a child process, one driver (one SparkSession) for all: batch jobs through run_job (their summaries),
# the others as the command line runs them (its exit code and what it wrote to sys.stderr), and a stream's output
# read back through its sink's log (committed files only) into one Parquet file; the results as JSON on the last
# line
JOBS = ("import contextlib, io, json, sys, time; from cepkit.cli import main; from cepkit.spark_jobs.job import run_job\n"
        "out = []\n"
        "for a in json.loads(sys.argv[1]):\n"
        "    t0 = time.monotonic()\n"
        "    if 'read' in a:\n"
        "        from pyspark.sql import SparkSession\n"
        "        SparkSession.getActiveSession().read.parquet(a['read']).toPandas().to_parquet(a['to'])\n"
        "        out.append({'wall': time.monotonic() - t0}); continue\n"
        "    if 'cli' in a:\n"
        "        err = io.StringIO()\n"
        "        with contextlib.redirect_stderr(err):\n"
        "            code = main(a['cli'])\n"
        "        out.append({'exit': code, 'stderr': err.getvalue(), 'wall': time.monotonic() - t0}); continue\n"
        "    s = run_job(open(a['query']).read(), a['events'], a['out'], master=a['master'], **a['options'])\n"
        "    out.append({'matches': s.matches, 'compiles': s.task_compiles, 'seconds': s.total_seconds,\n"
        "                'wall': time.monotonic() - t0, 'phases': s.phases})\n"
        "print(json.dumps(out))")


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


def jobs(cluster: LocalCluster, *specs: tuple[Path, Path, Path, dict] | list[str] | dict) -> subprocess.Popen:
    """Start the jobs on the cluster, one after the other in a child process: (query, events, output, options)
    for run_job, a `cepkit spark ...` command line (its --master added), or {"read": stream output, "to": file}."""
    args = [spec if isinstance(spec, dict) else {"cli": [*spec, "--master", cluster.url]} if isinstance(spec, list)
            else {"query": str(spec[0]), "events": str(spec[1]), "out": str(spec[2]), "master": cluster.url,
                  "options": spec[3]} for spec in specs]
    return subprocess.Popen([sys.executable, "-c", JOBS, json.dumps(args)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, **cluster.app_env()})


def finished(proc: subprocess.Popen, timeout: float = 400) -> list[dict]:
    out, err = proc.communicate(timeout=timeout)
    proc.stderr_text = err
    assert proc.returncode == 0, err[-3000:]
    return json.loads(out.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def stock(tmp_path_factory):
    return stock_parquet(tmp_path_factory, 20_000, symbols=4, seed=11)


@pytest.fixture(scope="module")
def runs(cluster, stock, read_only_dir, tmp_path_factory):
    """Every job of the tests below, one after the other in one driver (one application) on the cluster: its
    folder and the results (jobs). One application start, not one per test."""
    from cepkit.reference.replay.store import write_store
    from tests.spark.test_replay_spark import QUERY as REPLAY
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
    specs = [(query, path, tmp_path / "sase", {"partitions": 4}),
             *[(q, e, tmp_path / name, {"partitions": 2, **o}) for name, q, e, o in OTHERS],
             (EX / "afa" / "q1.afa.yaml", afa_events, tmp_path / "afa", {"key": "sym", "partitions": 2}),
             ["spark", "stream", str(tmp_path / "stream.sase"), str(src), str(tmp_path / "streamed"), "--checkpoint",
              str(tmp_path / "ckpt"), "--once", "--max-files-per-trigger", "1"],
             {"read": str(tmp_path / "streamed"), "to": str(tmp_path / "streamed.parquet")},
             ["spark", "index", str(store), "--index", "p"],
             ["spark", "replay", str(tmp_path / "replay.sql"), str(store), str(tmp_path / "replayed")]]
    if read_only_dir is not None:   # last: an output the workers cannot write (the previous output in place)
        out = read_only_dir / "out"
        out.mkdir()
        (out / "_SUCCESS").write_text("")
        (out / "part-0.parquet").write_bytes(b"the previous output")
        specs.append(["spark", "run", str(EX / "query3.sase"), str(EX / "fig3_stream.csv"), str(out)])
    proc = jobs(cluster, *specs)
    start = time.monotonic()
    results = finished(proc)
    print(f"cluster jobs: {time.monotonic() - start:.1f} s; each: {[round(r['wall'], 1) for r in results]}; "
          f"phases of the first: {results[0]['phases']}")
    return {"dir": tmp_path, "results": results, "stderr": proc.stderr_text, "trades": trades, "afa": afa_text,
            "streamed": streamed}


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
    assert [r.get("exit") for r in results[4:8]] == [0, None, 0, 0], results
    got = output_rows(pd.read_parquet(tmp_path / "sase"), ["a", "b"], ["first_price", "avg_price"])
    assert got == expected_rows(KEYED, frame)
    assert results[0]["matches"] == len(got) > 0
    assert results[0]["compiles"] == 0   # no task compiled: the kernel pack reached both executors
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
    result = runs["results"][-1]
    assert result["exit"] == 1, result
    lines = result["stderr"].strip().splitlines()
    assert len(lines) == 1, lines
    assert f"the Spark job writing {out} failed: " in lines[0] and "Mkdirs failed to create" in lines[0], lines
    assert " on executor " in lines[0] and "Spark's traces: " in lines[0] and "cwd=" not in lines[0], lines
    assert "Traceback" not in runs["stderr"], runs["stderr"][-3000:]   # nor on the driver's own standard error
    assert sorted(p.name for p in read_only_dir.iterdir()) == ["out"]
    assert (out / "part-0.parquet").read_bytes() == b"the previous output"


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


@pytest.mark.skipif(_python_without_cepkit() is None, reason="needs a Python on this machine without cepkit "
                    "(the executors' Python of the test)")
def test_executors_that_cannot_import_cepkit_are_one_line_naming_the_log(tmp_path):
    """Executors whose Python lacks cepkit (PYSPARK_PYTHON): exit 1 with one line naming that Python and what
    to do, Spark's traces in the log the line names; nothing is written."""

    python = _python_without_cepkit()
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "cepkit", "spark", "run", str(EX / "query3.sase"),
                           str(EX / "fig3_stream.csv"), str(out)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300,
                          env={**fast_jvm_env(), "PYSPARK_PYTHON": python, "TMPDIR": str(tmp_path)})
    assert done.returncode == 1, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert f"the executors' Python {python} cannot import cepkit: install cepkit" in last, last
    log = last.rsplit("Spark's traces: ", 1)[1].rstrip(")")
    assert log.startswith(str(tmp_path)) and "No module named 'cepkit'" in Path(log).read_text()
    assert "Traceback" not in done.stderr and not out.exists()


def test_a_worker_killed_mid_job_costs_a_retry_not_the_answer(cluster, stock, tmp_path):
    """SIGKILL to worker 0 and its executor once the matching stage has reached it (the executor fetched the
    driver's kernel pack, which the job adds just before that stage): the job finishes on worker 1 with the
    clean run's rows, each once (Spark's output commit). Last in this file: the worker stays dead (a test after
    it that needs two workers would call cluster.restart_worker(0), about 10 s)."""
    frame, path = stock
    query = tmp_path / "keyed.sase"
    query.write_text(KEYED)
    start = time.monotonic()
    proc = jobs(cluster, (query, path, tmp_path / "out", {"partitions": 8}))
    deadline = time.monotonic() + 240
    work = cluster.root / "worker-0" / "work"
    while time.monotonic() < deadline and proc.poll() is None:
        logs = list(work.glob("app-*/*/stderr"))
        if any("cepkit-kernels-" in p.read_text(errors="replace") for p in logs):
            break
        time.sleep(0.1)
    assert proc.poll() is None, "the job ended before the worker could be killed"
    cluster.kill_worker(0)
    summary, = finished(proc)
    got = output_rows(pd.read_parquet(tmp_path / "out"), ["a", "b"], ["first_price", "avg_price"])
    assert got == expected_rows(KEYED, frame)   # sorted rows: a duplicate would show
    assert summary["matches"] == len(got)
    print(f"job with a worker killed: {time.monotonic() - start:.1f} s")
