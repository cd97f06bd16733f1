"""The optimized AFA engine against the reference: the examples (in order, shuffled, fed in chunks), the CLI
acceptance command, bad input (same error class, message, row and column; atomic) and refusals by name."""
from __future__ import annotations

from collections import Counter

import pandas as pd
import pytest

import cepkit
from cepkit.cli import main
from cepkit.core import registry
from cepkit.core.errors import EventError, QueryError, Unsupported
from tests.afa.test_examples import EXAMPLES

NAMES = ("q1", "q2", "q3", "head_shoulders", "negative")
AB = (EXAMPLES / "ab.afa.yaml").read_text()


def _program(engine: str, text: str = AB, **options):
    return cepkit.compile(text, language="afa", engine=engine, **options)


def _net(rows: Counter) -> Counter:
    out: Counter = Counter()
    for (_k, _ts, sign, lifetime, _d, payload), n in rows.items():
        out[(lifetime, payload)] += sign * n
    return +out


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("stream", ["events", "shuffled"])
def test_examples_give_the_reference_rows(name, stream):
    text = (EXAMPLES / f"{name}.afa.yaml").read_text()
    path = EXAMPLES / f"{name}.{stream}.csv"
    tables = {e: _program(e, text).run(registry.read_input("afa", e, str(path))) for e in ("reference", "optimized")}
    assert tables["optimized"].canonical() == tables["reference"].canonical()
    assert tables["optimized"].to_arrow().schema.names == tables["reference"].to_arrow().schema.names


def test_fed_in_chunks_gives_the_same_rows():
    text = (EXAMPLES / "q2.afa.yaml").read_text()
    frame = pd.read_csv(EXAMPLES / "q2.shuffled.csv")
    ref = _program("reference", text).run(frame)
    opt = _program("optimized", text)
    rows: Counter = Counter()
    for i in range(0, len(frame), 7):
        rows += opt.feed(frame.iloc[i:i + 7]).canonical()
    rows += opt.close().canonical()
    assert rows == ref.canonical()


def test_cli_net_output_equals_the_reference(capsys):
    """The acceptance command of issue 16: --engine optimized prints exactly what --engine reference prints."""
    out = {}
    for engine in ("reference", "optimized"):
        code = main(["run", str(EXAMPLES / "q1.afa.yaml"), str(EXAMPLES / "q1.shuffled.csv"), "--net",
                     "--engine", engine])
        assert code == 0
        out[engine] = capsys.readouterr()
    assert out["optimized"].out == out["reference"].out and out["optimized"].out.strip()
    assert out["optimized"].err == out["reference"].err.replace("engine reference", "engine optimized")


def test_cli_change_stream_nets_like_the_reference(capsys):
    streams = {}
    for engine in ("reference", "optimized"):
        assert main(["run", str(EXAMPLES / "q2.afa.yaml"), str(EXAMPLES / "q2.shuffled.csv"), "--engine",
                     engine]) == 0
        streams[engine] = sorted(capsys.readouterr().out.splitlines())
    assert streams["optimized"] == streams["reference"]


# ---------------------------------------------------------------- bad input
BAD = [
    ("retraction never inserted", [{"kind": "retract", "type": "A", "le": 1, "v": 1}]),
    ("retraction with another payload", [{"type": "A", "le": 1, "v": 1},
                                         {"kind": "retract", "type": "A", "le": 1, "v": 2}]),
    ("retraction twice", [{"type": "A", "le": 1, "v": 1}, {"kind": "retract", "type": "A", "le": 1, "v": 1},
                          {"kind": "retract", "type": "A", "le": 1, "v": 1}]),
    ("late beyond the punctuation", [{"type": "A", "le": 6, "v": 1}, {"kind": "punctuate", "le": 5},
                                     {"type": "B", "le": 4, "v": 1}]),
    ("retraction below the punctuation", [{"type": "A", "le": 1, "v": 1}, {"kind": "punctuate", "le": 5},
                                          {"kind": "retract", "type": "A", "le": 1, "v": 1}]),
    ("duplicate timestamp", [{"type": "A", "le": 1, "v": 1}, {"type": "B", "le": 1, "v": 2}]),
    ("duplicate timestamp of the cover", [{"type": "A", "le": 1, "v": 1}, {"kind": "punctuate", "le": 2},
                                          {"type": "B", "le": 1, "v": 2}]),
    ("empty lifetime", [{"type": "A", "le": 3, "re": 3, "v": 1}]),
    ("unknown kind", [{"type": "A", "le": 1, "v": 1}, {"kind": "upsert", "type": "A", "le": 2, "v": 1}]),
    ("missing timestamp", [{"type": "A", "v": 1}]),
]


def _error(engine: str, rows: list[dict], frame: bool):
    program = _program(engine)
    good = [{"type": "A", "le": 100, "v": 1}, {"type": "B", "le": 102, "v": 2}]
    with pytest.raises(EventError) as info:
        program.feed(pd.DataFrame(good + rows) if frame else good + rows)
    tail = program.feed([{"type": "B", "le": 104, "v": 5}]).canonical() + program.close().canonical()
    return info.value, tail


@pytest.mark.parametrize("frame", [False, True], ids=["rows", "frame"])
@pytest.mark.parametrize("what, rows", BAD, ids=[b[0] for b in BAD])
def test_bad_input_gets_the_reference_error(what, rows, frame):
    ref, ref_tail = _error("reference", rows, frame)
    opt, opt_tail = _error("optimized", rows, frame)
    assert (type(opt), str(opt), opt.row, opt.column) == (type(ref), str(ref), ref.row, ref.column)
    # the elements before the refused one were applied; their rows come with the next feed (as the reference)
    assert opt_tail == ref_tail


def test_bad_input_exit_code_is_the_reference(tmp_path, capsys):
    ev = tmp_path / "e.csv"
    ev.write_text("kind,type,le,v\ninsert,A,6,1\npunctuate,,5,\ninsert,A,4,1\n")
    got = []
    for engine in ("reference", "optimized"):
        got.append((main(["run", str(EXAMPLES / "ab.afa.yaml"), str(ev), "--engine", engine]),
                    capsys.readouterr().err))
    assert got[0] == got[1] and got[0][0] == 3


# ---------------------------------------------------------------- refusals by name
@pytest.mark.parametrize("name", NAMES)
def test_ignorable_flavor_gives_the_reference_rows(name):
    """AFA+ignore: the reference's change stream (fewer retractions than the basic flavour's), per chunk."""
    text = (EXAMPLES / f"{name}.afa.yaml").read_text()
    frame = pd.read_csv(EXAMPLES / f"{name}.shuffled.csv")
    ref = _program("reference", text, flavor="ignorable")
    opt = _program("optimized", text, flavor="ignorable")
    for i in range(0, len(frame), 13):
        assert opt.feed(frame.iloc[i:i + 13]).canonical() == ref.feed(frame.iloc[i:i + 13]).canonical()


def test_unknown_flavor_is_a_query_error():
    with pytest.raises(QueryError, match="unknown AFA flavor"):
        _program("optimized", flavor="bogus")


def _dynamic_rows(name: str = "q3") -> list[dict]:
    """The example's shuffled stream with the dynamic pattern of its standby arcs in the middle (default mode:
    delete t8, insert t8up), and again later."""
    frame = pd.read_csv(EXAMPLES / f"{name}.shuffled.csv")
    rows = [{k: v for k, v in r.items() if not (isinstance(v, float) and v != v)} for r in frame.to_dict("records")]
    rows.insert(40, {"kind": "arc_delete", "arc": "t8"})
    rows.insert(41, {"kind": "arc_insert", "arc": "t8up"})
    rows.insert(90, {"kind": "arc_delete", "arc": "t8up"})
    rows.insert(91, {"kind": "arc_insert", "arc": "t8"})
    return rows


def test_dynamic_patterns_in_default_mode_give_the_reference_rows():
    text = (EXAMPLES / "q3.afa.yaml").read_text()
    rows = _dynamic_rows()
    ref, opt = _program("reference", text), _program("optimized", text)
    for i in range(0, len(rows), 9):
        assert opt.feed(rows[i:i + 9]).canonical() == ref.feed(rows[i:i + 9]).canonical()


@pytest.mark.parametrize("rows", [
    [{"kind": "arc_insert", "arc": "t8"}],                        # already active
    [{"kind": "arc_delete", "arc": "t8up"}],                      # not active
    [{"kind": "arc_delete", "arc": "t8"}, {"kind": "arc_delete", "arc": "t8"}],
], ids=["insert-active", "delete-inactive", "delete-twice"])
def test_dynamic_pattern_errors_are_the_reference_errors(rows):
    text = (EXAMPLES / "q3.afa.yaml").read_text()
    errors = []
    for engine in ("reference", "optimized"):
        with pytest.raises(QueryError) as info:
            _program(engine, text).feed([{"le": 1, "change": 1}] + rows)
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1]


def test_explicit_arc_lifetimes_give_the_reference_rows():
    """An arc inserted with an explicit lifetime [le, re) among stored events, and an arc retracted: the lists
    they touch are re-derived, their final differences output (spec/003 A15)."""
    text = (EXAMPLES / "q3.afa.yaml").read_text()
    frame = pd.read_csv(EXAMPLES / "q3.shuffled.csv")
    rows = [{k: v for k, v in r.items() if not (isinstance(v, float) and v != v)} for r in frame.to_dict("records")]
    rows = rows[:60]
    rows.insert(45, {"kind": "arc_insert", "arc": "t8up", "le": 30, "re": 60})
    rows.insert(50, {"kind": "arc_retract", "arc": "t8up"})
    rows.insert(52, {"kind": "arc_insert", "arc": "t8up", "le": 50})
    rows.insert(55, {"kind": "arc_punctuate", "le": 40})
    ref, opt = _program("reference", text), _program("optimized", text)
    for i in range(0, len(rows), 5):
        assert opt.feed(rows[i:i + 5]).canonical() == ref.feed(rows[i:i + 5]).canonical(), i


@pytest.mark.parametrize("rows", [
    [{"kind": "punctuate", "le": 5}, {"kind": "arc_insert", "arc": "t8up", "le": 3}],
    [{"kind": "arc_insert", "arc": "t8up", "le": 3}, {"kind": "arc_punctuate", "le": 5},
     {"kind": "arc_retract", "arc": "t8up"}],
], ids=["insert-below-punctuation", "retract-below-arc-punctuation"])
def test_explicit_lifetime_errors_are_the_reference_errors(rows):
    text = (EXAMPLES / "q3.afa.yaml").read_text()
    errors = []
    for engine in ("reference", "optimized"):
        with pytest.raises(EventError) as info:
            _program(engine, text).feed([{"le": 1, "change": 1}] + rows)
        errors.append((type(info.value), str(info.value), info.value.row))
    assert errors[0] == errors[1]


@pytest.mark.parametrize("flavor", ["ignorable", "seq", "cleanse"])
def test_dynamic_patterns_under_other_flavors_are_refused_by_name(flavor):
    text = (EXAMPLES / "q3.afa.yaml").read_text()
    with pytest.raises(Unsupported, match=f"dynamic patterns under flavor {flavor}, at input row 2"):
        _program("optimized", text, flavor=flavor).feed([{"le": 1, "change": 1, "seq": 1},
                                                         {"kind": "arc_delete", "arc": "t8"}])


@pytest.mark.parametrize("old, new, construct", [
    ("e.type = 'A'", "e.type < 'A'", "an ordering comparison of text"),
    ("e.type = 'B'", "e.v", "a value used as a truth value"),
    ('{n: "r.n + e.v"}}\n  - {name: a1', '{n: "e.v > 1"}}\n  - {name: a1', "a truth value as a register value"),
])
def test_what_the_generator_cannot_run_is_refused_by_name(old, new, construct):
    assert old in AB
    with pytest.raises(Unsupported, match=construct):
        _program("optimized", AB.replace(old, new, 1))


def test_non_integer_timestamps_are_refused_by_name():
    with pytest.raises(Unsupported, match="non-integer timestamps"):
        _program("optimized").feed(pd.DataFrame([{"type": "A", "le": 1.5, "v": 1}]))


def test_text_register_and_fraction_values():
    text = """\
register: {n: 0, s: "'x'"}
states: [q0, q1]
start: q0
final: [q1]
arcs:
  - {name: a, from: q0, to: q1, fence: "e.type = 'A'", transfer: {n: "e.v / 3", s: "e.type"}}
"""
    rows = [{"type": "A", "le": 1, "v": 2}, {"type": "B", "le": 2, "v": 1}, {"type": "A", "le": 3, "v": 3}]
    ref = _program("reference", text).run(rows)
    opt = _program("optimized", text).run(rows)
    assert opt.canonical() == ref.canonical() and len(opt) == 2


# ---------------------------------------------------------------- AFA+O (flavor seq)
def _seq_rows(name: str, seed: int = 3) -> list[dict]:
    import random

    frame = pd.read_csv(EXAMPLES / f"{name}.events.csv")
    events = frame[frame["kind"] == "insert"].drop(columns=["kind"]).to_dict("records")
    rows = [{"kind": "insert", **e, "seq": i} for i, e in enumerate(events, start=1)]
    random.Random(seed).shuffle(rows)
    return rows


@pytest.mark.parametrize("name", ["q1", "q2", "q3"])
def test_seq_flavor_gives_the_reference_rows(name):
    text = (EXAMPLES / f"{name}.afa.yaml").read_text()
    rows = _seq_rows(name)
    ref = _program("reference", text, flavor="seq")
    opt = _program("optimized", text, flavor="seq")
    for i in range(0, len(rows), 9):
        assert opt.feed(rows[i:i + 9]).canonical() == ref.feed(rows[i:i + 9]).canonical()


SEQ_BAD = [
    ("no sequence number", [{"type": "A", "le": 1, "v": 1}]),
    ("sequence number used", [{"type": "A", "le": 1, "v": 1, "seq": 1}, {"type": "B", "le": 2, "v": 1, "seq": 1}]),
    ("sequence order disagrees", [{"type": "A", "le": 5, "v": 1, "seq": 1}, {"type": "B", "le": 2, "v": 1, "seq": 2}]),
    ("duplicate timestamp", [{"type": "A", "le": 5, "v": 1, "seq": 1}, {"type": "B", "le": 5, "v": 1, "seq": 2}]),
    ("below the punctuation", [{"type": "A", "le": 5, "v": 1, "seq": 1}, {"kind": "punctuate", "le": 6},
                               {"type": "B", "le": 2, "v": 1, "seq": 2}]),
]


@pytest.mark.parametrize("what, rows", SEQ_BAD, ids=[b[0] for b in SEQ_BAD])
def test_seq_bad_input_gets_the_reference_error(what, rows):
    errors = []
    for engine in ("reference", "optimized"):
        with pytest.raises(EventError) as info:
            _program(engine, flavor="seq").feed(rows)
        errors.append((type(info.value), str(info.value), info.value.row, info.value.column))
    assert errors[0] == errors[1]


def test_seq_input_retraction_is_refused_by_name_at_its_row():
    rows = [{"type": "A", "le": 1, "v": 1, "seq": 1}, {"kind": "retract", "type": "A", "le": 1, "v": 1, "seq": 1}]
    with pytest.raises(Unsupported, match=r"input retractions under flavor seq .*at input row 2"):
        _program("optimized", flavor="seq").feed(rows)


# ---------------------------------------------------------------- Cleanse(sigma)
@pytest.mark.parametrize("sigma", [0, 2, "inf"])
@pytest.mark.parametrize("name", ["q1", "q2"])
def test_cleanse_flavor_gives_the_reference_rows(name, sigma):
    text = (EXAMPLES / f"{name}.afa.yaml").read_text()
    rows = pd.read_csv(EXAMPLES / f"{name}.shuffled.csv")
    rows = [{k: v for k, v in r.items() if not (isinstance(v, float) and v != v)} for r in rows.to_dict("records")]
    ref = _program("reference", text, flavor="cleanse", sigma=sigma)
    opt = _program("optimized", text, flavor="cleanse", sigma=sigma)
    for i in range(0, len(rows), 11):
        assert opt.feed(rows[i:i + 11]).canonical() == ref.feed(rows[i:i + 11]).canonical()
    assert opt.close().canonical() == ref.close().canonical()


CLEANSE_BAD = [
    ("below the punctuation", [{"kind": "punctuate", "le": 5}, {"type": "A", "le": 2, "v": 1}]),
    ("duplicate of a waiting insertion", [{"type": "A", "le": 8, "v": 1}, {"type": "B", "le": 8, "v": 1}]),
    ("retraction of an event never inserted", [{"kind": "retract", "type": "A", "le": 8, "v": 1}]),
    ("waiting empty lifetime, released", [{"type": "A", "le": 8, "re": 8, "v": 1}, {"kind": "punctuate", "le": 7}]),
]


@pytest.mark.parametrize("what, rows", CLEANSE_BAD, ids=[b[0] for b in CLEANSE_BAD])
def test_cleanse_bad_input_gets_the_reference_error(what, rows):
    errors = []
    for engine in ("reference", "optimized"):
        with pytest.raises(EventError) as info:
            _program(engine, flavor="cleanse", sigma=2).feed(rows)
        errors.append((type(info.value), str(info.value), info.value.row, info.value.column))
    assert errors[0] == errors[1]


def test_cleanse_waiting_empty_lifetime_at_the_end_of_input():
    errors = []
    for engine in ("reference", "optimized"):
        program = _program(engine, flavor="cleanse", sigma=2)
        program.feed([{"type": "A", "le": 8, "re": 8, "v": 1}])
        with pytest.raises(EventError) as info:
            program.close()
        errors.append((type(info.value), str(info.value), info.value.row, info.value.column))
    assert errors[0] == errors[1]


def test_a_failed_feed_keeps_its_rows_and_punctuations_for_the_next():
    rows = [{"type": "A", "le": 1, "v": 1}, {"type": "B", "le": 2, "v": 1}, {"kind": "punctuate", "le": 2},
            {"type": "B", "le": 0, "v": 1}]
    got = {}
    for engine in ("reference", "optimized"):
        program = _program(engine)
        with pytest.raises(EventError):
            program.feed(rows)
        table = program.feed([{"type": "A", "le": 5, "v": 1}])
        got[engine] = (table.canonical(), program.punctuations)
    assert got["optimized"] == got["reference"] and got["reference"][1] == [2]


# ---------------------------------------------------------------- the change stream (ChangeStream) and reading
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("stream", ["events", "shuffled"])
@pytest.mark.parametrize("flavor", ["basic", "cleanse"])
def test_both_programs_give_the_same_change_stream_and_net_result(name, stream, flavor):
    """changes() and net() as plain records, equal on both engines; no flag asks the optimized program to keep
    the change stream."""
    from cepkit.core.contract import ChangeStream

    text = (EXAMPLES / f"{name}.afa.yaml").read_text()
    path = str(EXAMPLES / f"{name}.{stream}.csv")
    got = {}
    for engine in ("reference", "optimized"):
        program = _program(engine, text, flavor=flavor, sigma=3)
        assert isinstance(program, ChangeStream)
        program.run(path)
        got[engine] = (program.changes(), program.net())
    assert got["optimized"] == got["reference"]
    changes, net = got["reference"]
    assert changes and all(c["op"] in ("insert", "retract", "punctuate") for c in changes)
    counts: Counter = Counter()
    for c in changes:
        if c["op"] != "punctuate":
            counts[(c["le"], c["re"], repr(c["payload"]))] += 1 if c["op"] == "insert" else -1
    assert {(r["le"], r["re"], repr(r["payload"])): r["count"] for r in net} == +counts
    assert [(r["le"], r["re"]) for r in net] == sorted((r["le"], r["re"]) for r in net)


def test_the_change_stream_has_punctuations_and_grows_feed_by_feed():
    text = (EXAMPLES / "q1.afa.yaml").read_text()
    frame = pd.read_csv(EXAMPLES / "q1.events.csv")
    ref, opt = _program("reference", text), _program("optimized", text)
    for i in range(0, len(frame), 5):
        part = frame.iloc[i:i + 5]
        ref.feed(part), opt.feed(part)
        assert opt.changes() == ref.changes()
    ref.close(), opt.close()
    assert opt.changes() == ref.changes()
    assert any(c["op"] == "punctuate" for c in opt.changes())
    assert opt.changes() is not opt.changes()   # a caller's list: changing it changes nothing kept


def test_infinite_lifetimes_are_written_as_inf():
    rows = [{"type": "A", "le": 1, "re": float("inf"), "v": 1}, {"type": "B", "le": 2, "re": float("inf"), "v": 2}]
    for engine in ("reference", "optimized"):
        program = _program(engine)
        program.run(rows)
        assert program.changes() == [{"op": "insert", "le": 2, "re": "inf", "payload": {"n": 3}}]
        assert program.net() == [{"le": 2, "re": "inf", "payload": {"n": 3}, "count": 1}]


def test_each_engine_reads_what_it_feeds_on():
    """The registry's reader: the reference's (row, element) pairs with the AFA, an AfaInput without it; the
    optimized engine's events file read column-wise, as many elements as the program then feeds on."""
    from cepkit.optimized.afa.inputs import FileColumns
    from cepkit.front.afa.afafile import load_afa
    from cepkit.front.afa.eventfile import AfaInput

    path = str(EXAMPLES / "q1.shuffled.csv")
    afa = load_afa(EXAMPLES / "q1.afa.yaml")
    elements = registry.read_input("afa", "reference", path, afa)
    assert isinstance(elements, list) and all(isinstance(x, tuple) for x in elements)
    assert isinstance(registry.read_input("afa", "reference", path), AfaInput)
    columns = registry.read_input("afa", "optimized", path, afa)
    assert isinstance(columns, FileColumns) and len(columns) == len(elements)
    program = _program("optimized", afa)
    program.run(columns)
    assert program.elements == len(elements)
    with pytest.raises(EventError, match="no such file"):
        registry.read_input("afa", "optimized", str(EXAMPLES / "missing.csv"))


def test_cepkit_run_on_the_optimized_engine_reads_a_path_column_wise(monkeypatch):
    """cepkit.run(afa, path, engine="optimized") goes through the engine's own reader (no row-by-row parse)."""
    import cepkit.front.afa.eventfile as eventfile

    query, path = EXAMPLES / "q2.afa.yaml", EXAMPLES / "q2.shuffled.csv"
    want = cepkit.run(query, path, engine="reference")

    def row_by_row(*args, **kwargs):
        raise AssertionError("the optimized engine read the events file row by row")

    monkeypatch.setattr(eventfile, "read_stream", row_by_row)
    got = cepkit.run(query, path, engine="optimized")
    assert got.canonical() == want.canonical() and len(got)


@pytest.mark.parametrize("engine", ["reference", "optimized"])
def test_cli_limit_cuts_the_change_stream_with_punctuations(capsys, engine):
    """--limit keeps the first N records printed (punctuations count), not compile's limit."""
    args = ["run", str(EXAMPLES / "q1.afa.yaml"), str(EXAMPLES / "q1.events.csv"), "--engine", engine]
    assert main(args) == 0
    whole = capsys.readouterr().out.splitlines()
    assert any('"punctuate"' in line for line in whole[:len(whole) // 2 + 1])
    n = next(i for i, line in enumerate(whole) if '"punctuate"' in line) + 2
    assert main(args + ["--limit", str(n)]) == 0
    out = capsys.readouterr()
    assert out.out.splitlines() == whole[:n]
    assert f"stopped after {n} matches (--limit)" in out.err


@pytest.mark.parametrize("engine", ["reference", "optimized"])
def test_cli_refuses_max_state(capsys, engine):
    code = main(["run", str(EXAMPLES / "q1.afa.yaml"), str(EXAMPLES / "q1.events.csv"), "--engine", engine,
                 "--max-state", "10"])
    assert code != 0
    assert "takes no max_state (--max-state)" in capsys.readouterr().err
