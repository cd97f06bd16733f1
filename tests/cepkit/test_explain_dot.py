"""`cepkit explain --format dot|svg` (issue 18 item 2): the DOT text is parsed back (a small parser of the DOT
subset cepkit writes: quoted ids, node and edge statements with attribute lists, subgraphs) and its nodes
and edges checked for a known query of each language."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from cepkit.cli import main

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"

_TOKEN = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|(->|[{}\[\];=,])|([A-Za-z_0-9.]+))')


def _tokens(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        assert m, f"not DOT at {text[pos:pos + 30]!r}"
        pos = m.end()
        if m.group(1) is not None:
            out.append(("id", re.sub(r"\\(.)", lambda x: "\n" if x.group(1) == "n" else x.group(1), m.group(1))))
        elif m.group(2):
            out.append(("p", m.group(2)))
        else:
            out.append(("id", m.group(3)))
    return out


def parse_dot(text: str) -> tuple[dict[str, dict], list[tuple[str, str, dict]]]:
    """(nodes: id -> attributes, edges: (src, dst, attributes)) of a `digraph NAME { ... }`."""
    toks = _tokens(text)
    assert toks[0] == ("id", "digraph") and toks[2] == ("p", "{") and toks[-1] == ("p", "}")
    nodes: dict[str, dict] = {}
    edges: list[tuple[str, str, dict]] = []
    i, depth = 3, 1
    while i < len(toks) - 1:
        value = toks[i][1]
        if value == "subgraph":
            assert toks[i + 2] == ("p", "{")
            i, depth = i + 3, depth + 1
            continue
        if value == "}":
            i, depth = i + 1, depth - 1
            continue
        # an attribute statement (label=...;), a node or an edge
        if toks[i + 1] == ("p", "="):
            i += 4 if toks[i + 3] == ("p", ";") else 3
            continue
        if value in ("node", "edge"):
            i = next(k for k in range(i, len(toks)) if toks[k] == ("p", ";")) + 1
            continue
        attrs: dict[str, str] = {}
        j = i + 1
        dst = None
        if toks[j] == ("p", "->"):
            dst, j = toks[j + 1][1], j + 2
        if toks[j] == ("p", "["):
            j += 1
            while toks[j] != ("p", "]"):
                attrs[toks[j][1]] = toks[j + 2][1]
                j += 3
                if toks[j] == ("p", ","):
                    j += 1
            j += 1
        assert toks[j] == ("p", ";"), toks[i:j + 1]
        if dst is None:
            nodes[value] = attrs
        else:
            edges.append((value, dst, attrs))
        i = j + 1
    assert depth == 1
    for src, dst, _ in edges:
        assert src in nodes and dst in nodes, (src, dst)
    return nodes, edges


def dot(capsys, query, *extra) -> tuple[dict, list]:
    code = main(["explain", str(query), "--format", "dot", *extra])
    out = capsys.readouterr()
    assert code == 0, out.err
    return parse_dot(out.out)


def labels(edges, src, dst) -> list[str]:
    return [a.get("label", "") for s, d, a in edges if (s, d) == (src, dst)]


def test_sase_nfab(capsys):
    nodes, edges = dot(capsys, EX / "query3.sase")
    assert {"a[1]", "a[i]", "b", "F"} <= set(nodes) and nodes["F"]["shape"] == "doublecircle"
    assert labels(edges, "__start", "a[1]") == [""]
    assert labels(edges, "a[1]", "a[i]")[0].startswith("begin: e.type = Stock ∧ a[1].volume > 1000")
    assert sorted(x.split(":")[0] for x in labels(edges, "a[i]", "a[i]")) == ["ignore", "take"]
    assert labels(edges, "a[i]", "b")[0].startswith("proceed")
    assert labels(edges, "b", "F")[0].startswith("begin: e.type = Stock ∧ b.symbol = a[1].symbol")


def test_sase_pattern_model(capsys, tmp_path):
    q = tmp_path / "or.sase"
    q.write_text("PATTERN SEQ(A a, OR(B b, C c), !(D d), E e)\nWHERE a.x = e.x\nWITHIN 10\n")
    nodes, edges = dot(capsys, q)
    assert {"1.a", "1.b", "1.d", "1.e", "2.a", "2.c", "2.d", "2.e"} == set(nodes)
    assert {(s, d) for s, d, a in edges if "style" not in a} == {("1.a", "1.b"), ("1.b", "1.e"),
                                                                  ("2.a", "2.c"), ("2.c", "2.e")}
    assert nodes["1.d"]["style"] == "dashed" and ("1.b", "1.d") in {(s, d) for s, d, _ in edges}


def test_sql_program(capsys):
    nodes, edges = dot(capsys, EX / "sql" / "v_shape.sql")  # PATTERN (A B+ C+)
    assert [nodes[str(k)]["label"] for k in range(10)] == [
        "0: match A", "1: match B", "2: split 3, 5", "3: match B", "4: jump 2", "5: match C", "6: split 7, 9",
        "7: match C", "8: jump 6", "9: done"]
    assert labels(edges, "2", "3") == ["preferred"] and labels(edges, "2", "5") == ["other"]
    assert labels(edges, "4", "2") == [""] and nodes["9"]["shape"] == "doublecircle"


def test_tpstream_allen_graph(capsys):
    nodes, edges = dot(capsys, EX / "tpstream" / "aggressive_drivers.tps")
    assert set(nodes) == {"A", "B", "C"} and "at least 5 s" in nodes["A"]["label"]
    assert labels(edges, "A", "B") == ["during ; meets ; overlaps ; starts"]
    assert labels(edges, "B", "C") == ["contains ; finished_by ; meets ; overlaps"]
    assert labels(edges, "A", "C") == ["before"]


def test_afa_automaton(capsys):
    nodes, edges = dot(capsys, EX / "afa" / "ab.afa.yaml")
    assert {"q0", "q1", "q2"} <= set(nodes) and nodes["q2"]["shape"] == "doublecircle"
    assert labels(edges, "q0", "q1") == ["a0: e.type = 'A'\nn := r.n + e.v"]
    assert labels(edges, "q1", "q2") == ["a1: e.type = 'B'\nn := r.n + e.v"]
    assert labels(edges, "__start", "q0") == [""]


def test_window_plan(capsys, tmp_path):
    nodes, edges = dot(capsys, EX / "sql" / "volume.win")
    assert nodes["op"]["label"] == "AGGREGATE sum(v), avg(v)\nOVER COUNT 5"
    assert [(s, d) for s, d, _ in edges] == [("events", "op"), ("op", "out")]
    q = tmp_path / "j.win"
    q.write_text("JOIN ON L.k = R.k WINDOW TIME 10\n")
    nodes, edges = dot(capsys, q)
    assert labels(edges, "left", "op") == ["WINDOW TIME 10"] and labels(edges, "right", "op") == ["WINDOW TIME 10"]


def test_labels_are_escaped(capsys, tmp_path):
    q = tmp_path / "q.sase"
    q.write_text("PATTERN SEQ(A a, B b)\nWHERE b.name = 'x\"y\\\\z'\n")
    _, edges = dot(capsys, q)
    want = "b.name = 'x\"y" + "\\" * 2 + "z'"  # the printer's text (its own escape), quotes kept through DOT
    assert any(want in a.get("label", "") for _, _, a in edges), edges


def test_svg_without_graphviz_is_a_one_line_error(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))   # no dot on PATH, whether or not Graphviz is installed here
    code = main(["explain", str(EX / "query3.sase"), "--format", "svg"])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and "Graphviz" in err and "install" in err
    assert "Traceback" not in err


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz's dot")
def test_svg_with_graphviz(capsys):
    code = main(["explain", str(EX / "query3.sase"), "--format", "svg"])
    assert code == 0 and "<svg" in capsys.readouterr().out
