"""The AFA engine under the engine contract (core/contract.py, docs/semantics.md "AFA output as a
match table"): rows, columns, feeding in pieces, input forms, refusals by construct, errors by row."""
from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

import cepkit
from cepkit.conformance.afa_loader import load_cases
from cepkit.core import registry
from cepkit.front.afa.afafile import load_afa
from cepkit.front.afa.eventfile import AfaInput, read_stream, to_elements
from cepkit.front.afa.stream import OutPunctuation, Output
from cepkit.core.errors import EventError, QueryError, Unsupported
from cepkit.core.match_table import MatchTable

ROOT = Path(__file__).resolve().parents[2]
Q1 = ROOT / "examples" / "afa" / "q1.afa.yaml"
Q1_SHUFFLED = ROOT / "examples" / "afa" / "q1.shuffled.csv"
AB = ROOT / "examples" / "afa" / "ab.afa.yaml"
CASES = [c for c in load_cases() if c.error is None]

DYNAMIC = """
window: 10
register: {n: 0}
states: [q0, q1, q2]
start: q0
final: [q2]
arcs:
  - {name: a0, from: q0, to: q1, fence: "e.type = 'A'", transfer: {n: "r.n + e.v"}}
standby_arcs:
  - {name: a1, from: q1, to: q2, fence: "e.type = 'B'", transfer: {n: "r.n + e.v"}}
"""


def _compile(text_or_afa, **options):
    return registry.get_engine("afa", "reference").compile(text_or_afa, **options)


def _options(case) -> dict:
    return {"flavor": case.flavor} | ({"sigma": case.sigma} if case.sigma is not None else {})


@pytest.mark.parametrize("case", CASES, ids=str)
def test_feeding_row_by_row_is_running_at_once(case):
    whole = _compile(case.afa, **_options(case)).run(case.rows)
    program = _compile(case.afa, **_options(case))
    pieces = [program.feed([row]) for row in case.rows] + [program.close()]
    assert MatchTable.concat(program.layout, pieces).rows() == whole.rows()


@pytest.mark.parametrize("case", [c for c in CASES if c.stream is not None], ids=str)
def test_rows_are_the_change_stream_and_punctuations_stay_on_the_program(case):
    """One row per output insertion / retraction, in arrival order: ts = lifetime start = LE."""
    program = _compile(case.afa, **_options(case))
    table = program.run(case.rows)
    outputs = [o for o in program.outputs if isinstance(o, Output)]
    assert [(m.sign, m.lifetime, m.ts) for m in table] == [(o.sign, (o.le, o.re), o.le) for o in outputs]
    assert program.punctuations == [t for op, t, *_ in case.stream if op == "punctuate"] \
        == [o.t for o in program.outputs if isinstance(o, OutPunctuation)]


def test_columns_and_types():
    program = _compile(load_afa(Q1))
    table = program.run(Q1_SHUFFLED)
    assert len(table) > 0 and any(m.sign < 0 for m in table)
    arrow = table.to_arrow()
    register = list(load_afa(Q1).schema)
    assert arrow.column_names == ["ts", "sign", "lifetime_start", "lifetime_end"] + register
    assert arrow.schema.field("sign").type == pa.int8()
    assert program.layout.speculative and not program.layout.detection and program.layout.variables == ()
    df = table.to_pandas()
    assert list(df.columns) == arrow.column_names and len(df) == len(table)
    assert set(df["sign"]) <= {1, -1}
    assert (df["ts"] == df["lifetime_start"]).all()


def test_infinite_lifetime_end_round_trips():
    afa = load_afa(AB)
    rows = [{"type": "A", "le": 1, "re": math.inf, "v": 1}, {"type": "B", "le": 2, "re": math.inf, "v": 2}]
    table = _compile(afa).run(rows)
    assert [m.lifetime for m in table] == [(2, math.inf)]
    assert MatchTable(table.layout, arrow=table.to_arrow()).rows() == table.rows()


def test_inputs_path_dataframe_arrow_and_lazy_input_agree():
    afa = load_afa(Q1)
    want = _compile(afa).run(read_stream(Q1_SHUFFLED, afa)).rows()
    df = pd.read_csv(Q1_SHUFFLED)
    for events in (Q1_SHUFFLED, str(Q1_SHUFFLED), df, pa.Table.from_pandas(df)):
        assert _compile(afa).run(events).rows() == want
    lazy = registry.read_input("afa", "reference", Q1_SHUFFLED)
    assert isinstance(lazy, AfaInput) and to_elements(Q1_SHUFFLED).source == Q1_SHUFFLED
    assert _compile(afa).run(lazy).rows() == want


def test_cepkit_compile_reads_the_afa_text():
    program = cepkit.compile(AB.read_text(), language="afa", engine="reference")
    table = program.run([{"type": "A", "le": 1, "v": 1}, {"type": "B", "le": 2, "v": 2}])
    assert [(m.sign, m.lifetime, dict(m.payload)) for m in table] == [(1, (2, 11), {"n": 3})]
    assert cepkit.run(AB.read_text(), pd.DataFrame([{"type": "A", "le": 1, "v": 1}, {"type": "B", "le": 2, "v": 2}]),
                      language="afa") == table


def test_cleanse_releases_at_close():
    program = _compile(load_afa(AB), flavor="cleanse", sigma=0)
    assert len(program.feed([{"type": "A", "le": 1, "v": 1}, {"type": "B", "le": 2, "v": 2}])) == 0
    assert [dict(m.payload) for m in program.close()] == [{"n": 3}]


@pytest.mark.parametrize("flavor", ["seq", "cleanse"])
def test_standby_arcs_compile_and_an_arc_row_is_refused_by_construct_and_row(flavor):
    """Standby arcs alone are no dynamic pattern: only an arc row is, and only the input shows it."""
    program = _compile(DYNAMIC, flavor=flavor)
    rows = [{"type": "A", "le": 1, "v": 1, "seq": 0}, {"kind": "arc_insert", "arc": "a1"}]
    with pytest.raises(Unsupported) as info:
        program.feed(rows)
    assert info.value.construct == f"dynamic patterns under flavor {flavor}"
    assert "at input row 2" in str(info.value) and "(flavors that run it: basic, ignorable)" in str(info.value)


def test_cleanse_runs_a_pattern_with_standby_arcs_when_the_input_inserts_none():
    """examples/afa/q3 has standby arcs; `cepkit run --flavor cleanse` runs it on its stream."""
    afa = load_afa(ROOT / "examples" / "afa" / "q3.afa.yaml")
    events = ROOT / "examples" / "afa" / "q3.shuffled.csv"
    got = _compile(afa, flavor="cleanse", sigma=3).run(events)
    assert _net(got) == _net(_compile(afa).run(events)) and len(got) > 0


def _net(table) -> dict:
    from collections import Counter

    net: Counter = Counter()
    for m in table:
        net[(m.lifetime, m.payload)] += m.sign
    return +net


def test_constructs_are_declared():
    afa = registry.parse("afa", DYNAMIC)
    assert set(registry.constructs("afa", afa, flavor="seq")) == {"flavor:seq", "register", "window", "standby arcs"}
    for flavor in ("basic", "ignorable", "seq", "cleanse"):
        runners = ["optimized", "reference"]   # issue 16: the optimized engine runs every flavour (default first)
        assert registry.runs("afa", set(registry.constructs("afa", afa, flavor=flavor))) == runners


def test_input_retraction_under_seq_names_construct_row_and_flavours():
    program = _compile(load_afa(AB), flavor="seq")
    rows = [{"type": "A", "le": 1, "v": 1, "seq": 0}, {"kind": "retract", "type": "A", "le": 1, "v": 1, "seq": 0}]
    with pytest.raises(Unsupported) as info:
        program.feed(rows)
    exc = info.value
    assert exc.construct.startswith("input retractions under flavor seq")
    assert "at input row 2" in str(exc) and "basic, ignorable, cleanse" in str(exc)


def test_bad_input_names_row_and_column():
    program = _compile(load_afa(AB))
    df = pd.DataFrame({"type": ["A", "B"], "le": [1, "x"], "v": [1, 2]})
    with pytest.raises(EventError) as info:
        program.feed(df)
    assert (info.value.row, info.value.column) == (2, "le")
    with pytest.raises(EventError, match="row 2, column 'le'"):
        _compile(load_afa(AB)).feed([{"type": "A", "le": 1, "v": 1}, {"type": "B", "le": 1, "v": 2}])


def test_bad_options_are_query_errors():
    with pytest.raises(QueryError, match="unknown AFA flavor"):
        _compile(load_afa(AB), flavor="bogus")
    with pytest.raises(QueryError, match="sigma"):
        _compile(load_afa(AB), flavor="cleanse", sigma=-1)
    with pytest.raises(EventError, match="AFA input must be"):
        _compile(load_afa(AB)).feed(42)
