"""MATCH_RECOGNIZE with WITHIN and no PARTITION BY by time slices, as the Spark job runs it (the walk of AFTER
MATCH SKIP carried across slices; its proofs without Spark: tests/spark_plans/test_sql_walk.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from cepkit.core.errors import QueryError
from cepkit.spark_jobs.job import run_job
from tests.spark.helpers import cli_parquet, same_as_single
from tests.spark_plans.test_sql_walk import case_frame, case_text

def test_spark_job_by_time_slice(spark, tmp_path):
    """Several skip modes, ONE ROW and ALL ROWS PER MATCH with MATCH_NUMBER(), many short slices, on the
    reference engine and (two of them) the optimized one in the tasks."""
    frame = case_frame(400, 8).drop(columns=["id"])   # ids: the file's rows, as the single process numbers them
    path = tmp_path / "t.parquet"
    frame.to_parquet(path, index=False)
    for name, length, engine in (("one-past-last", 4, "optimized"), ("all-to-last", 3, "reference"),
                                 ("all-unmatched", 7, "optimized"), ("order-ties", 5, "reference")):
        text = case_text(name)
        single = cli_parquet(text, path, tmp_path / f"{name}.parquet")
        out = tmp_path / name
        summary = run_job(text, str(path), str(out), spark=spark, engine=engine, slice_length=length,
                          partitions=3)
        assert "AFTER MATCH SKIP walked" in summary.plan
        assert same_as_single(out, single) == summary.matches == single.num_rows > 0


def test_spark_refusals_by_name(spark, tmp_path):
    path = Path(__file__).resolve().parents[2] / "examples" / "sql" / "ticker.csv"
    anchored = case_text("one-past-last").replace("A B+ C*", "^ A B+ C*")
    with pytest.raises(QueryError, match="anchors"):
        run_job(anchored, str(path), str(tmp_path / "o"), spark=spark, engine="reference")
    numbered = case_text("one-past-last").replace("A AS x > 1", "A AS MATCH_NUMBER() > 1")
    with pytest.raises(QueryError, match="MATCH_NUMBER in DEFINE"):
        run_job(numbered, str(path), str(tmp_path / "o"), spark=spark, engine="reference")
    other_key = case_text("one-past-last").replace("ORDER BY ts", "ORDER BY price")
    with pytest.raises(QueryError, match="first ORDER BY key"):
        run_job(other_key, str(path), str(tmp_path / "o"), spark=spark, engine="reference")
    assert not (tmp_path / "o").exists()
