"""The Spark job against the single-process engines: same matches for keyed and sliced queries
(Kleene, negation, non-overlap), a task that fails once is retried with the same output, and bad input
is reported before any task runs."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchmarks.workloads.stock import generate
from cepkit.cli import main
from cepkit.spark_jobs.job import default_engine, run_job
from tests.spark.helpers import expected_rows, output_rows

# (engine, task body): the default engine with the default body (applyInPandas), the reference with mapInArrow
CONFIGS = [(default_engine(), "pandas"), ("reference", "arrow")]

KEYED = {
    "kleene-s3": "PATTERN SEQ(stock+ a[], stock b) WHERE skip_till_next_match { [symbol] and a[1].price % 5 = 0 "
                 "and a[i].price > avg(a[..i-1].price) and b.volume < 200 } WITHIN 40 "
                 "RETURN a[1].price AS first_price, avg(a[].price) AS avg_price",
    "neg-s2": "PATTERN SEQ(stock a, !(stock n), stock b) WHERE partition_contiguity { [symbol] and a.volume > 500 "
              "and n.volume < 300 and b.price > a.price } WITHIN 30",
    "trailing-neg-s4": "PATTERN SEQ(stock a, stock b, !(stock n)) WHERE skip_till_any_match { [symbol] and "
                       "a.price % 3 = 0 and b.price > a.price + 1 and n.volume > 900 } WITHIN 8",
}
SLICED = {
    "kleene-lead-neg": "PATTERN SEQ(!(stock n), stock+ a[], stock b) WHERE skip_till_next_match { a[1].volume > 700 "
                       "and a[i].price >= a[i-1].price and b.volume < 100 and n.volume > 990 } WITHIN 12",
    "trailing-neg-s1": "PATTERN SEQ(stock a, stock b, !(stock n)) WHERE strict_contiguity { [symbol] and "
                       "b.volume > a.volume and n.volume < 100 } WITHIN 6",
}


@pytest.fixture(scope="module")
def stock(tmp_path_factory):
    """600 events, 3 symbols; Parquet and CSV copies."""
    frame = generate(600, symbols=3, seed=11)
    root = tmp_path_factory.mktemp("stock")
    frame.to_parquet(root / "stock.parquet", index=False)
    frame.to_csv(root / "stock.csv", index=False)
    return frame, root


def spark_rows(spark, out, text):
    from cepkit.front.language import parse

    q = parse(text)
    variables = [c.var for c in q.pattern.components if not c.negated]
    return output_rows(pd.read_parquet(out), variables, [r.name for r in q.returns])


@pytest.mark.parametrize("engine, udf", CONFIGS)
@pytest.mark.parametrize("name", sorted(KEYED))
def test_keyed_queries_equal_single_process(spark, stock, tmp_path, name, engine, udf):
    frame, root = stock
    text = KEYED[name]
    summary = run_job(text, str(root / "stock.parquet"), str(tmp_path / "out"), engine=engine, spark=spark,
                      udf=udf)
    expected = expected_rows(text, frame, engine=engine)
    assert expected and summary.plan.startswith("by key")
    assert spark_rows(spark, tmp_path / "out", text) == expected == expected_rows(text, frame)  # and the oracle's
    assert summary.events == len(frame) and summary.matches == len(expected)


@pytest.mark.parametrize("engine, udf", CONFIGS)
@pytest.mark.parametrize("name", sorted(SLICED))
def test_sliced_queries_equal_single_process(spark, stock, tmp_path, name, engine, udf):
    frame, root = stock
    text = SLICED[name]
    # slices of 17 ticks: about 35 boundaries for matches and negations to cross
    summary = run_job(text, str(root / "stock.csv"), str(tmp_path / "out"), engine=engine, spark=spark,
                      slice_length=17, udf=udf)
    expected = expected_rows(text, frame, engine=engine)
    assert expected and summary.plan.startswith("by time slice")
    assert spark_rows(spark, tmp_path / "out", text) == expected == expected_rows(text, frame)


def test_non_overlap_by_key(spark, stock, tmp_path):
    frame, root = stock
    text = KEYED["kleene-s3"]
    run_job(text, str(root / "stock.parquet"), str(tmp_path / "out"), engine="reference", spark=spark,
            selection="non_overlap", udf="arrow")
    assert spark_rows(spark, tmp_path / "out", text) == expected_rows(text, frame, selection="non_overlap")


def test_default_type_when_there_is_no_type_column(spark, stock, tmp_path):
    from cepkit.spark_jobs.source import Columns

    frame, _ = stock
    path = tmp_path / "untyped.parquet"
    frame.drop(columns=["type"]).to_parquet(path, index=False)
    text = KEYED["neg-s2"]
    run_job(text, str(path), str(tmp_path / "out"), spark=spark, columns=Columns(default_type="stock"))
    assert spark_rows(spark, tmp_path / "out", text) == expected_rows(text, frame, engine=default_engine())


def test_a_task_failing_once_is_retried_with_identical_output(spark, stock, tmp_path):
    frame, root = stock
    text = SLICED["kleene-lead-neg"]
    marker = tmp_path / "failed-once"
    run_job(text, str(root / "stock.parquet"), str(tmp_path / "out"), spark=spark, slice_length=50,
            fail_once_marker=str(marker))
    assert marker.exists(), "the injected failure must have happened"
    assert spark_rows(spark, tmp_path / "out", text) == expected_rows(text, frame, engine=default_engine())


def test_cli_runs_the_job_and_prints_a_summary(spark, stock, tmp_path, capsys):
    frame, root = stock
    query = tmp_path / "q.sase"
    query.write_text(KEYED["neg-s2"])
    code = main(["spark", "run", str(query), str(root / "stock.csv"), str(tmp_path / "out"), "--master", "local[2,2]"])
    err = capsys.readouterr().err
    assert code == 0, err
    n = len(expected_rows(KEYED["neg-s2"], frame))
    assert f"600 events, {n} matches" in err and "split by key [symbol]" in err


def test_event_error_inside_a_task_is_reported_with_the_event(spark, tmp_path, capsys):
    frame = generate(50, seed=2)
    frame["price"] = frame["price"].astype(str)  # numbers as text are read as numbers; "high" is not one
    frame.loc[17, "price"] = "high"
    frame.to_parquet(tmp_path / "bad.parquet", index=False)
    query = tmp_path / "q.sase"
    query.write_text(KEYED["kleene-s3"])
    code = main(["spark", "run", str(query), str(tmp_path / "bad.parquet"), str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 3
    assert "event id 17" in err and "non-numeric value 'high'" in err


def test_duplicate_ids_refused_before_matching(spark, tmp_path, capsys):
    frame = generate(40, seed=2)
    frame.loc[5, "id"] = 4
    frame.to_parquet(tmp_path / "dup.parquet", index=False)
    query = tmp_path / "q.sase"
    query.write_text(KEYED["neg-s2"])
    assert main(["spark", "run", str(query), str(tmp_path / "dup.parquet"), str(tmp_path / "out")]) == 3
    assert "duplicate event ids" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


# ---- bad input found before Spark starts (no session needed)

@pytest.fixture
def query_file(tmp_path):
    q = tmp_path / "q.sase"
    q.write_text(KEYED["kleene-s3"])
    return q


def test_missing_path(tmp_path, query_file, capsys):
    code = main(["spark", "run", str(query_file), str(tmp_path / "nope.parquet"), str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 3 and "no such file or directory" in err and "nope.parquet" in err


@pytest.mark.parametrize("suffix", ["parquet", "csv"])
def test_missing_column(tmp_path, query_file, capsys, suffix):
    frame = generate(20, seed=1).drop(columns=["volume"])
    path = tmp_path / f"events.{suffix}"
    frame.to_parquet(path, index=False) if suffix == "parquet" else frame.to_csv(path, index=False)
    code = main(["spark", "run", str(query_file), str(path), str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 3
    assert "no column 'volume'" in err and str(path) in err and "line 1" in err


def test_query_that_cannot_be_split_is_refused(tmp_path, capsys):
    q = tmp_path / "q.sase"
    q.write_text("PATTERN SEQ(stock a, stock b) WHERE skip_till_next_match { b.price > a.price }")
    path = tmp_path / "e.parquet"
    generate(20).to_parquet(path, index=False)
    assert main(["spark", "run", str(q), str(path), str(tmp_path / "out")]) == 2
    assert "no [attr] partition key and no WITHIN window" in capsys.readouterr().err


def test_refuses_to_overwrite_a_foreign_directory(tmp_path, query_file, capsys):
    path = tmp_path / "e.parquet"
    generate(20).to_parquet(path, index=False)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("mine")
    assert main(["spark", "run", str(query_file), str(path), str(tmp_path / "out")]) == 1
    assert "refusing to overwrite" in capsys.readouterr().err
    assert (tmp_path / "out" / "keep.txt").exists()


def test_columns_the_query_never_reads_are_dropped_before_the_stage(spark, tmp_path):
    """A wide file (unread columns of several types, one named with a dot): the matching stage carries only
    the columns the job needs (source.stage_columns), and the answer is the single process's."""
    from cepkit.spark_jobs.source import needed_columns, stage_columns, Columns
    from cepkit.front.language import parse

    text = ("PATTERN SEQ(stock a, stock b) WHERE skip_till_next_match { [symbol] and b.price > a.price + 3 } "
            "WITHIN 10 RETURN a.price AS p")
    frame = generate(2_000, symbols=3, seed=2)
    wide = frame.assign(**{"note": "x" * 40, "a.b": 1.5, "tags": [[1, 2]] * len(frame)})
    path = tmp_path / "wide.parquet"
    wide.to_parquet(path, index=False)
    need = needed_columns(parse(text), Columns(), ("symbol",))
    assert stage_columns(list(wide.columns), need, "type") == ["id", "ts", "type", "symbol", "price"]
    run_job(text, str(path), str(tmp_path / "out"), spark=spark, engine="optimized")
    got = output_rows(pd.read_parquet(tmp_path / "out"), ["a", "b"], ["p"])
    assert got and got == expected_rows(text, frame)


def test_date_timestamps_run_as_the_single_process_reads_them(spark, tmp_path):
    """A CSV whose timestamps are dates (Spark's DateType): each is the instant of its midnight, as the readers
    read it (the task got datetime64[D], which pandas refuses: a failed job before); WITHIN in days."""
    import cepkit

    path = tmp_path / "dates.csv"
    path.write_text("type,ts,id,symbol,price\nstock,2024-01-01,1,A,10\nstock,2024-01-02,2,A,15\n"
                    "stock,2024-01-02,5,B,1\nstock,2024-01-03,3,A,30\nstock,2024-01-03,6,B,9\n"
                    "stock,2024-01-05,4,A,40\n")
    text = ("PATTERN SEQ(stock a, stock b) WHERE skip_till_any_match { [symbol] and b.price > a.price + 3 } "
            "WITHIN 2 days RETURN a.price AS p")
    run_job(text, str(path), str(tmp_path / "out"), spark=spark, engine="optimized")
    rows = pd.read_parquet(tmp_path / "out").to_dict("records")
    got = sorted((tuple(r["a"]), tuple(r["b"]), int(r["p"])) for r in rows)
    want = sorted((tuple(m.binding_dict["a"]), tuple(m.binding_dict["b"]), m.payload[0][1])
                  for m in cepkit.run(text, str(path)))
    assert len(want) > 2 and got == want


def test_type_names_padded_with_white_space_bind_as_the_readers_strip_them(spark, tmp_path):
    """The job sends the type as a code over the stripped type names (spark_io.type_code): names padded with
    white space Spark's trim() keeps (tab, no-break space, U+001F) are the readers' stripped names, so the
    matches equal the single process's (a code off by one name would bind another type or none)."""
    frame = generate(300, symbols=2, seed=5)
    pads = np.array(["\tstock", "stock\u00a0", "\x1fstock ", "stock"])
    frame["type"] = pads[np.arange(len(frame)) % 4]
    frame.loc[frame.index % 7 == 0, "type"] = " \ttrade"
    path = tmp_path / "padded.parquet"
    frame.to_parquet(path, index=False)
    text = ("PATTERN SEQ(stock a, trade t, stock b) WHERE skip_till_next_match { [symbol] and b.price > a.price } "
            "WITHIN 20 RETURN a.price AS p")
    summary = run_job(text, str(path), str(tmp_path / "out"), spark=spark)
    expected = expected_rows(text, frame, engine=default_engine())
    assert expected and summary.matches == len(expected)
    assert spark_rows(spark, tmp_path / "out", text) == expected
