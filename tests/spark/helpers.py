"""Shared by the Spark tests: the single-process answer, and a Spark job's output as comparable rows."""
from __future__ import annotations

import json

import pandas as pd
import pyarrow as pa

import cepkit
from cepkit.core.readers import from_pandas
from cepkit.core.match import canonical_key, json_safe
from cepkit.match_output import match_cells, parquet_table
from cepkit.spark_jobs.typed_output import typed_table

# the tests' short-lived JVMs on 2 cores: the client compiler only and one GC thread (the shared session's driver,
# tests/spark/conftest.py; the cluster's daemons, drivers and executors, test_cluster.py; a job in a child process)
TEST_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def fast_jvm_env() -> dict[str, str]:
    """os.environ for a child process running a Spark job whose JVMs get TEST_JVM."""
    import os

    from cepkit.spark_jobs.local_cluster import java_options_env

    return {**os.environ, **java_options_env(TEST_JVM)}


def ordered(frame: pd.DataFrame) -> pd.DataFrame:
    """The events in the job's order: timestamp, then id."""
    return frame.sort_values(["ts", "id"], kind="stable").reset_index(drop=True)


def single_table(table) -> pa.Table:
    """A single-process MatchTable as `cepkit run --format parquet` writes it (cepkit.output.write_matches:
    cepkit.match_output.match_cells + parquet_table)."""
    names, cells, encoded = match_cells(table, "parquet")
    return parquet_table(names, cells, encoded)


def single_parquet(table) -> pd.DataFrame:
    """`single_table`, read back with pandas as the Spark output is."""
    return single_table(table).to_pandas()


def expected_rows(text: str, frame: pd.DataFrame, engine: str = "reference", selection: str = "all") -> list:
    """The single-process matches over the events in (ts, id) order, as `cepkit run --format parquet` writes
    them, as sorted comparable rows (`output_rows`, the form a Spark job's output is compared in)."""
    program = cepkit.compile(text, engine=engine, selection=selection)
    return parquet_rows(program.run(from_pandas(ordered(frame))))


def parquet_rows(table) -> list:
    """A single-process MatchTable's Parquet rows (`single_parquet`) in `output_rows`' form: its positive
    variables' id lists, ts, then its RETURN columns."""
    layout = table.layout
    return output_rows(single_parquet(table), list(layout.variables), list(layout.payload))


def cell_json(value) -> str:
    """A typed output cell (docs/spark.md "Output", as pandas reads it) as the JSON text of its value
    (json_safe), the form the single-process answer is compared in: null (None, or NaN where a double column
    holds a null), an exact rational struct as its value."""
    from fractions import Fraction

    import numpy as np

    if value is None or (isinstance(value, float) and value != value):
        return "null"
    if isinstance(value, dict) and set(value) == {"numerator", "denominator"}:
        value = Fraction(int(value["numerator"]), int(value["denominator"]))
    from decimal import Decimal

    if isinstance(value, Decimal):  # a decimal(38, 0) column: integers past int64
        value = int(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        value = int(value)  # a whole value of a double column (the column is double where one value is not whole)
    if isinstance(value, np.ndarray):
        value = value.tolist()
    return json.dumps(json_safe(value), default=str, allow_nan=False)


def output_rows(frame: pd.DataFrame, variables: list[str], returns: list[str]) -> list:
    """A job's output rows (one per match) in the same comparable form."""
    rows = []
    for rec in frame.to_dict("records"):
        key = canonical_key({v: list(rec[v]) for v in variables})
        rows.append((key, int(rec["ts"]), tuple((r, cell_json(rec[r])) for r in returns)))
    return sorted(rows)


def stock_parquet(tmp_path_factory, n: int, symbols: int, seed: int) -> tuple[pd.DataFrame, object]:
    """A generated stock stream (benchmarks.workloads.stock) and its Parquet file."""
    from benchmarks.workloads.stock import generate

    frame = generate(n, symbols=symbols, seed=seed)
    path = tmp_path_factory.mktemp("stock") / "stock.parquet"
    frame.to_parquet(path, index=False)
    return frame, path


def typed_stream(frame: pd.DataFrame, cols: list[str]) -> pd.DataFrame:
    """A stream's output read back (its value columns `cols` exact JSON text: docs/spark.md "Output"), those
    columns typed over all its rows as `cepkit run --format parquet` types them (typed_output.typed_table)."""
    return typed_table(pa.Table.from_pandas(frame, preserve_index=False), cols).to_pandas()


def value_types(table: pa.Table, cols: list[str]) -> list:
    """(name, Arrow type) of the columns `cols` of a table, a column of nulls only as text (Spark writes no
    Parquet null type: docs/spark.md "Output")."""
    return [(c, pa.string() if pa.types.is_null(table.schema.field(c).type) else table.schema.field(c).type)
            for c in cols]


def stream_value_types(spark, out, cols: list[str]) -> list:
    """`value_types` of a stream's output typed over all its rows (typed_output.typed_table)."""
    frame = spark.read.parquet(str(out)).toPandas()
    return value_types(typed_table(pa.Table.from_pandas(frame, preserve_index=False), cols), cols)


def cli_parquet(query: str, events, out, ts_unit: str | None = None, engine: str = "reference") -> pa.Table:
    """`cepkit run QUERY EVENTS --format parquet` (the single process's Parquet, run in this process), read
    back: what the Spark batch job's output must equal, schema and rows (docs/spark.md "Output")."""
    from pathlib import Path

    import pyarrow.parquet as pq

    from cepkit.cli import main
    from cepkit.core import registry

    language = registry.detect(query)
    query_file = Path(out).with_suffix(f".{language}")   # not .query: that suffix reads SASE in SASE 1.0's dialect
    query_file.write_text(query)
    argv = ["run", str(query_file), str(events), "--format", "parquet", "--output", str(out), "--engine", engine,
            "--language", language]
    if ts_unit:
        argv += ["--ts-unit", ts_unit]
    assert main(argv) == 0
    return pq.read_table(out)


def table_rows(table: pa.Table) -> list:
    """A Parquet table's rows, sorted, each value as `cell_json`: the Spark output and the single process's are
    compared in this form."""
    frame = table.to_pandas()
    return sorted(tuple(cell_json(v) for v in rec) for rec in frame.itertuples(index=False))


def same_as_single(out, single: pa.Table) -> int:
    """Assert that the Spark job's output under `out` has the single process's schema and rows; its rows."""
    import pyarrow.parquet as pq

    got = pq.read_table(out)
    assert [(f.name, f.type) for f in got.schema] == [(f.name, f.type) for f in single.schema]
    assert table_rows(got) == table_rows(single)
    return got.num_rows
