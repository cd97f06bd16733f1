"""The value columns' witnesses (typed_output.witnesses) gathered by the matching tasks as they write their
rows, in a Spark accumulator, so that typing the answer needs no pass over it of its own (spark_io.typed).
A witness set is idempotent (least, greatest, one of each kind), so a task attempt counted twice changes
nothing."""
from __future__ import annotations

from typing import Any, Callable, Iterator

import pyarrow as pa

from cepkit.spark_jobs import typed_output as TO


class WitnessParam:
    """Accumulates {column: witnesses}, each column's lists merged into the witnesses of their union (Spark's
    AccumulatorParam protocol)."""

    def zero(self, value: dict) -> dict:
        return {}

    def addInPlace(self, a: dict, b: dict) -> dict:
        for col, found in b.items():
            a[col] = TO.witnesses([*a.get(col, []), *found])
        return a


def accumulator(spark) -> Any:
    """A new witness accumulator of the session's SparkContext."""
    return spark.sparkContext.accumulator({}, WitnessParam())


def gathering(fn: Callable[[Iterator], Iterator], cols: tuple[str, ...], acc: Any) -> Callable[[Iterator], Iterator]:
    """The mapInArrow body `fn` with the witnesses of its output's columns `cols` added to `acc` once its last
    batch is out."""
    def body(batches: Iterator) -> Iterator:
        found: dict[str, list] = {}
        for rb in fn(batches):
            _add(found, rb, cols)
            yield rb
        acc.add(found)

    return body


def gathering_frames(fn: Callable[[Any], pa.RecordBatch], cols: tuple[str, ...], acc: Any) -> Callable[[Any], Any]:
    """The applyInPandas body: `fn`, one group's rows as an Arrow batch, with the witnesses of its columns `cols`
    added to `acc`, handed to Spark as a pandas frame."""
    def body(frame: Any) -> Any:
        rows = fn(frame)
        found: dict[str, list] = {}
        _add(found, rows, cols)
        acc.add(found)
        return rows.to_pandas()

    return body


def _add(found: dict[str, list], rb: pa.RecordBatch, cols: tuple[str, ...]) -> None:
    for c in cols:
        found[c] = TO.witnesses([*found.get(c, []), *TO.value_witnesses(rb.column(c))])
