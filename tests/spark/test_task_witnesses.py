"""The witnesses the matching tasks gather (cepkit.spark_jobs.task_witnesses): any split of a column's rows into
tasks and batches, each task's witnesses added to the accumulator once and some task counted twice (a retried
attempt), types the column as the whole column does (`cepkit run --format parquet`)."""
from __future__ import annotations

import pyarrow as pa
import pytest

from cepkit.spark_jobs import task_witnesses as TW
from cepkit.spark_jobs import typed_output as TO
from tests.spark.test_typed_output import COLUMNS, _encoded, single_column


class Accumulator:
    """Spark's accumulator as the driver sees it: each task's added value merged by the param."""

    def __init__(self) -> None:
        self.param, self.value = TW.WitnessParam(), {}

    def add(self, term: dict) -> None:
        self.value = self.param.addInPlace(self.value, term)


def _task(batches: list[pa.RecordBatch], acc: Accumulator) -> list[pa.RecordBatch]:
    body = TW.gathering(lambda it: iter(list(it)), ("v",), acc)
    return list(body(iter(batches)))


@pytest.mark.parametrize("values", COLUMNS, ids=repr)
def test_tasks_gather_the_whole_columns_witnesses(values):
    whole = single_column(values)
    want = pa.string() if pa.types.is_null(whole.type) else whole.type
    for cut in range(len(values) + 1):
        acc = Accumulator()
        tasks = [[pa.record_batch([TO.value_struct(*_encoded(part)), pa.array(range(len(part)))], names=["v", "w"])
                  for part in (chunk[:1], chunk[1:]) if part] for chunk in (values[:cut], values[cut:])]
        for batches in [*tasks, tasks[0]]:   # the first task's attempt counted twice
            assert _task(batches, acc) == batches   # the rows pass unchanged
        found = acc.value.get("v", [])
        typed = TO.typed_values(TO.value_struct(*_encoded(values)), found)
        assert TO.column_type(found) == want or pa.types.is_null(whole.type), (cut, found)
        assert typed.to_pylist() == whole.to_pylist(), cut


def test_a_task_without_rows_adds_nothing():
    acc = Accumulator()
    assert _task([], acc) == [] and acc.value == {}
