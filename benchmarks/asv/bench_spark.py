"""asv: the Spark job (cepkit.spark_jobs.job.run_job) on a local session (local[2]): Query 3
(examples/query3.sase) over 2*10^5 stock events (8 symbols) in Parquet: read, key, sort, match (the optimized
engine in the Python workers), write. The session is started and the job run once in setup (workers started,
kernels loaded), so the timed part is the warm job. Each benchmark process starts its own session (10-25 s
here): not in the history subset."""
from __future__ import annotations

import os
import shutil
import sys
import tempfile

from ._kit import example, size, stock

EVENTS = 200_000


class SparkJob:
    number = 1
    repeat = (2, 3, 30.0)
    warmup_time = 0.0
    timeout = 600

    def setup(self):
        try:
            from cepkit.spark_jobs.job import run_job
            from cepkit.spark_jobs.session import get_session
        except ImportError as exc:
            raise NotImplementedError(f"no cepkit.spark_jobs job/session: {exc}") from exc
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        self.dir = tempfile.mkdtemp(prefix="cepkit-asv-spark-")
        self.events = os.path.join(self.dir, "stock.parquet")
        self.n = size(EVENTS)
        stock(self.n, symbols=8, volume_max=1010, seed=7).to_parquet(self.events, index=False)
        self.query = example("query3.sase")
        self.spark = get_session("local[2]", app_name="cepkit-asv", **{"spark.ui.enabled": "false"})
        self.run_job = run_job
        self.k = 0
        self.job()   # warm: Python workers started, the engine's kernels loaded, Spark's code generated

    def job(self):
        self.k += 1
        self.run_job(self.query, self.events, os.path.join(self.dir, f"out{self.k}"), spark=self.spark,
                     ts_unit="min")

    def teardown(self):
        self.spark.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def time_job(self):
        self.job()

    def track_events_per_s(self):
        from ._kit import best_seconds

        return self.n / best_seconds(self.job, 2)

    track_events_per_s.unit = "events/s"
