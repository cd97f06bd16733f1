"""Typed output (issue 31 item 3, docs/spark.md "Output", semantics SP-T1): the Spark job's RETURN / MEASURES
columns have the Arrow type and the values that `cepkit run --format parquet` writes, on every example the
Spark job accepts, and the witness rule types a column split into tasks as the whole column."""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pyarrow as pa
import pytest

from cepkit.match_output import Rows, parquet_table
from cepkit.spark_jobs import task_witnesses as TW, typed_output as TO
from cepkit.spark_jobs.job import run_job
from cepkit.spark_jobs.source import Columns
from tests.spark.helpers import cli_parquet, same_as_single

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"

# (query, events, options of both commands): every example file the Spark job accepts (the SASE+ examples on
# JSON lines, SASE 1.0 query files and Trino's VALUES example have no Spark input); trino_orders.sql orders by a
# DATE column (Spark's DateType reached the task as datetime64[D], which pandas refuses: exit 1 before)
EXAMPLES = [
    ("sql/trino_orders.sql", "sql/orders.csv", {}),
    ("query3.sase", "fig3_stream.csv", {}),
    ("sql/v_shape.sql", "sql/ticker.csv", {}),
    ("sql/v_shape_all_rows.sql", "sql/ticker.csv", {}),
    ("sql/crimes_listing31.sql", "sql/crimes.csv", {"ts_unit": "min"}),
    ("tpstream/aggressive_drivers.tps", "tpstream/car_sensors.csv", {"ts_unit": "s"}),
]

COLUMNS = [  # a column's values, as tasks would see them: every split must type as the whole
    [1, 2, None, 3],
    [1.5, 2.0, float("nan"), None],
    [Fraction(1, 3), 2, None],
    [Fraction(3, 1), 4],
    [Fraction(1, 3), 2**60],
    [Fraction(1, 2**55), 1],
    [2**63, 5, -1],
    [10**40, 1],
    ["a", 1, None],
    [True, False],
    [True, None],
    [1.5, float("inf"), 2],
    [None, None],
    ["x", "y\n\"z"],
]


def single_column(values: list) -> pa.Array:
    """The column as `cepkit run --format parquet` writes it (cepkit.match_output)."""
    rows = Rows(["v"], {"v": values}, len(values))
    return parquet_table(rows.names, rows.cells("parquet"), {c: e[0] for c, e in rows.encoded.items()}).column(0)


class Accumulator:
    """Spark's accumulator as the driver sees it: each task's added value merged by the param."""

    def __init__(self) -> None:
        self.param, self.value = TW.WitnessParam(), {}

    def add(self, term: dict) -> None:
        self.value = self.param.addInPlace(self.value, term)


@pytest.mark.parametrize("values", COLUMNS, ids=repr)
def test_tasks_type_a_column_as_the_whole_column(values):
    """Any split of a column into tasks (mapInArrow bodies of one or two batches, or applyInPandas groups), each
    task's witnesses gathered into the accumulator (task_witnesses) and the first task counted twice (a retried
    attempt): every task's rows type as the whole column."""
    whole = single_column(values)
    want_type = pa.string() if pa.types.is_null(whole.type) else whole.type
    for cut in range(len(values) + 1):
        chunks = [values[:cut], values[cut:]]
        tasks = [[pa.record_batch([TO.value_struct(*_encoded(part))], names=["v"]) for part in (c[:1], c[1:]) if part]
                 for c in chunks]
        arrow, frames = Accumulator(), Accumulator()
        for batches in [*tasks, tasks[0]]:
            assert list(TW.gathering(lambda it: it, ("v",), arrow)(iter(batches))) == batches   # rows unchanged
            for rb in batches:   # applyInPandas: one call a group
                TW.gathering_frames(lambda _: rb, ("v",), frames)(None)
        assert arrow.value == frames.value
        found = arrow.value.get("v", [])
        typed = pa.chunked_array([TO.typed_values(TO.value_struct(*_encoded(c)), found) for c in chunks],
                                 type=TO.column_type(found))
        assert typed.type == want_type, (cut, typed.type, whole.type)
        assert typed.to_pylist() == whole.to_pylist(), cut


def test_a_task_without_rows_adds_no_witness():
    acc = Accumulator()
    assert list(TW.gathering(lambda it: it, ("v",), acc)(iter([]))) == [] and acc.value == {}


@pytest.mark.parametrize("values", COLUMNS, ids=repr)
def test_a_streams_text_typed_after_the_fact_is_the_whole_column(values):
    """A stream writes exact JSON text (it cannot see its whole answer before its first row: docs/spark.md
    "Output"); typed_table turns that text, read back, into `cepkit run --format parquet`'s column."""
    whole = single_column(values)
    text = pa.table({"v": TO.exact_json(*_encoded(values)), "other": pa.array(range(len(values)))})
    typed = TO.typed_table(text, ["v"])
    assert typed.column("v").type == (pa.string() if pa.types.is_null(whole.type) else whole.type)
    assert typed.column("v").to_pylist() == whole.to_pylist()
    assert typed.column("other") == text.column("other")


def _encoded(values):
    from cepkit.core.match_table import encode

    col, kind = encode(values)
    return col, (kind.encode() if kind else None)


@pytest.mark.parametrize("query,events,opts", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_spark_output_has_the_single_process_types_and_values(spark, tmp_path, query, events, opts):
    single = cli_parquet((EX / query).read_text(), EX / events, tmp_path / "single.parquet", opts.get("ts_unit"))
    out = tmp_path / "out"
    run_job((EX / query).read_text(), str(EX / events), str(out), spark=spark, engine="reference",
            columns=Columns(), ts_unit=opts.get("ts_unit"))
    assert same_as_single(out, single) > 0   # every column: names, types (the layout of the language) and rows


def test_value_columns_are_the_payload_columns_whatever_their_names():
    """A MEASURES / RETURN column named like a fixed column of another layout (`key` without --key) is a value
    column too (it was left as JSON text: value_columns removed a fixed list of names)."""
    from cepkit.core.match_table import Layout
    from cepkit.spark_jobs.generic_tasks import output_schema, value_columns

    for payload in (("key", "x"), ("detected",), ("ts", "sign")):
        layout = Layout(("A",), payload)
        schema = output_schema(layout, pa.int64())
        assert value_columns(schema, layout) == tuple(schema.names[2:]), payload
    keyed = Layout(("A",), ("key",))
    schema = output_schema(keyed, pa.int64(), key=True)
    assert value_columns(schema, keyed) == ("payload.key",)


EXTRA = [  # the column-wise plans (typed_output.column_plan) and their edges
    [1.5, None, -0.0, float("-inf")],
    [3, 2.5, None, float("nan")],
    [Fraction(1, 3), Fraction(-7, 2**52), 2**53, None],
    [2**53 + 1, 0.5],
    [2**63 - 1, -2**63, None],
]


@pytest.mark.parametrize("values", COLUMNS + EXTRA, ids=repr)
def test_the_job_types_a_value_column_as_the_whole_column(spark, values):
    """spark_io.typed over VALUE rows in two tasks that gather their witnesses (task_witnesses; Spark's
    expressions where the column has a plan, typed_output.typed_rows elsewhere) gives the single process's
    column."""
    from cepkit.spark_jobs.spark_io import typed

    whole = single_column(values)
    rows = pa.table({"k": pa.array(range(len(values)), pa.int64()), "v": TO.value_struct(*_encoded(values))})
    frame = spark.createDataFrame(rows).repartition(2)
    gathered = TW.accumulator(spark)
    tasks = frame.mapInArrow(TW.gathering(lambda batches: batches, ("v",), gathered), frame.schema)
    out, kept = typed(tasks, ("v",), gathered)
    try:
        got = out.toArrow().sort_by("k").column("v")
    finally:
        kept.unpersist()
    assert got.type == (pa.string() if pa.types.is_null(whole.type) else whole.type)
    assert repr(got.to_pylist()) == repr(whole.to_pylist())
