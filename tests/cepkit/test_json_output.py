"""JSON lines are strict JSON: a non-finite float is written as the string "Infinity", "-Infinity" or
"NaN" (the protobuf JSON mapping), never as the bare tokens Python's json module allows by default
(docs/semantics.md, "Output: atomic writes, JSON numbers, Spark retries")."""
from __future__ import annotations

import json
from fractions import Fraction

import pandas as pd
import pyarrow as pa
import pytest

from cepkit.cli import main
from cepkit.forms import json_line
from cepkit.core.match import Match, json_safe

INF, NAN = float("inf"), float("nan")


def strict(line: str):
    """json.loads that refuses NaN / Infinity / -Infinity tokens."""
    def refuse(token):
        raise ValueError(f"not JSON: {token}")

    return json.loads(line, parse_constant=refuse)


def test_strict_parser_refuses_what_python_writes_by_default():
    with pytest.raises(ValueError):
        strict(json.dumps({"x": INF}))


def test_json_safe_maps_non_finite_floats_everywhere():
    value = {"a": [INF, -INF, NAN, 1.5, Fraction(1, 4), Fraction(6, 3)], "b": (NAN,), "c": {"d": -INF}}
    assert json_safe(value) == {"a": ["Infinity", "-Infinity", "NaN", 1.5, 0.25, 2], "b": ["NaN"],
                                "c": {"d": "-Infinity"}}
    line = json_line(value)
    assert strict(line) == json_safe(value) and line.endswith("\n")


def test_match_to_json_is_strict():
    m = Match(bindings=(("a", (1, 2)),), ts=5, payload=(("p", INF), ("q", NAN), ("r", -INF), ("s", 2.5)),
              sign=-1, lifetime=(0, INF))
    out = strict(json.dumps(m.to_json(), allow_nan=False))
    assert out["p"] == "Infinity" and out["q"] == "NaN" and out["r"] == "-Infinity" and out["s"] == 2.5
    assert out["lifetime"] == [0, "Infinity"]


def test_tpstream_match_to_json_is_strict():
    from cepkit.reference.tpstream.run import TPMatch

    m = TPMatch(partition=(INF,), situations=(("A", 1, None),), ts=3, values=(("avg_speed", NAN),))
    out = strict(json.dumps(m.to_json(("car",)), allow_nan=False))
    assert out == {"partition": {"car": "Infinity"}, "situations": {"A": [1, None]}, "ts": 3, "avg_speed": "NaN"}


def test_spark_stream_payload_is_strict_json():
    """A stream's task writes non-finite values as strict JSON (no bare NaN or Infinity) that reads back exact."""
    import math

    from cepkit.core.match_table import unjson
    from cepkit.spark_jobs.tasks import TaskSpec, matches_to_arrow
    from cepkit.spark_jobs.typed_output import STREAM_VALUES

    spec = TaskSpec(query="", engine="reference", selection="all", ts_col="ts", id_col="id", type_col=None,
                    default_type="S", ts_unit=None, type_names=("S",), group_cols=("k",), variables=("a",),
                    returns=("p",), id_is_int=True, values=STREAM_VALUES)
    batch = matches_to_arrow(spec, [Match.make({"a": (1,)}, 1, {"p": v}) for v in (INF, -INF, NAN, 1.5)])
    assert isinstance(batch, pa.RecordBatch)
    back = [unjson(strict(t)) for t in batch.column("p").to_pylist()]
    assert back[0] == INF and back[1] == -INF and math.isnan(back[2]) and back[3] == 1.5


@pytest.fixture
def non_finite(tmp_path):
    """Parquet events whose float attribute holds inf and -inf."""
    path = tmp_path / "nf.parquet"
    pd.DataFrame({"id": [1, 2, 3, 4], "ts": [1, 2, 3, 4], "type": ["S"] * 4, "price": [INF, -INF, 1.5, INF],
                  "v": [1, 2, 3, 4]}).to_parquet(path, index=False)
    return path


@pytest.fixture
def finite(tmp_path):
    """The same events with finite floats (1e300 and fractions) where the others hold infinities."""
    path = tmp_path / "f.parquet"
    pd.DataFrame({"id": [1, 2, 3, 4], "ts": [1, 2, 3, 4], "type": ["S"] * 4, "price": [1e300, -0.1, 1.5, 2.25],
                  "v": [1, 2, 3, 4]}).to_parquet(path, index=False)
    return path


QUERIES = {
    "sase": ("q.sase", "PATTERN SEQ(S a, S b)\nWHERE skip_till_next_match { b.v > a.v }\n"
                       "RETURN a.price AS p, b.price AS q\n", []),
    "sase-streamed": ("q.sase", "PATTERN SEQ(S a, S b)\nWHERE skip_till_next_match { b.v > a.v }\n"
                                "RETURN a.price AS p, b.price AS q\n", ["--chunk-size", "1"]),
    "sql": ("q.sql", "SELECT * FROM t MATCH_RECOGNIZE (ORDER BY ts MEASURES A.price AS p ONE ROW PER MATCH "
                     "PATTERN (A) DEFINE A AS v > 0)\n", []),
}


def _argv(tmp_path, name, events):
    if name == "window":
        return ["window", "filter", str(events), "--where", "v > 0"]
    file, text, extra = QUERIES[name]
    (tmp_path / file).write_text(text)
    return ["run", str(tmp_path / file), str(events), *extra]


@pytest.mark.parametrize("name", sorted(QUERIES) + ["window"])
@pytest.mark.parametrize("to_file", [False, True])
def test_cli_json_lines_parse_strictly(tmp_path, capsys, finite, name, to_file):
    out = tmp_path / "out.jsonl"
    argv = _argv(tmp_path, name, finite)
    assert main([*argv, "--format", "jsonl"] + (["--output", str(out)] if to_file else [])) == 0
    text = out.read_text() if to_file else capsys.readouterr().out
    rows = [strict(line) for line in text.splitlines()]
    assert rows


@pytest.mark.parametrize("name", sorted(QUERIES) + ["window"])
def test_infinite_input_is_refused_not_written(tmp_path, capsys, non_finite, name):
    """Infinite input numbers are an event error (semantics RD rules), so no bare Infinity can reach the output;
    the previous output stays as it was."""
    out = tmp_path / "out.jsonl"
    out.write_text("previous\n")
    argv = _argv(tmp_path, name, non_finite)
    assert main([*argv, "--format", "jsonl", "--output", str(out)]) == 3
    err = capsys.readouterr().err
    assert "row 1, column 'price'" in err and "infinite value" in err
    assert out.read_text() == "previous\n"
