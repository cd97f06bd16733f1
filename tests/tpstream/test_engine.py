"""The TPStream engines under the engine contract (core/contract.py, docs/semantics.md "TPStream
matches as a match table"): bindings, ts / detected, payload columns, feeding in pieces, refusals."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

import cepkit
from cepkit.core import registry
from cepkit.core.errors import EventError, QueryError, ResourceLimit, Unsupported
from cepkit.core.readers import read_events
from cepkit.core.inputs import to_batch
from cepkit.core.match_table import MatchTable
from cepkit.front.tpstream.parser import parse_tpstream
from cepkit.reference.tpstream.run import run_query

ROOT = Path(__file__).resolve().parents[2]
QUERY = (ROOT / "examples" / "tpstream" / "aggressive_drivers.tps").read_text()
CARS = ROOT / "examples" / "tpstream" / "car_sensors.csv"

SIMPLE = """FROM S
DEFINE A AS x > 0, B AS y > 0
PATTERN A overlaps B
WITHIN 100
RETURN sum(A.x) AS total"""
EVENTS = pd.DataFrame({"ts": [1, 2, 3, 4, 5, 6], "x": [0, 1, 1, 1, 0, 0], "y": [0, 0, 1, 1, 1, 0],
                       "id": [10, 11, 12, 13, 14, 15], "type": "S"})


def _compile(query=QUERY, engine="reference", **options):
    return registry.get_engine("tpstream", engine).compile(query, **options)


def _cars():
    return read_events(CARS, ts_unit="s", default_type="event")


@pytest.mark.parametrize("mode", ["exact", "early"])
def test_rows_are_run_query_matches(mode):
    batch = _cars()
    table = _compile(mode=mode).run(batch)
    matches = run_query(parse_tpstream(QUERY), batch, mode)
    assert len(table) == len(matches) > 0
    for row, m in zip(table, matches):
        p = dict(row.payload)
        assert row.ts == row.detected == m.ts
        assert p["car_id"] == m.partition[0]
        assert [(n, p[f"{n}.start"], p[f"{n}.end"]) for n, _s, _e in m.situations] == list(m.situations)
        assert [(n, p[n]) for n, _v in m.values] == list(m.values)
        ids = batch.ids.tolist()
        for (name, start, end), (var, bound) in zip(m.situations, row.bindings):
            assert var == name and bound
            times = [int(batch.ts[ids.index(i)]) for i in bound]
            assert times == sorted(times) and start == times[0] and times[-1] <= m.ts
            assert end is None or times[-1] < end


def test_bindings_are_the_ids_of_each_situation_s_events():
    table = _compile(SIMPLE).run(to_batch(EVENTS))
    assert [(dict(m.bindings), dict(m.payload), m.ts) for m in table] == [
        ({"A": (11, 12, 13), "B": (12, 13, 14)},
         {"A.start": 2, "A.end": 5, "B.start": 3, "B.end": 6, "total": 3}, 6)]
    early = _compile(SIMPLE, mode="early").run(to_batch(EVENTS))
    assert [(dict(m.bindings), dict(m.payload), m.detected) for m in early] == [
        ({"A": (11, 12, 13), "B": (12, 13, 14)},
         {"A.start": 2, "A.end": 5, "B.start": 3, "B.end": None, "total": 3}, 5)]


@pytest.mark.parametrize("mode", ["exact", "early"])
def test_feeding_in_pieces_is_running_at_once(mode):
    batch = _cars()
    whole = _compile(mode=mode).run(batch)
    program = _compile(mode=mode)
    pieces = [program.feed(batch.slice(i, min(len(batch), i + 97))) for i in range(0, len(batch), 97)]
    assert all(len(t) == 0 for t in pieces)   # buffered: matched at close
    assert MatchTable.concat(program.layout, pieces + [program.close()]).rows() == whole.rows()


def test_made_up_ids_continue_across_batches():
    df = EVENTS.drop(columns="id")
    program = _compile(SIMPLE)
    program.feed(to_batch(df.iloc[:3]))
    program.feed(to_batch(df.iloc[3:]))
    assert [dict(m.bindings) for m in program.close()] == [dict(m.bindings) for m in _compile(SIMPLE).run(to_batch(df))]


def test_columns_and_types():
    program = _compile()
    table = program.run(_cars())
    arrow = table.to_arrow()
    assert arrow.column_names == ["A", "B", "C", "ts", "detected", "car_id", "A.start", "A.end", "B.start", "B.end",
                                  "C.start", "C.end", "id", "avg_speed"]
    assert pa.types.is_large_list(arrow.schema.field("A").type)
    assert program.layout.detection and not program.layout.speculative
    df = table.to_pandas()
    assert len(df) == len(table) and (df["ts"] == df["detected"]).all()
    assert MatchTable(table.layout, arrow=arrow).canonical() == table.canonical()


def test_cepkit_compile_routes_to_the_registry():
    program = cepkit.compile(SIMPLE, language="tpstream", engine="reference", mode="exact")
    assert len(program.run(to_batch(EVENTS))) == 1


def test_gpu_refuses_early_output_by_name_at_compile_time():
    with pytest.raises(Unsupported) as info:
        _compile(SIMPLE, engine="gpu", mode="early")
    assert info.value.construct == "early output"
    assert "run it with: optimized, brute, reference" in str(info.value) and info.value.line is None   # an option, not the text


def test_unknown_mode_is_a_query_error():
    for engine in ("reference", "brute", "gpu"):
        with pytest.raises(QueryError, match="unknown TPStream mode"):
            _compile(SIMPLE, engine=engine, mode="eventually")


@pytest.mark.parametrize("mode", ["exact", "early"])
def test_brute_engine_is_the_reference_on_a_prefix_and_refuses_long_inputs(mode):
    batch = _cars()
    cut = batch.slice(0, 300)
    assert _compile(engine="brute", mode=mode).run(cut).rows() == _compile(mode=mode).run(cut).rows()
    with pytest.raises(ResourceLimit, match="takes at most 300 events"):
        _compile(engine="brute", mode=mode).run(batch)


@pytest.mark.parametrize("mode", ["exact", "early"])
def test_brute_program_refuses_long_inputs_at_feed(mode):
    """The limit is the program's: cepkit.compile / cepkit.run refuse as `cepkit run` does, at the feed that
    passes BRUTE_LIMIT events (fed in pieces: the piece that passes it), before anything is enumerated."""
    from cepkit.reference.tpstream.engine import BRUTE_LIMIT

    batch = _cars()
    program = cepkit.compile(QUERY, language="tpstream", engine="brute", mode=mode)
    program.feed(batch.slice(0, BRUTE_LIMIT))
    with pytest.raises(ResourceLimit, match=f"takes at most {BRUTE_LIMIT} events \\(got {BRUTE_LIMIT + 1}\\)"):
        program.feed(batch.slice(BRUTE_LIMIT, BRUTE_LIMIT + 1))
    with pytest.raises(ResourceLimit, match=f"takes at most {BRUTE_LIMIT} events \\(got {len(batch)}\\)"):
        cepkit.run(QUERY, CARS, language="tpstream", engine="brute", mode=mode, ts_unit="s")


def test_bad_input_names_row_and_column():
    program = _compile(SIMPLE)
    program.feed(to_batch(EVENTS.iloc[3:]))
    with pytest.raises(EventError) as info:
        program.feed(to_batch(EVENTS.iloc[:3]))
    assert info.value.column == "ts" and info.value.row == 1
    bad = EVENTS.assign(x=["a", 1, 1, 1, 0, 0])
    with pytest.raises(EventError) as info:
        _compile(SIMPLE).run(to_batch(bad))
    assert info.value.column == "x"
