"""Arithmetic beyond 64-bit integers is an EventError naming the event, in the tables and in generated
code, never a wrong answer (the reference, exact, still answers)."""
from __future__ import annotations

import pandas as pd
import pytest

from cepkit import compile
from cepkit.cli import main
from cepkit.core.errors import EventError
from cepkit.core.readers import from_pandas
from tests.optimized.test_codegen import QUERY

BIG = 2**62


def _stream(big_row: int) -> pd.DataFrame:
    rows = [{"id": i, "ts": i // 2, "type": "DACAB"[i % 5], "x": (i * 5) % 4, "g": 0} for i in range(30)]
    rows[big_row]["x"] = BIG
    return pd.DataFrame(rows)


@pytest.mark.parametrize("codegen", [False, True])
def test_overflow_names_the_event(codegen):
    batch = from_pandas(_stream(14))  # row 15, a B: b.x / 3 and b.x * 2 leave int64 when it is tested
    assert compile(QUERY).run(batch) is not None  # the reference is exact
    with pytest.raises(EventError) as err:
        compile(QUERY, engine="optimized", codegen=codegen).run(batch)
    assert err.value.row == 15 and "beyond 64-bit integers" in str(err.value)


def test_sums_of_a_kleene_aggregate_are_checked():
    text = "PATTERN SEQ(A+ a[], B b) WHERE skip_till_any_match { sum(a[].x) > b.x } WITHIN 9"
    frame = pd.DataFrame([{"id": i, "ts": i, "type": "AAAB"[i % 4], "x": BIG if i < 3 else 1} for i in range(8)])
    with pytest.raises(EventError, match="beyond 64-bit integers"):
        compile(text, engine="optimized").run(from_pandas(frame))


def test_cli_overflow_exit_3(tmp_path, capsys):
    events = tmp_path / "e.csv"
    _stream(14).to_csv(events, index=False)
    query = tmp_path / "q.sase"
    query.write_text(QUERY)
    assert main(["run", str(query), str(events), "--engine", "optimized", "--no-progress"]) == 3
    assert "row 15" in capsys.readouterr().err


def test_without_an_engine_named_the_run_goes_on_on_the_reference(tmp_path, capsys):
    """Arithmetic beyond 64 bits is the optimized engines' refusal of the input (Beyond64Bits): with no engine
    named the reference runs it (docs/semantics.md DE2), with the same rows the reference gives."""
    events = tmp_path / "e.csv"
    _stream(14).to_csv(events, index=False)
    query = tmp_path / "q.sase"
    query.write_text(QUERY)
    assert main(["run", str(query), str(events), "--no-progress"]) == 0
    default = capsys.readouterr()
    assert main(["run", str(query), str(events), "--no-progress", "--engine", "reference"]) == 0
    assert default.out == capsys.readouterr().out
    assert "note: engine optimized cannot compute on this input (row 15: a product beyond 64-bit" in default.err
    assert "(engine optimized," not in default.err   # the one that ran is named: the lazy engine, or the reference
