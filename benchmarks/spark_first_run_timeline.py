"""Where the Spark job's first run in a fresh process spends its matching stage: run Query 3 once (as the demo
does: a new session, the workers started during the statistics pass) and print the job's phases and every Spark
stage of the application from Spark's REST API (tasks, executor run time, JVM CPU time, start and end), so that
the Python-side time of each stage's tasks (run time well above JVM CPU) shows.

    python -m benchmarks.spark_first_run_timeline [N]     # N events (default 200,000, the demo's size)
    python -m benchmarks.spark_first_run_timeline [N] --udf-profile

--udf-profile starts the job's session with Spark's Python UDF profiler on (spark.sql.pyspark.udf.profiler=perf;
the session is then started before the job, so its start-up phase reads about 0) and prints the profile of
each Python stage's tasks, summed over them: the matching stage's is the Python time of its tasks, including
the wait for the JVM's first rows (pyarrow ipc.py __init__).
"""
from __future__ import annotations

import json
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

QUERY3 = Path(__file__).resolve().parent.parent / "examples" / "query3.sase"


def main(argv: list[str] | None = None) -> int:
    args = list(argv if argv is not None else sys.argv[1:])
    profile = "--udf-profile" in args
    n = int(next((a for a in args if a != "--udf-profile"), "200000"))
    from benchmarks.workloads.stock import generate
    from cepkit.spark_jobs.job import run_job

    if profile:   # the job's own settings, and the profiler; run_job then finds this session active
        from cepkit.spark_jobs import warmup
        from cepkit.spark_jobs.session import get_session, job_settings

        get_session(None, **job_settings(None, warmup.cache_env()), **{"spark.sql.pyspark.udf.profiler": "perf"})

    tmp = Path(tempfile.mkdtemp(prefix="cepkit-first-run-"))
    events = tmp / "stock.parquet"
    generate(n, symbols=8, seed=1).to_parquet(events, index=False)
    t0 = time.perf_counter()
    summary = run_job(QUERY3.read_text(), str(events), str(tmp / "out"), ts_unit="min")
    print(f"{n:,} events, first run in this process: {time.perf_counter() - t0:.2f} s; phases: "
          + ", ".join(f"{k} {v:.2f} s" for k, v in summary.phases))
    from pyspark.sql import SparkSession

    if profile:
        SparkSession.getActiveSession().profile.show(type="perf")

    sc = SparkSession.getActiveSession().sparkContext
    if not sc.uiWebUrl:
        print("the Spark UI is off (spark.ui.enabled): no stage timeline")
        return 1
    url = f"{sc.uiWebUrl}/api/v1/applications/{sc.applicationId}/stages?status=complete"
    with urllib.request.urlopen(url) as r:
        stages = sorted(json.load(r), key=lambda s: s["stageId"])
    print("| stage | what | tasks | run time (ms) | JVM CPU (ms) | start | end |")
    print("|---:|---|---:|---:|---:|---|---|")
    for s in stages:
        print(f"| {s['stageId']} | {s['name'][:48]} | {s['numTasks']} | {s['executorRunTime']} | "
              f"{s['executorCpuTime'] // 10**6} | {s.get('submissionTime', '')[11:23]} | "
              f"{s.get('completionTime', '')[11:23]} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
