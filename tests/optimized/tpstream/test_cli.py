"""`cepkit run <query.tps> <events> --engine optimized` prints what `--engine reference` prints
(with --early too)."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from tests.cepkit.test_cli import run_cli

EX = Path(__file__).resolve().parents[3] / "examples" / "tpstream"


def _lines(out: str) -> list:
    return sorted(json.dumps(json.loads(line), sort_keys=True) for line in out.splitlines() if line.strip())


@pytest.mark.parametrize("flags", [(), ("--early",)])
def test_aggressive_drivers_example_same_output(capsys, flags):
    runs = {}
    for engine in ("reference", "optimized"):
        code, out, err = run_cli(capsys, "run", EX / "aggressive_drivers.tps", EX / "car_sensors.csv", "--ts-unit", "s",
                                 "--engine", engine, *flags)
        assert code == 0, err
        runs[engine] = _lines(out)
    assert runs["optimized"] == runs["reference"]
    assert runs["reference"]  # the example has matches


def test_event_error_exit_code_is_the_reference_s(tmp_path, capsys):
    q = tmp_path / "q.tps"
    q.write_text("FROM s DEFINE A AS x > 0, B AS y > 0 PATTERN A meets B WITHIN 5")
    ev = tmp_path / "ev.csv"
    pd.DataFrame({"ts": [1, 2, 3], "x": [0, "high", 1], "y": [0, 0, 1]}).to_csv(ev, index=False)
    results = [run_cli(capsys, "run", q, ev, "--engine", engine) for engine in ("reference", "optimized")]
    (ref_code, _o1, ref_err), (opt_code, _o2, opt_err) = results
    assert ref_code == opt_code == 3
    assert "row 2" in opt_err and "column 'x'" in opt_err and "Traceback" not in opt_err
