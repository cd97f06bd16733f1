"""Reading AFA input streams from CSV, JSON Lines and Parquet: exact values, kinds, errors."""
from __future__ import annotations

from fractions import Fraction

import pandas as pd
import pytest

from cepkit.front.afa.afafile import loads_afa
from cepkit.front.afa.eventfile import read_stream
from cepkit.front.afa.model import INF, Lifetime
from cepkit.front.afa.stream import ArcDelete, ArcInsert, ArcPunctuate, Event, Insert, Punctuate, Retract
from cepkit.core.errors import EventError
from tests.afa.test_bad_input import AB_TEXT

# The reading tests need no payload field `v` (the AB AFA's transfers read it): they count instead.
AFA = loads_afa(AB_TEXT.replace("r.n + e.v", "r.n + 1") + "standby_arcs:\n  - {name: s0, from: q1, to: q2, fence: \"e.type = 'C'\"}\n")


def _elements(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return [x for _, x in read_stream(p, AFA)]


def test_csv_kinds_and_exact_values(tmp_path):
    got = _elements(tmp_path, "e.csv",
                    "kind,type,le,re,price,arc\n"
                    "insert,A,1,,0.1,\n"
                    "+,B,2,5,-3,\n"
                    "retract,A,1,,0.1,\n"
                    "punctuate,,4,,,\n"
                    "cti,,5,,,\n"
                    "arc_insert,,,,,s0\n"
                    "arc_insert,,7,9,,s0\n"
                    "arc_delete,,,,,a1\n"
                    "arc_retract,,,,,s0\n"
                    "arc_punctuate,,6,,,\n")
    a = Event.make(1, 11, {"type": "A", "price": Fraction(1, 10)})
    assert got == [Insert(a), Insert(Event.make(2, 5, {"type": "B", "price": -3})), Retract(a), Punctuate(4),
                   Punctuate(5), ArcInsert(AFA.arc("s0")), ArcInsert(AFA.arc("s0"), Lifetime(7, 9)),
                   ArcDelete("a1"), ArcDelete("s0", explicit=True), ArcPunctuate(6)]


def test_missing_kind_column_means_insert_and_no_window_means_infinite(tmp_path):
    afa = loads_afa(AB_TEXT.replace("window: 10\n", ""))
    p = tmp_path / "e.csv"
    p.write_text("type,le,v\nA,3,1\n")
    assert [x for _, x in read_stream(p, afa)] == [Insert(Event.make(3, INF, {"type": "A", "v": 1}))]


def test_jsonl_floats_are_exact(tmp_path):
    got = _elements(tmp_path, "e.jsonl", '{"type": "A", "le": 1, "v": 0.1}\n\n{"kind": "punctuate", "le": 2}\n')
    assert got == [Insert(Event.make(1, 11, {"type": "A", "v": Fraction(1, 10)})), Punctuate(2)]


def test_parquet(tmp_path):
    p = tmp_path / "e.parquet"
    pd.DataFrame({"type": ["A", "B"], "le": [1, 2], "v": [0.5, 2.0]}).to_parquet(p)
    assert [x for _, x in read_stream(p, AFA)] == [
        Insert(Event.make(1, 11, {"type": "A", "v": Fraction(1, 2)})), Insert(Event.make(2, 12, {"type": "B", "v": 2}))]


@pytest.mark.parametrize("name, text, row, column, message", [
    ("e.csv", "type,le\nA,\n", 1, "le", "missing timestamp 'le'"),
    ("e.csv", "type,le\nA,1\nB,two\n", 2, "le", "timestamp 'two' is not a number"),
    ("e.csv", "type,le,le\nA,1,2\n", None, "le", "duplicate column 'le'"),
    ("e.csv", "type,le\nA,1,3\n", 1, None, "expected 2 cells, found 3"),
    ("e.csv", "kind,le\nfoo,1\n", 1, "kind", "unknown kind 'foo'"),
    ("e.csv", "kind,le,arc\narc_insert,1,\n", 1, "arc", "needs the arc's name"),
    ("e.csv", "kind,le,arc\narc_insert,1,zz\n", 1, "arc", "unknown arc 'zz'"),
    ("e.csv", "type,le,seq\nA,1,1.5\n", 1, "seq", "sequence number 3/2 is not an integer"),
    ("e.jsonl", '{"le": 1}\n[1]\n', 2, None, "not a JSON object"),
    ("e.jsonl", '{"le": 1}\n{oops\n', 2, None, "not a JSON object"),
    ("e.txt", "le\n1\n", None, None, "cannot tell the format"),
])
def test_errors_name_row_and_column(tmp_path, name, text, row, column, message):
    p = tmp_path / name
    p.write_text(text)
    with pytest.raises(EventError, match=message) as exc:
        read_stream(p, AFA)
    assert (exc.value.row, exc.value.column) == (row, column)


def test_missing_file(tmp_path):
    with pytest.raises(EventError, match="no such file"):
        read_stream(tmp_path / "nope.csv", AFA)
