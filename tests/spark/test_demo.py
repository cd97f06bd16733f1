"""The main job of `make demo` on a small stream (in the shared session): it runs and its sample check
compares the Spark output with the reference engine; it prints where its time went, and no task compiled."""
from __future__ import annotations

import pandas as pd

from benchmarks import spark_demo as demo


def test_demo_runs_and_its_sample_equals_the_reference(spark, tmp_path, capsys):
    assert demo.main(["--events", "4000", "--symbols", "3", "--out", str(tmp_path), "--sample", "2500",
                      "--again", "1"]) == 0
    out = capsys.readouterr().out
    assert "events:   4,000" in out and "equal the reference engine's" in out
    assert "  again 1:  " in out and "events/s in the matching stage" in out.split("again 1:")[1]
    # where the time went (job.Summary.phases), and the engine compiled in the driver only (warmup.counting)
    timing = next(line for line in out.splitlines() if line.startswith("  time:"))
    assert [part.split()[0] for part in timing.split(":", 1)[1].split("(")[0].split(",")] == \
        ["start-up", "read", "compile", "match", "commit"]
    assert "compiled: 0 Numba compilation(s) in the tasks (no task compiled)" in out


def test_sample_check_notices_a_missing_match(tmp_path):
    import cepkit
    from benchmarks.workloads.stock import generate
    from cepkit.core.readers import from_pandas
    from cepkit.match_output import match_cells, parquet_table

    text = demo.QUERY3.read_text()
    events = generate(3000, symbols=2, seed=7, volume_max=1010)
    program = cepkit.compile(text, engine="reference")
    matches = program.run(from_pandas(events, ts_unit="min"))
    assert matches
    full = parquet_table(*match_cells(matches, "parquet")).to_pandas()  # the job's rows: `cepkit run --format parquet`'s
    assert demo.sample_check(text, events, full, cutoff=3000) == (len(matches), True)
    assert demo.sample_check(text, events, full.iloc[1:], cutoff=3000) == (len(matches), False)
    changed = full.copy()
    changed.loc[0, "drop_volume"] = changed.loc[0, "drop_volume"] + 1  # a wrong value, not only a missing row
    assert demo.sample_check(text, events, changed, cutoff=3000) == (len(matches), False)
    assert isinstance(full, pd.DataFrame)
