"""`cepkit run PATTERN.afa.yaml EVENTS`: change stream, --net, flavors, errors and exit codes."""
from __future__ import annotations

import json
import shutil
from collections import Counter

import pytest

from cepkit.cli import main
from cepkit.languages import detect
from cepkit.front.afa.afafile import load_afa
from cepkit.front.afa.eventfile import read_stream
from cepkit.reference.afa.oracle import oracle
from cepkit.front.afa.stream import Insert
from tests.afa.test_examples import EXAMPLES

NAMES = ("q1", "q2", "q3", "head_shoulders", "negative")


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _jsonl(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize("suffix", [".afa.yaml", ".afa.yml", ".afa.json", ".AFA.YAML"])
def test_suffix_selects_the_afa_language(suffix):
    assert detect(f"pattern{suffix}").name == "afa"


@pytest.mark.parametrize("name", NAMES)
def test_example_in_order_and_shuffled_give_the_same_net_output(capsys, name):
    afa_path = EXAMPLES / f"{name}.afa.yaml"
    code, ordered, _ = _run(capsys, "run", afa_path, EXAMPLES / f"{name}.events.csv", "--net")
    assert code == 0
    code, shuffled, _ = _run(capsys, "run", afa_path, EXAMPLES / f"{name}.shuffled.csv", "--net")
    assert code == 0
    assert _jsonl(ordered) == _jsonl(shuffled)
    assert _jsonl(ordered), f"the bundled {name} stream should produce matches"
    # and both equal Definition 2 on the bundled events
    afa = load_afa(afa_path)
    events = [x.event for _, x in read_stream(EXAMPLES / f"{name}.events.csv", afa) if isinstance(x, Insert)]
    expected = oracle(afa, events)
    assert sum(r["count"] for r in _jsonl(ordered)) == sum(expected.values())


@pytest.mark.parametrize("name", NAMES)
def test_shuffled_change_stream_nets_to_the_net_output(capsys, name):
    afa_path = EXAMPLES / f"{name}.afa.yaml"
    _, stream, _ = _run(capsys, "run", afa_path, EXAMPLES / f"{name}.shuffled.csv")
    _, net_text, _ = _run(capsys, "run", afa_path, EXAMPLES / f"{name}.shuffled.csv", "--net")
    c: Counter = Counter()
    for r in _jsonl(stream):
        if r["op"] != "punctuate":
            c[json.dumps([r["payload"], r["le"], r["re"]])] += 1 if r["op"] == "insert" else -1
    assert +c == Counter({json.dumps([r["payload"], r["le"], r["re"]]): r["count"] for r in _jsonl(net_text)})


@pytest.mark.parametrize("flavor", ["ignorable", "cleanse"])
def test_flavors_give_the_same_net_output(capsys, flavor):
    afa_path = EXAMPLES / "negative.afa.yaml"
    _, basic, _ = _run(capsys, "run", afa_path, EXAMPLES / "negative.shuffled.csv", "--net")
    code, other, _ = _run(capsys, "run", afa_path, EXAMPLES / "negative.shuffled.csv", "--net",
                          "--flavor", flavor, "--sigma", "0")
    assert code == 0 and _jsonl(other) == _jsonl(basic)


def test_change_stream_of_cc2_with_punctuation(tmp_path, capsys):
    ev = tmp_path / "cc2.csv"
    ev.write_text("kind,type,le,v\ninsert,A,1,1\ninsert,B,3,2\ninsert,C,2,\npunctuate,,5,\n")
    code, out, err = _run(capsys, "run", EXAMPLES / "ab.afa.yaml", ev)
    assert code == 0
    assert _jsonl(out) == [
        {"op": "insert", "le": 3, "re": 11, "payload": {"n": 3}},     # spec/003 §9 CC2
        {"op": "retract", "le": 3, "re": 11, "payload": {"n": 3}},
        {"op": "punctuate", "t": 5},
    ]
    assert "1 retractions" in err


def test_jsonl_events_and_table_output(tmp_path, capsys):
    ev = tmp_path / "cc3.jsonl"
    ev.write_text('{"type": "A", "le": 1, "v": 1}\n{"type": "C", "le": 3}\n{"type": "B", "le": 2, "v": 2}\n')
    code, out, _ = _run(capsys, "run", EXAMPLES / "ab.afa.yaml", ev, "--format", "table")
    assert code == 0 and "insert" in out and "r.n" in out


def test_afa_json_file(tmp_path, capsys):
    p = tmp_path / "ab.afa.json"
    p.write_text(json.dumps({
        "window": 10, "register": {"n": 0}, "states": ["q0", "q1", "q2"], "start": "q0", "final": ["q2"],
        "arcs": [{"from": "q0", "to": "q1", "fence": "e.type = 'A'", "transfer": {"n": "r.n + e.v"}},
                 {"from": "q1", "to": "q2", "fence": "e.type = 'B'", "transfer": {"n": "r.n + e.v"}}]}))
    ev = tmp_path / "e.csv"
    ev.write_text("type,le,v\nA,1,1\nB,2,2\n")
    code, out, _ = _run(capsys, "run", p, ev, "--net")
    assert code == 0 and _jsonl(out) == [{"le": 2, "re": 11, "payload": {"n": 3}, "count": 1}]


def test_query_error_exit_2_names_line_and_column(tmp_path, capsys):
    p = tmp_path / "bad.afa.yaml"
    text = (EXAMPLES / "ab.afa.yaml").read_text().replace("to: q2", "to: q9")
    p.write_text(text)
    code, _, err = _run(capsys, "run", p, EXAMPLES / "q1.events.csv")
    assert code == 2 and "unknown state 'q9'" in err and "line 11" in err


@pytest.mark.parametrize("rows, message", [
    ("kind,type,le,v\nretract,A,1,1\n", "row 1: retraction of event{type=A, v=1}[1, 11), an event never inserted"),
    ("kind,type,le,v\npunctuate,,5,\ninsert,A,4,1\n",
     "row 2, column 'le': insertion of event{type=A, v=1}[4, 14) below"),
    ("kind,type,le,v\ninsert,A,x,1\n", "row 1, column 'le': timestamp 'x' is not a number"),
    ("kind,type,le\nupsert,A,1\n", "row 1, column 'kind': unknown kind 'upsert'"),
    ("kind,type,le,v\ninsert,A,1,1\ninsert,B,1,1\n", "row 2, column 'le'"),
    # issue 14: an attribute the AFA reads (e.v) must be a column; one it computes with must hold numbers
    ("kind,type,le\ninsert,A,1\n", "column 'v': missing attribute column 'v'"),
    ("kind,type,le,v\ninsert,A,1,1\ninsert,B,2,abc\n", "row 2, column 'v': non-numeric value 'abc'"),
])
def test_event_errors_exit_3_name_row_and_column(tmp_path, capsys, rows, message):
    ev = tmp_path / "e.csv"
    ev.write_text(rows)
    code, _, err = _run(capsys, "run", EXAMPLES / "ab.afa.yaml", ev)
    assert code == 3 and message in err


def test_seq_flavor_needs_sequence_numbers(tmp_path, capsys):
    ev = tmp_path / "e.csv"
    ev.write_text("type,le,seq,v\nA,1,1,1\nB,5,2,2\n")
    code, out, _ = _run(capsys, "run", EXAMPLES / "ab.afa.yaml", ev, "--flavor", "seq")
    assert code == 0 and _jsonl(out) == [{"op": "insert", "le": 5, "re": 11, "payload": {"n": 3}}]
    ev.write_text("type,le,v\nA,1,1\n")
    code, _, err = _run(capsys, "run", EXAMPLES / "ab.afa.yaml", ev, "--flavor", "seq")
    assert code == 3 and "row 1, column 'seq'" in err


def test_dynamic_arc_rows(tmp_path, capsys):
    """CC12 from an event file: default-mode arc deletion and insertion."""
    afa = tmp_path / "ab50.afa.yaml"
    afa.write_text((EXAMPLES / "ab.afa.yaml").read_text().replace("window: 10", "window: 50")
                   + "standby_arcs:\n  - {name: a1p, from: q1, to: q2, fence: \"e.type = 'C'\", "
                     "transfer: {n: \"r.n + e.v\"}}\n")
    ev = tmp_path / "e.csv"
    ev.write_text("kind,type,le,v,arc\ninsert,A,10,1,\ninsert,B,20,2,\narc_delete,,,,a1\narc_insert,,,,a1p\n"
                  "insert,A,30,1,\ninsert,C,40,4,\ninsert,A,50,1,\ninsert,B,60,2,\ninsert,C,15,4,\n")
    code, out, _ = _run(capsys, "run", afa, ev, "--net")
    assert code == 0 and _jsonl(out) == [{"le": 40, "re": 80, "payload": {"n": 5}, "count": 1}]


def test_bundled_streams_are_the_generator_output(tmp_path):
    """examples/afa/make_streams.py regenerates the shipped streams byte for byte."""
    import importlib.util

    copy = tmp_path / "afa"
    shutil.copytree(EXAMPLES, copy)
    spec = importlib.util.spec_from_file_location("make_streams", copy / "make_streams.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.main()
    for name in NAMES:
        for suffix in ("events", "shuffled"):
            f = f"{name}.{suffix}.csv"
            assert (copy / f).read_bytes() == (EXAMPLES / f).read_bytes(), f
