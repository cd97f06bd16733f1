"""The Spark job reads CSV by the readers' rules (docs/semantics.md, "Spark reads events by the same rules"):
on every file here `cepkit spark run` gives what the single-process reader and engine give (`cepkit.run`),
the same matches and RETURN values, or exit 3 where they exit 3."""
from __future__ import annotations


import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import cepkit
from cepkit.cli import main
from cepkit.core.errors import EventError
from cepkit.front.language import parse
from cepkit.core.events import exact
from cepkit.core.typed_columns import text_column
from cepkit.spark_jobs import tasks as T
from cepkit.spark_jobs.job import run_job
from tests.spark.helpers import output_rows, parquet_rows, single_table

KEYED = ("PATTERN SEQ(A a, B b) WHERE skip_till_any_match { [sym] and b.x > a.x } WITHIN 10 "
         "RETURN a.x AS ax, b.x AS bx")
SLICED = "PATTERN SEQ(A a, B b) WHERE skip_till_any_match { b.x > a.x } WITHIN 3 RETURN a.x AS ax, b.x AS bx"
HEADER = "type,ts,id,sym,x\n"
# keys s, t, u: s holds integers beyond float64 (exact), t numbers float64 holds, u a null; one file column
VALID = HEADER + "".join(f"{r}\n" for r in [
    "A,1,1,s,99999999999999999999999999999998", "A,2,2,t,5", "B,3,3,s,99999999999999999999999999999999",
    "B,4,4,t,4.5", "B,5,5,t,6", "A,6,6,u,", "B,7,7,u,3", "A,8,8, s,1", "B,9,9,s,1e309", "B,10,10,t,  7"])


def reference_rows(text: str, path) -> list:
    """The single-process matches over the file as `cepkit run --format parquet` writes them (a column
    holding an integer past decimal(38, 0), 10^309 here, is the exact encoding's text there), as sorted
    comparable rows."""
    return parquet_rows(cepkit.run(text, str(path)))


def spark_rows(spark, text: str, path, out, **kw) -> list:
    run_job(text, str(path), str(out), spark=spark, engine="reference", **kw)
    q = parse(text)
    variables = [c.var for c in q.pattern.components if not c.negated]
    return output_rows(pd.read_parquet(out), variables, [r.name for r in q.returns])


def write(tmp_path, text: str, name: str = "events.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("udf", ["arrow", "pandas"])
@pytest.mark.parametrize("text", [KEYED, SLICED], ids=["by-key", "by-slice"])
def test_valid_csv_gives_the_reference_matches_exactly(spark, tmp_path, text, udf):
    path = write(tmp_path, VALID)
    expected = reference_rows(text, path)
    # 10^32-1 > 10^32-2 only when read exactly; 1e309 is the exact integer 10^309
    assert any("99999999999999999999999999999999" in str(r) for r in expected)
    assert spark_rows(spark, text, path, tmp_path / "out", udf=udf, slice_length=2) == expected
    single = single_table(cepkit.run(text, str(path)))  # and each RETURN column has the single process's type
    got = pq.read_table(tmp_path / "out")
    assert [(n, got.schema.field(n).type) for n in ("ax", "bx")] == \
        [(n, single.schema.field(n).type) for n in ("ax", "bx")]


@pytest.mark.parametrize("cells", [
    ["1", "2", "3", "4"], ["1", "", "3", "4"], ["1", "4.5", "3", "99999999999999999999999999999999"],
    ["1", "", "99999999999999999999999999999999", "2"], ["7", "8", "abc", " 9"], ["true", "FALSE", "", "true"],
    ["true", "false", "1", "0"], ["", "NULL", "nan", ""], ["1e309", "2", "1_000", "x"], ["0.1", "2", "", "1e-3"],
])
def test_a_chunk_gets_the_whole_columns_form(cells):
    """What a task makes of its rows of a CSV text column equals the readers' whole column (text_column),
    whatever rows the other tasks hold: chunk forms combined in the driver, then each chunk conformed."""
    whole = text_column(pa.array(cells))
    for cut in range(1, len(cells)):
        chunks = [pa.array(cells[:cut]), pa.array(cells[cut:])]
        form = T.combine_forms([T.form_of(text_column(c)) for c in chunks])
        got = np.concatenate([T.conform(text_column(c), c, form) for c in chunks])
        assert got.dtype == whole.dtype, (cut, form)
        assert [exact(v) for v in got] == [exact(v) for v in whole]
        assert [type(exact(v)) for v in got] == [type(exact(v)) for v in whole]


def test_numeric_key_cells_written_differently_share_a_group(spark, tmp_path):
    """'5', '5.0' and ' 5e0' are one key value for the engine: Spark groups them together."""
    path = write(tmp_path, "type,ts,id,k,x\nA,1,1,5,1\nB,2,2,5.0,2\nB,3,3, 5e0,3\nA,4,4,6,1\n")
    text = "PATTERN SEQ(A a, B b) WHERE skip_till_any_match { [k] and b.x > a.x } WITHIN 10 RETURN b.id AS bid"
    expected = reference_rows(text, path)
    assert len(expected) == 2
    assert spark_rows(spark, text, path, tmp_path / "out") == expected


@pytest.mark.parametrize("rows, shown", [
    ("A,1,1,s,1\nB,2,2,s\nA,3,3,s,4\n", "B,2,2,s"),              # a short row
    ("A,1,1,s,1\nB,2,2,s,3,9\nA,3,3,s,4\n", "B,2,2,s,3,9"),      # a long row
    ("A,1,1,s,1\nB,2,2,s,3\nA,3,3", "A,3,3"),                    # a file cut mid-row
], ids=["short", "long", "truncated"])
def test_ragged_and_truncated_rows_exit_3_naming_the_file(spark, tmp_path, capsys, rows, shown):
    path = write(tmp_path, HEADER + rows)
    with pytest.raises(EventError, match="cells"):
        cepkit.run(KEYED, str(path))
    query = write(tmp_path, KEYED, "q.sase")
    code = main(["spark", "run", str(query), str(path), str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 3, err
    assert str(path) in err and repr(shown) in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("cell", ["1_000", "abc", "inf"])
def test_a_compared_cell_that_is_not_a_number_exits_3(spark, tmp_path, cell):
    path = write(tmp_path, HEADER + f"A,1,1,s,1\nB,2,2,s,{cell}\nA,3,3,t,2\nB,4,4,t,3\n")
    with pytest.raises(EventError, match=f"non-numeric value '{cell}'") as ref:
        cepkit.run(KEYED, str(path))
    assert (ref.value.row, ref.value.column) == (2, "x")
    # the task names the event by its id (its row is not known there); the time-sliced job's tasks read cells
    # by the same code as the keyed job's: one cell there
    for text in (KEYED, SLICED) if cell == "abc" else (KEYED,):
        with pytest.raises(EventError, match=f"column 'x': event id 2: non-numeric value '{cell}'"):
            run_job(text, str(path), str(tmp_path / "out"), spark=spark, engine="reference")


@pytest.mark.parametrize("ts, why", [("99999999999999999999999999999999", "decimal"), ("2.5", "double")])
def test_a_timestamp_that_is_not_an_int64_exits_3_naming_the_column(spark, tmp_path, ts, why):
    path = write(tmp_path, HEADER + f"A,1,1,s,1\nB,{ts},2,s,2\n")
    with pytest.raises(EventError):
        cepkit.run(KEYED, str(path))
    with pytest.raises(EventError, match="integer or datetime timestamps") as got:
        run_job(KEYED, str(path), str(tmp_path / "out"), spark=spark, engine="reference")
    assert got.value.column == "ts" and why in str(got.value)


def test_parquet_infinite_float_exits_3_as_in_the_reference(spark, tmp_path):
    path = tmp_path / "inf.parquet"
    pd.DataFrame({"type": ["A", "B"], "ts": [1, 2], "id": [1, 2], "sym": ["s", "s"],
                  "x": [1.0, float("inf")]}).to_parquet(path, index=False)
    with pytest.raises(EventError, match="x"):
        cepkit.run(KEYED, str(path))
    with pytest.raises(EventError, match="inf"):
        run_job(KEYED, str(path), str(tmp_path / "out"), spark=spark, engine="reference")


def test_header_only_csv_gives_no_matches_as_the_reference(spark, tmp_path):
    """No rows: Spark infers text for every column, yet there is no event to refuse (semantics RD-9)."""
    path = write(tmp_path, HEADER)
    text = KEYED.replace("WITHIN 10", "WITHIN 10 seconds")
    assert list(cepkit.run(text, str(path))) == []
    summary = run_job(text, str(path), str(tmp_path / "out"), spark=spark, engine="reference")
    assert (summary.events, summary.matches) == (0, 0)
    assert pd.read_parquet(tmp_path / "out").empty
