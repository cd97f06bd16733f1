"""`cepkit run QUERY.sql EVENTS --engine gpu`: the reference's output, refusals before reading the table."""
from __future__ import annotations

import pytest

from cepkit.cli import main

QUERY = """SELECT * FROM trades MATCH_RECOGNIZE (
  PARTITION BY sym ORDER BY ts MEASURES FIRST(A.id) AS a, LAST(C.id) AS c, COUNT(B.id) AS bs
  ALL MATCHES {strategy} PATTERN (A B* C) WITHIN 6
  DEFINE A AS price > 10, B AS price > PREV(price), C AS price < A.price)
"""
EVENTS = """id,ts,sym,price
1,1,x,11
2,2,y,20
3,3,x,12
4,4,x,13
5,5,y,21
6,6,x,9
7,7,y,5
8,8,x,12
9,9,x,7
"""


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_gpu_output_equals_reference(tmp_path, capsys):
    events = tmp_path / "t.csv"
    events.write_text(EVENTS)
    for strategy in ("CONTIGUOUS", "SKIP_TILL_NEXT_MATCH", "SKIP_TILL_ANY_MATCH"):
        q = tmp_path / "q.sql"
        q.write_text(QUERY.format(strategy=strategy))
        code, ref, err = _run(capsys, "run", q, events, "--format", "csv")
        assert code == 0, err
        for launch in ((), ("--gpu-launch", "event"), ("--gpu-launch", "batch")):
            code, gpu, err = _run(capsys, "run", q, events, "--format", "csv", "--engine", "gpu", "--device", "0",
                                  *launch)
            assert code == 0, err
            assert "engine gpu" in err
            assert gpu == ref and len(ref.splitlines()) > 1


def test_gpu_launch_needs_the_gpu_engine(tmp_path, capsys):
    q = tmp_path / "q.sql"
    q.write_text(QUERY.format(strategy="CONTIGUOUS"))
    code, _out, err = _run(capsys, "run", q, tmp_path / "missing.csv", "--gpu-launch", "event")
    assert code == 2 and "--gpu-launch applies to --engine gpu only, not optimized" in err


def test_refusals_happen_before_the_table_is_read(tmp_path, capsys):
    q = tmp_path / "q.sql"
    q.write_text(QUERY.format(strategy="CONTIGUOUS").replace("(A B* C)", "(A (B | C))"))
    code, _out, err = _run(capsys, "run", q, tmp_path / "missing.csv", "--engine", "gpu")
    assert code == 2 and "engine 'gpu' does not support alternation (run it with" in err and "line 3, column 38" in err
    code, _out, err = _run(capsys, "run", q, tmp_path / "missing.csv", "--engine", "numba")
    assert code == 2 and "cannot run MATCH_RECOGNIZE" in err


@pytest.fixture
def contiguous(tmp_path):
    """(query file, events file) of the contiguous A B* C query."""
    events = tmp_path / "t.csv"
    events.write_text(EVENTS)
    q = tmp_path / "q.sql"
    q.write_text(QUERY.format(strategy="CONTIGUOUS"))
    return q, events


def test_bad_device_is_a_clear_error(contiguous, capsys):
    code, _out, err = _run(capsys, "run", *contiguous, "--engine", "gpu", "--device", "no-such-device")
    assert code == 2 and "no OpenCL device matches 'no-such-device'" in err


def test_device_without_the_gpu_engine_is_refused(contiguous, capsys):
    code, _out, err = _run(capsys, "run", *contiguous, "--device", "0")
    assert code == 2 and "--device chooses the OpenCL device of --engine gpu" in err
