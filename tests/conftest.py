"""Hypothesis profiles: bounded in CI (CI=true: 400 examples, derandomized, so the 2-core CI run stays well
inside its 15 minutes), more examples locally (1000, random each run), HYPOTHESIS_PROFILE=thorough for more.
Tests that scale their own max_examples divide these."""
import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=400, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=3000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


# the Spark tests run beside the others under -n: about half of their time in each group (tests/spark/conftest.py;
# `pytest -n 2 tests/spark --durations=0` on 2 quiet cores: see docs/spark.md "Test time")
SECOND_SPARK_GROUP = ("tests/spark/test_cluster.py", "tests/spark/test_failures.py", "tests/spark/test_sql_slices.py",
                      "tests/spark/test_replay_spark.py")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """Under `-n` (make test): the tests of tests/spark in two groups, each in one worker with one local
    SparkSession (one JVM) for all its tests: SECOND_SPARK_GROUP (the cluster's tests, whose jobs run in child
    processes, and the failure tests) and the rest, so the Spark tests use both of CI's cores; every other test
    is balanced on its own. (`--dist loadgroup` would do this, but it stopped grouping with pytest 9.2:
    pytest-xdist issue #1386.)"""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SparkInTwoWorkers(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            if nodeid.startswith(SECOND_SPARK_GROUP):
                return "tests/spark (second group)"
            return "tests/spark" if nodeid.startswith("tests/spark/") else nodeid

    return SparkInTwoWorkers(config, log)
