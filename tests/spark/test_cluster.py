"""The Spark jobs on a real standalone cluster (issue 31, item 1; cepkit.spark_jobs.local_cluster): a master and
two workers in their own JVMs on 127.0.0.1, each with its own HOME, work directory and empty compile cache. The
jobs run as users run them, `cepkit spark run --master spark://...` in a child process (this process holds the
local SparkSession of the other tests: one SparkContext per process), with the optimized engine; their output
equals the single process's; the executors load the kernels the driver shipped (no task compiles); a worker
killed mid-job (by its process group) costs a retry, not the answer."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import cepkit
from benchmarks.workloads.stock import generate
from cepkit.spark_jobs.local_cluster import LocalCluster
from tests.spark.helpers import expected_rows, output_rows
from tests.spark.test_languages import expected, spark_rows

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
KEYED = ("PATTERN SEQ(stock+ a[], stock b) WHERE skip_till_next_match { [symbol] and a[1].price % 5 = 0 "
         "and a[i].price > avg(a[..i-1].price) and b.volume < 200 } WITHIN 40 "
         "RETURN a[1].price AS first_price, avg(a[].price) AS avg_price")
# jobs in a child process, one driver (one SparkSession) for all: their summaries as JSON on the last line
JOBS = ("import json, sys; from cepkit.spark_jobs.job import run_job; out = []\n"
        "for a in json.loads(sys.argv[1]):\n"
        "    s = run_job(open(a['query']).read(), a['events'], a['out'], master=a['master'], **a['options'])\n"
        "    out.append({'matches': s.matches, 'compiles': s.task_compiles, 'seconds': s.total_seconds})\n"
        "print(json.dumps(out))")


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster(workers=2, cores=1, memory="1g") as c:
        yield c


def jobs(cluster: LocalCluster, *specs: tuple[Path, Path, Path, dict]) -> subprocess.Popen:
    """Start the jobs (query, events, output, options) on the cluster, one after the other in a child process."""
    args = [{"query": str(q), "events": str(e), "out": str(o), "master": cluster.url, "options": options}
            for q, e, o, options in specs]
    return subprocess.Popen([sys.executable, "-c", JOBS, json.dumps(args)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def finished(proc: subprocess.Popen, timeout: float = 400) -> list[dict]:
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err[-3000:]
    return json.loads(out.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def stock(tmp_path_factory):
    frame = generate(20_000, symbols=4, seed=11)
    path = tmp_path_factory.mktemp("stock") / "stock.parquet"
    frame.to_parquet(path, index=False)
    return frame, path


def test_every_language_on_the_cluster_equals_the_single_process(cluster, stock, tmp_path):
    """SASE+ by key (mapInArrow), MATCH_RECOGNIZE and TPStream by PARTITION BY (the generic path), one driver;
    the executors start with empty compile caches and load the kernels the driver shipped: no task compiles."""
    frame, path = stock
    query = tmp_path / "keyed.sase"
    query.write_text(KEYED)
    others = [("sql", EX / "sql" / "v_shape.sql", EX / "sql" / "ticker.csv", {}),
              ("tps", EX / "tpstream" / "aggressive_drivers.tps", EX / "tpstream" / "car_sensors.csv", {"ts_unit": "s"})]
    summaries = finished(jobs(cluster, (query, path, tmp_path / "sase", {"partitions": 4}),
                              *[(q, e, tmp_path / name, {"partitions": 2, **o}) for name, q, e, o in others]))
    got = output_rows(pd.read_parquet(tmp_path / "sase"), ["a", "b"], ["first_price", "avg_price"])
    assert got == expected_rows(KEYED, frame)
    assert summaries[0]["matches"] == len(got) > 0
    assert summaries[0]["compiles"] == 0   # no task compiled: the kernel pack reached both executors
    for name, q, e, o in others:
        table = cepkit.run(q.read_text(), str(e), read_options=o, engine="reference")
        want = expected(table)
        assert want and spark_rows(tmp_path / name, table) == sorted(want, key=repr), name


def test_a_worker_killed_mid_job_costs_a_retry_not_the_answer(cluster, stock, tmp_path):
    """SIGKILL to worker 0 and its executor once the matching stage has reached it (the executor fetched the
    driver's kernel pack, which the job adds just before that stage): the job finishes on worker 1 with the
    clean run's rows, each once (Spark's output commit). The worker is started again for later tests."""
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
    try:
        summary, = finished(proc)
    finally:
        cluster.restart_worker(0)
    got = output_rows(pd.read_parquet(tmp_path / "out"), ["a", "b"], ["first_price", "avg_price"])
    assert got == expected_rows(KEYED, frame)   # sorted rows: a duplicate would show
    assert summary["matches"] == len(got)
    print(f"job with a worker killed: {time.monotonic() - start:.1f} s")
