"""Conformance: every case in conformance/cases/ against every engine in `cepkit.engines.ENGINES`.

An engine that cannot run a construct raises `reference.errors.Unsupported` at compile time; the
case is then skipped for that engine with the engine's message. Any other difference is a failure
that prints the missing and the unexpected matches.
"""
from __future__ import annotations

import re
import textwrap
from collections import Counter

import pytest

from conformance.loader import Case, case_batch, format_match, load_cases, match_key
from reference.errors import Unsupported

CASES = load_cases()

try:
    from cepkit.engines import ENGINES
    _ENGINE_IMPORT_ERROR: str | None = None
except Exception as exc:  # noqa: BLE001 - reported by test_engine_registry
    ENGINES = {}
    _ENGINE_IMPORT_ERROR = f"{type(exc).__name__}: {exc}"


def _params():
    return [pytest.param(case, name, id=f"{case.id}::{name}") for case in CASES for name in sorted(ENGINES)]


def _describe(case: Case) -> str:
    return f"{case.id}: {case.title}\n  file: {case.path}\n  source: {case.source}"


def _lines(counter: Counter) -> str:
    out = []
    for key in sorted(counter):
        times = counter[key]
        out.append(f"    {format_match(key)}" + (f"   (x{times})" if times != 1 else ""))
    return "\n".join(out) or "    (none)"


def check_result(case: Case, got: Counter) -> list[str]:
    """The problems of a result multiset against the case's expectation; [] when it conforms."""
    problems: list[str] = []
    if case.exact:
        expected = Counter(match_key(m) for m in case.expected)
        missing = expected - got
        unexpected = got - expected
        if missing:
            problems.append(f"  missing ({sum(missing.values())}):\n{_lines(missing)}")
        if unexpected:
            problems.append(f"  unexpected ({sum(unexpected.values())}):\n{_lines(unexpected)}")
        if problems:
            problems.insert(0, f"  expected {sum(expected.values())} matches, got {sum(got.values())}")
    else:
        total = sum(got.values())
        if total != case.expected_count:
            problems.append(f"  expected {case.expected_count} matches, got {total}")
        dupes = Counter({k: n for k, n in got.items() if n > 1})
        if dupes:
            problems.append(f"  duplicated matches:\n{_lines(dupes)}")
        missing = Counter(k for k in (match_key(m) for m in case.includes) if k not in got)
        if missing:
            problems.append(f"  missing required matches ({len(missing)}):\n{_lines(missing)}")
        present = Counter({k: got[k] for k in (match_key(m) for m in case.excludes) if k in got})
        if present:
            problems.append(f"  forbidden matches present ({len(present)}):\n{_lines(present)}")
    return problems


@pytest.mark.parametrize(("case", "engine_name"), _params())
def test_case(case: Case, engine_name: str) -> None:
    engine = ENGINES[engine_name]
    try:
        program = engine.compile(case.query, case.language, **case.options)
    except Unsupported as exc:
        pytest.skip(f"{engine_name}: {exc}")
    result = program.run(case_batch(case))
    got = Counter(m.key() for m in result)
    problems = check_result(case, got)
    if problems:
        query = textwrap.indent(case.query.rstrip(), "    ")
        got_text = _lines(got)
        pytest.fail(
            f"engine '{engine_name}' does not conform on {_describe(case)}\n  query:\n{query}\n"
            + "\n".join(problems) + f"\n  got:\n{got_text}",
            pytrace=False,
        )


# ------------------------------------------------------------------------------ harness self-tests


def test_engine_registry() -> None:
    assert _ENGINE_IMPORT_ERROR is None, f"cannot import cepkit.engines.ENGINES: {_ENGINE_IMPORT_ERROR}"
    assert ENGINES, "cepkit.engines.ENGINES is empty: no engine would run the conformance cases"


def test_all_spec_cases_present() -> None:
    ids = [c.id for c in CASES]
    for n in range(1, 15):
        pattern = re.compile(rf"^CC{n}(-|$)")
        assert any(pattern.match(i) for i in ids), f"no conformance case for spec/000 §8 CC{n}"


def test_every_case_has_an_expectation() -> None:
    for case in CASES:
        assert case.exact or case.expected_count is not None, case.id


def test_match_key_equals_match_key_method() -> None:
    from reference.match import Match

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
