"""One SparkSession for every Spark test (starting one costs 10-25 s): local[2,2], so that a failed
task is retried once (spark.task.maxFailures = 2 in local mode).

Under `make test` (pytest-xdist) the tests here run in two groups, each in one worker against one session (two
JVMs per suite run): the cluster's and failure tests, and the rest (tests/conftest.py, pytest_xdist_make_scheduler)."""
from __future__ import annotations

import pytest

from tests.spark.helpers import TEST_JVM


@pytest.fixture(scope="session")
def spark():
    from cepkit.spark_jobs.session import DAEMON_MODULE, get_session

    session = get_session(
        "local[2,2]", app_name="cepkit-tests",
        **{"spark.ui.enabled": "false", "spark.sql.shuffle.partitions": "4",
           "spark.default.parallelism": "2",
           "spark.sql.codegen.wholeStage": "false", "spark.sql.codegen.factoryMode": "NO_CODEGEN",
           "spark.driver.defaultJavaOptions": TEST_JVM,   # beside the quiet log's extraJavaOptions
           "spark.sql.execution.arrow.maxRecordsPerBatch": "500",
           # the jobs' warm worker daemon (session.job_settings): a worker forked with the engine imported
           **({"spark.python.daemon.module": DAEMON_MODULE} if DAEMON_MODULE else {})})
    yield session
    session.stop()
