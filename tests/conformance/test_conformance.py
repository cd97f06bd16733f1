"""Self-tests of the SASE+ conformance vectors (conformance/cases/*.yaml). The vectors themselves run on
every engine through the one harness: tests/conformance/test_all_engines.py (loader.cases()).
"""
from __future__ import annotations

import re
from collections import Counter

import pytest

from cepkit.conformance.loader import check_result, load_cases, match_key
from cepkit.core import registry
CASES = load_cases()

def test_engine_registry() -> None:
    engines = registry.engines_for("sase")
    assert "reference" in engines and len(engines) > 1, engines
    for name in engines:
        assert registry.get_engine("sase", name).name == name


def test_all_spec_cases_present() -> None:
    ids = [c.id for c in CASES]
    for n in range(1, 15):
        pattern = re.compile(rf"^CC{n}(-|$)")
        assert any(pattern.match(i) for i in ids), f"no conformance case for spec/000 §8 CC{n}"


def test_every_case_has_an_expectation() -> None:
    for case in CASES:
        assert case.exact or case.expected_count is not None, case.id


def test_match_key_equals_match_key_method() -> None:
    from cepkit.core.match import Match

    bindings = {"b": ("e6",), "a": ("e3", "e4")}
    assert match_key(bindings) == Match.make(bindings, 6).key()
    assert match_key({"x": [1, 2]}) == Match.make({"x": (1, 2)}, 0).key()


def test_check_result_reports_differences() -> None:
    exact = next(c for c in CASES if c.id == "CC1")
    want = Counter(match_key(m) for m in exact.expected)
    assert check_result(exact, want) == []
    extra = want + Counter({(("a", ("e1",)), ("b", ("e6",))): 1})
    problems = "\n".join(check_result(exact, extra))
    assert "unexpected" in problems and "a=[e1] b=[e6]" in problems
    fewer = want - Counter({match_key(exact.expected[0]): 1})
    assert "missing" in "\n".join(check_result(exact, fewer))
    counted = next(c for c in CASES if c.id == "CC14")
    assert check_result(counted, want) == []
    assert check_result(counted, extra) != []


_GOOD = """\
cases:
  - id: T1
    title: a well-formed case
    source: test
    origin: paper sase-sigmod08 §8
    language: sase
    query: PATTERN SEQ(A a, B b)
    events:
      - {id: x1, type: A, ts: 1}
      - {id: x2, type: B, ts: 2}
    expected:
      - {a: [x1], b: [x2]}
"""

_BAD = {
    "unknown_key": _GOOD.replace("    source: test\n", "    source: test\n    colour: red\n"),
    "missing_key": _GOOD.replace("    language: sase\n", ""),
    "no_expectation": _GOOD.split("    expected:")[0],
    "both_expectations": _GOOD + "    expected_count: 1\n",
    "unknown_event": _GOOD.replace("b: [x2]", "b: [x9]"),
    "singleton_not_list": _GOOD.replace("b: [x2]", "b: x2"),
    "event_without_ts": _GOOD.replace("{id: x2, type: B, ts: 2}", "{id: x2, type: B}"),
    "duplicate_event_id": _GOOD.replace("{id: x2, type: B, ts: 2}", "{id: x1, type: B, ts: 2}"),
    "bad_ts_unit": _GOOD.replace("    events:", "    ts_unit: fortnight\n    events:"),
    "duplicate_yaml_key": _GOOD.replace("    source: test\n", "    source: test\n    source: again\n"),
    "duplicate_id_in_file": _GOOD + _GOOD.split("cases:\n")[1],
    "includes_with_expected": _GOOD + "    includes: []\n",
    "count_below_includes": _GOOD.replace("    expected:", "    expected_count: 0\n    includes:"),
}


@pytest.mark.parametrize("name", sorted(_BAD))
def test_loader_rejects_malformed_file(tmp_path, name: str) -> None:
    (tmp_path / "good.yaml").write_text(_GOOD.replace("T1", "T0"))
    bad = tmp_path / f"{name}.yaml"
    bad.write_text(_BAD[name])
    with pytest.raises(ValueError) as info:
        load_cases(tmp_path)
    message = str(info.value)
    assert bad.name in message, message
    if name not in ("duplicate_yaml_key",):  # a YAML-level error happens before any case is read
        assert "T1" in message, message


def test_loader_rejects_duplicate_ids_across_files(tmp_path) -> None:
    (tmp_path / "a.yaml").write_text(_GOOD)
    (tmp_path / "b.yaml").write_text(_GOOD)
    with pytest.raises(ValueError, match=r"b\.yaml: case 'T1': duplicate id"):
        load_cases(tmp_path)


def test_loader_accepts_good_file(tmp_path) -> None:
    (tmp_path / "good.yaml").write_text(_GOOD)
    (case,) = load_cases(tmp_path)
    assert case.id == "T1" and case.type_col == "type" and case.ts_unit is None and case.options == {}
    assert case.expected == [{"a": ["x1"], "b": ["x2"]}]
