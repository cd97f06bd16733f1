"""The outside-engine protocol piece by piece: reading match rows, the command's placeholders, files and exit
codes, the adapter's exceptions."""
from __future__ import annotations

import json
import sys
import textwrap
from fractions import Fraction

import pytest

from cepkit.conformance.kit import vectors
from cepkit.conformance.kit.answers import Crash, Raised, Refusal, Rows
from cepkit.conformance.kit.command import CommandEngine, command_line, write_vector
from cepkit.conformance.kit.protocol import vector_of
from cepkit.conformance.kit.rows import RowError, number, to_match
from tests.conformance_kit.kit_run import junit_counts, kit


def _case(case_id: str):
    return next(c for c in vectors.all_cases() if c.id == case_id)


def test_numbers_read_back_exactly():
    assert number(0.3333333333333333) == Fraction(1, 3)
    assert number(82.5) == Fraction(165, 2) and number(0.1) == Fraction(1, 10)
    assert number("7/2") == Fraction(7, 2) and number("Infinity") == float("inf")
    assert number("a/b") == "a/b" and number(3) == 3 and number([0.5, "x"]) == [Fraction(1, 2), "x"]


def test_a_row_needs_bindings_and_ts():
    m = to_match({"bindings": {"a": ["x1"]}, "ts": 4, "payload.ts": 9, "n": 1}, ("ts",))
    assert m.binding_dict == {"a": ("x1",)} and m.ts == 4 and m.payload == (("ts", 9), ("n", 1))
    with pytest.raises(RowError, match="'bindings'"):
        to_match({"ts": 1}, None)
    with pytest.raises(RowError, match="sign"):
        to_match({"bindings": {}, "ts": 1, "sign": 0}, None)


def test_placeholders_or_the_case_file_last(tmp_path):
    values = write_vector(vector_of(_case("CC5-s4-stream1")), tmp_path)
    assert command_line(["eng", "--q", "{query}", "{events}"], values) == ["eng", "--q", values["query"],
                                                                          values["events"]]
    assert command_line(["eng", "-x"], values) == ["eng", "-x", values["case"]]
    doc = json.loads((tmp_path / "case.json").read_text())
    assert doc["language"] == "sase" and doc["read_options"] == {"type_col": "type", "ts_unit": None}
    assert values["query"].endswith("query.sase")
    rows = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    assert rows == doc["events"] and rows[0] == {"id": "x1", "type": "A", "ts": 1, "pid": 1}


def test_a_join_has_two_event_files(tmp_path):
    join = next(c for c in vectors.all_cases() if c.language == "window" and isinstance(c.records, tuple))
    values = write_vector(vector_of(join), tmp_path)
    assert values["right_events"].endswith("right_events.jsonl") and values["query"].endswith(".win")


def _script(tmp_path, body: str) -> CommandEngine:
    path = tmp_path / "engine.py"
    path.write_text(textwrap.dedent(body))
    return CommandEngine(f"{sys.executable} {path}")


@pytest.mark.parametrize("body, answer", [
    ("import sys; print('Kleene closure', file=sys.stderr); sys.exit(77)", Refusal),
    ("import sys; print('bad query', file=sys.stderr); sys.exit(65)", Raised),
    ("import sys; sys.exit(66)", Raised),
    ("import sys; sys.exit(2)", Crash),                 # what python exits with on its own: never an answer
    ("print('not json')", Crash),
    ("print('{\"ts\": 1}')", Crash),                     # a row without bindings
    ("print('{\"bindings\": {\"a\": [\"x1\"]}, \"ts\": 3}')\nprint()", Rows),
])
def test_exit_codes_and_rows(tmp_path, body, answer):
    got = _script(tmp_path, body).answer(_case("CC5-s4-stream1"))
    assert isinstance(got, answer), got
    if isinstance(got, Raised):
        assert got.kind == ("query" if "65" in body else "event")


def test_an_expected_error_needs_the_right_kind(capsys, tmp_path):
    """MR-pattern-too-large expects a query error: exit 65 passes, an event error (66) or rows fail."""
    for code, passed in ((65, True), (66, False), (0, False)):
        path = tmp_path / f"engine{code}.py"
        path.write_text(f"import sys; sys.exit({code})")
        status, text = kit(capsys, "--command", f"{sys.executable} {path}", "--case", "MR-pattern-too-large",
                           "--junit", str(tmp_path / f"{code}.xml"))
        assert status == (0 if passed else 1), text
        assert junit_counts(tmp_path / f"{code}.xml") == ({"tests": 1} if passed else {"tests": 1, "failure": 1})


class _Adapter:
    def __init__(self, compile_error=None, run_error=None):
        self.compile_error, self.run_error = compile_error, run_error

    def compile(self, vector):
        if self.compile_error:
            raise self.compile_error
        return vector

    def run(self, plan, vector):
        if self.run_error:
            raise self.run_error
        return []


@pytest.mark.parametrize("adapter, kind", [
    (_Adapter(compile_error=ValueError("bad")), "query"),
    (_Adapter(run_error=ValueError("bad row")), "event"),
    (_Adapter(compile_error=KeyError("bug")), None),     # a crash, not a report
])
def test_adapter_exceptions(adapter, kind):
    from cepkit.conformance.kit.adapter import AdapterEngine

    engine = AdapterEngine.__new__(AdapterEngine)
    engine.adapter, engine.declared = adapter, ("sase",)
    got = engine.answer(_case("CC5-s4-stream1"))
    if kind is None:
        assert isinstance(got, Crash) and "KeyError" in got.message
    else:
        assert isinstance(got, Raised) and got.kind == kind


def test_a_broken_protocol_is_a_junit_error(capsys, tmp_path):
    path = tmp_path / "engine.py"
    path.write_text("import sys; print('boom', file=sys.stderr); sys.exit(1)")
    status, text = kit(capsys, "--command", f"{sys.executable} {path}", "--case", "CC5-s4-stream1",
                       "--junit", str(tmp_path / "r.xml"))
    assert status == 1 and "exit code 1 (0: matches, 65: query error, 66: event error, 77: refused)" in text
    assert "boom" in text and "source: spec/000" in text
    assert junit_counts(tmp_path / "r.xml") == {"tests": 1, "error": 1}


def test_a_missing_peer_is_a_skip_with_the_reason(capsys, tmp_path):
    """Neither a failure nor a pass: an adapter that raises Unavailable while loading, a command that exits 69."""
    code, text = kit(capsys, "--adapter", "tests.conformance_kit.adapters:NoPeer", "--case", "CC5-s4-*", "-v",
                     "--", "-rs")
    assert code == 0, text
    assert "0 passed, 0 failed, 0 refused, 0 errors, 2 skipped" in text
    assert "no-such-peer is not installed (pip install no-such-peer)" in text
    path = tmp_path / "engine.py"
    path.write_text("import sys; print('java is not on PATH', file=sys.stderr); sys.exit(69)")
    code, text = kit(capsys, "--command", f"{sys.executable} {path}", "--case", "CC5-s4-stream1", "--", "-rs")
    assert code == 0 and "1 skipped" in text and "java is not on PATH" in text, text


def test_rows_of_the_wrong_shape_say_the_shape_given_and_expected(capsys):
    code, text = kit(capsys, "--adapter", "tests.conformance_kit.adapters:WrongShape", "--case", "CC5-s4-stream1")
    assert code == 1
    assert ("malformed match row: a match row is a JSON object with 'bindings' (variable -> [event ids]) and "
            "'ts', not {'ts': 1, 'match': 1}") in text
