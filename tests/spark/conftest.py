"""One SparkSession for every Spark test (starting one costs 10-25 s): local[2,2], so that a failed
task is retried once (spark.task.maxFailures = 2 in local mode).

Under `make test` (pytest-xdist) the tests here run in two groups, each in one worker against one session (two
JVMs per suite run): the cluster's and failure tests, and the rest (tests/conftest.py, pytest_xdist_make_scheduler)."""
from __future__ import annotations

import pytest

from tests.spark.helpers import TEST_JVM


@pytest.fixture(scope="session")
def spark():
    from cepkit.spark_jobs.session import get_session, job_settings

    master = "local[2,2]"
    session = get_session(
        master, app_name="cepkit-tests",
        # a job's own session (its warm worker daemon, reused workers, adaptive execution), then the tests' own:
        **{**job_settings(master, {}),
           "spark.ui.enabled": "false", "spark.default.parallelism": "2",
           # a few rows per job: interpreted expressions cost less than compiling each plan's code
           "spark.sql.codegen.wholeStage": "false", "spark.sql.codegen.factoryMode": "NO_CODEGEN",
           "spark.driver.defaultJavaOptions": TEST_JVM,   # beside the quiet log's extraJavaOptions
           "spark.sql.execution.arrow.maxRecordsPerBatch": "500"})   # tasks meet many Arrow batches
    yield session
    session.stop()
