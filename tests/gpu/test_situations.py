"""TPStream situation derivation on the device against the reference deriver and matcher: random streams
with partitions and chunk splits, fixed definitions (programs reused); the CLI; refusals."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cepkit.cli import main
from cepkit.gpu.situations import derive as gpu_derive
from cepkit.gpu.situations import run_query as gpu_run_query
from cepkit.core.errors import EventError, Unsupported
from cepkit.core.readers import from_pandas
from cepkit.front.tpstream.parser import parse_definitions, parse_tpstream
from cepkit.reference.tpstream.run import derive, run_query

# two-valued logic as cepkit.front.evaluate: a comparison with a null is false and NOT makes it true;
# AND / OR / NOT take truthiness (null false, 0 false)
DEFINITIONS = parse_definitions("A AS x > 0 AND y <= 2, B AS y > x AT LEAST 2, C AS x + y = 3 AT MOST 3, "
                                "D AS x >= 1 BETWEEN 2 AND 4, E AS NOT (y <= 1) OR x, F AS x AND NOT y, "
                                "G AS y / 2 >= 1 AND x % 2 = 1")
QUERY = parse_tpstream("FROM s PARTITION BY g DEFINE A AS x > 0, B AS y > 1 AT LEAST 2 "
                       "PATTERN A overlaps;meets;before B WITHIN 12 RETURN sum(A.y) AS s, last(B.x) AS b")
EX = Path(__file__).resolve().parents[2] / "examples" / "tpstream"


@st.composite
def batches(draw):
    n = draw(st.integers(0, 40))
    rows, ts = [], 0
    for _ in range(n):
        ts += draw(st.integers(1, 3))
        rows.append({"ts": ts, "x": draw(st.integers(0, 3)), "y": draw(st.one_of(st.none(), st.integers(0, 3))),
                     "g": draw(st.sampled_from("pq"))})
    df = pd.DataFrame(rows, columns=["ts", "x", "y", "g"]).astype({"y": "object"})
    return from_pandas(df, type_col=None, default_type="E")


@settings(max_examples=100)
@given(batch=batches(), partitioned=st.booleans(), chunk=st.integers(1, 9))
def test_derive_equals_reference(batch, partitioned, chunk):
    pb = ("g",) if partitioned else ()
    want = derive(DEFINITIONS, batch, pb)
    got = gpu_derive(DEFINITIONS, batch, pb, chunk=chunk)
    assert got[0] == want[0]
    assert [(k, n, t, tuple(ev)) for k, n, t, ev in got[1]] == [(k, n, t, tuple(ev)) for k, n, t, ev in want[1]]


@settings(max_examples=60)
@given(batch=batches(), chunk=st.integers(1, 9))
def test_matches_equal_reference(batch, chunk):
    assert gpu_run_query(QUERY, batch, chunk=chunk) == run_query(QUERY, batch)


def _cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_gpu_equals_reference(capsys):
    args = ["run", EX / "aggressive_drivers.tps", EX / "car_sensors.csv", "--ts-unit", "s"]
    code, ref, err = _cli(capsys, *args)
    assert code == 0, err
    code, gpu, err = _cli(capsys, *args, "--engine", "gpu")
    assert code == 0, err
    assert "engine gpu" in err
    assert [json.loads(x) for x in gpu.splitlines()] == [json.loads(x) for x in ref.splitlines()] != []
    code, _out, err = _cli(capsys, *args, "--engine", "gpu", "--early")   # refused by name at compile time
    assert code == 2 and "engine 'gpu' does not support early output (run it with: optimized, brute, reference" in err


def test_refused_condition():
    defs = parse_definitions("A AS (x > 1) = (x > 2)")
    batch = from_pandas(pd.DataFrame({"ts": [1, 2], "x": [1, 2]}), type_col=None, default_type="E")
    with pytest.raises(Unsupported, match="comparisons of conditions"):
        gpu_derive(defs, batch)


def test_overflow_in_a_condition_is_an_event_error():
    defs = parse_definitions("A AS x * 4 > 0")
    batch = from_pandas(pd.DataFrame({"ts": [1, 2], "x": [1, 2 ** 62]}), type_col=None, default_type="E")
    with pytest.raises(EventError, match="overflow"):
        gpu_derive(defs, batch)
