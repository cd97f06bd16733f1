"""Conformance vectors: loading and validating `conformance/cases/*.yaml`.

Each YAML file holds `cases:`, a list of cases. A case names a query (and the language its text is
written in), a small event stream, and the exact expected result: either the full multiset of matches
(`expected`) or, where listing every match is impractical, `expected_count` plus matches that must be
present (`includes`) and matches that must be absent (`excludes`). A match is written as a mapping
from each positive variable to the list of its event ids, in stream order (singleton variables too,
as one-element lists). See conformance/README.md.

The loader is deliberately strict: an unknown key, a missing key, a duplicate id, or a match that names
an event the case does not contain is a `ValueError` naming the file and the case, so a typo in a vector
can never turn into a test that silently passes.
"""
from __future__ import annotations

import re
import textwrap
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from cepkit.conformance import origin as origins
from cepkit.core.match import canonical_key
from cepkit.conformance.harness import Case as HarnessCase
from cepkit.core.readers import from_pandas

__all__ = ["Case", "load_cases", "load_file", "case_batch", "match_key", "format_match", "CASES_DIR"]

CASES_DIR = Path(__file__).resolve().parent / "cases"

TS_UNITS = ("ns", "us", "ms", "s", "min", "h", "d")

_REQUIRED = ("id", "title", "source", "origin", "language", "query", "events")
_OPTIONAL = ("differs_from", "options", "ts_unit", "type_col", "expected", "expected_count", "includes", "excludes")
_ALLOWED = frozenset(_REQUIRED + _OPTIONAL)
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z_0-9]*$")


@dataclass(frozen=True)
class Case:
    """One conformance vector (see the module docstring for the meaning of each field)."""

    id: str
    title: str
    source: str
    language: str
    query: str
    options: dict = field(hash=False)
    ts_unit: str | None
    type_col: str
    events: list = field(hash=False)
    expected: list | None = field(hash=False)
    expected_count: int | None
    includes: list = field(hash=False)
    excludes: list = field(hash=False)
    path: str
    origin: origins.Origin | None = None

    @property
    def exact(self) -> bool:
        """True when `expected` lists the whole result multiset."""
        return self.expected is not None

    def __str__(self) -> str:  # used in pytest ids and messages
        return self.id


# ---------------------------------------------------------------------------------------- YAML


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate keys in a mapping (PyYAML silently keeps the last one) and notes the
    line each mapping starts on."""

    def __init__(self, stream):
        super().__init__(stream)
        self.lines: dict[int, int] = {}     # id(mapping) -> its first line (1-based)


class Lined(dict):
    """A YAML mapping that remembers the line it starts on (1-based), for messages about it."""

    line: int | None = None


def where(path: Path, raw: Any) -> str:
    """`path:line` of a case read from the file (`path` alone when the line is not known)."""
    line = getattr(raw, "line", None)
    return f"{path}:{line}" if line else str(path)


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    loader.flatten_mapping(node)
    out: dict = {}
    loader.lines[id(out)] = node.start_mark.line + 1
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=deep)
        try:
            hash(key)
        except TypeError:
            raise yaml.constructor.ConstructorError(
                None, None, f"unhashable key {key!r}", key_node.start_mark) from None
        if key in out:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark)
        out[key] = loader.construct_object(value_node, deep=deep)
    return out


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


# ---------------------------------------------------------------------------------------- matches


def match_key(bindings: dict) -> tuple:
    """Canonical identity of an expected match: the same function `Match.key()` uses."""
    return canonical_key(bindings)


def format_match(key: tuple) -> str:
    """A readable rendering of a match key: `a=[e1,e2] b=[e6]`."""
    return " ".join(f"{var}=[{','.join(ids)}]" for var, ids in key)


# ---------------------------------------------------------------------------------------- loading


def load_cases(directory: str | Path | None = None) -> list[Case]:
    """Every case of every `*.yaml` file in `directory` (default: conformance/cases), sorted by file.

    Raises ValueError (naming the file and the case) on any malformed file, and on a case id used
    twice, within a file or across files.
    """
    return collect(Path(directory) if directory is not None else CASES_DIR, load_file)


def collect(root: Path, load_file) -> list:
    """The cases of every `*.yaml` file in root (sorted by file), read by load_file; a case id used twice
    is a ValueError naming both files."""
    if not root.is_dir():
        raise ValueError(f"{root}: not a directory of conformance cases")
    cases: list = []
    seen: dict[str, str] = {}
    for path in sorted(root.glob("*.yaml")):
        for case in load_file(path):
            if case.id in seen:
                raise ValueError(f"{path}: case {case.id!r}: duplicate id (also in {seen[case.id]})")
            seen[case.id] = str(path)
            cases.append(case)
    return cases


def read_yaml(path: Path) -> Any:
    """The document of a YAML file read with the strict loader (duplicate keys refused), each mapping of its
    `cases` list a Lined (its line known); ValueError naming the file and the line otherwise."""
    loader = _StrictLoader(path.read_text(encoding="utf-8"))
    try:
        doc = loader.get_single_data()
        if isinstance(doc, dict) and isinstance(doc.get("cases"), list):
            doc["cases"] = [_lined(c, loader.lines) for c in doc["cases"]]
        return doc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ValueError(f"{path}{f':{mark.line + 1}' if mark else ''}: invalid YAML: {exc}") from None
    finally:
        loader.dispose()


def _lined(raw: Any, lines: dict[int, int]) -> Any:
    if not isinstance(raw, dict):
        return raw
    out = Lined(raw)
    out.line = lines.get(id(raw))
    return out


def read_cases(path: Path) -> list:
    """The raw 'cases' list of a vector file: a mapping with exactly one key 'cases', a non-empty list."""
    doc = read_yaml(path)
    if not isinstance(doc, dict) or set(doc) != {"cases"}:
        keys = sorted(map(str, doc)) if isinstance(doc, dict) else type(doc).__name__
        raise ValueError(f"{path}: the file must be a mapping with exactly one key 'cases' (found {keys})")
    if not isinstance(doc["cases"], list) or not doc["cases"]:
        raise ValueError(f"{path}: 'cases' must be a non-empty list")
    return doc["cases"]


def check_keys(raw: Any, allowed, required, fail) -> None:
    """A case is a mapping with only allowed keys and every required one; `fail(message)` builds the error."""
    if not isinstance(raw, dict):
        raise fail(f"a case must be a mapping, not {type(raw).__name__}")
    unknown = sorted(str(k) for k in raw if k not in allowed)
    if unknown:
        raise fail(f"unknown key(s) {', '.join(unknown)} (allowed: {', '.join(sorted(allowed))})")
    missing = [k for k in required if k not in raw]
    if missing:
        raise fail(f"missing key(s) {', '.join(missing)}")


def load_file(path: str | Path) -> list[Case]:
    """The cases of one YAML file, validated."""
    path = Path(path)
    raw_cases = read_cases(path)
    out: list[Case] = []
    ids: set[str] = set()
    for n, raw in enumerate(raw_cases, 1):
        case = _parse_case(raw, path, n)
        if case.id in ids:
            raise ValueError(f"{path}: case {case.id!r}: duplicate id")
        ids.add(case.id)
        out.append(case)
    return out


def _parse_case(raw: Any, path: Path, n: int) -> Case:
    label = f"case #{n}"
    if isinstance(raw, dict) and isinstance(raw.get("id"), str):
        label = f"case {raw['id']!r}"

    def fail(msg: str) -> ValueError:
        return ValueError(f"{where(path, raw)}: {label}: {msg}")

    check_keys(raw, _ALLOWED, _REQUIRED, fail)

    case_id = raw["id"]
    if not isinstance(case_id, str) or not _ID_RE.match(case_id):
        raise fail(f"id must be a string of letters, digits, '_', '.', '-' (got {case_id!r})")
    for key in ("title", "source", "query"):
        if not isinstance(raw[key], str) or not raw[key].strip():
            raise fail(f"'{key}' must be a non-empty string")
    language = raw["language"]
    if not isinstance(language, str) or not _NAME_RE.match(language):
        raise fail(f"'language' must be a parser name such as 'sase' (got {language!r})")

    options = raw.get("options", {})
    if options is None:
        options = {}
    if not isinstance(options, dict) or not all(isinstance(k, str) and _NAME_RE.match(k) for k in options):
        raise fail("'options' must be a mapping from option names (identifiers) to values")

    ts_unit = raw.get("ts_unit")
    if ts_unit is not None and ts_unit not in TS_UNITS:
        raise fail(f"'ts_unit' must be one of {', '.join(TS_UNITS)} (got {ts_unit!r})")

    type_col = raw.get("type_col", "type")
    if not isinstance(type_col, str) or not _NAME_RE.match(type_col) or type_col in ("id", "ts"):
        raise fail(f"'type_col' must be a column name other than 'id' and 'ts' (got {type_col!r})")

    events = _parse_events(raw["events"], type_col, fail)
    event_ids = {str(e["id"]): n for n, e in enumerate(events)}

    expected = raw.get("expected")
    has_expected = "expected" in raw
    has_count = "expected_count" in raw
    if has_expected and has_count:
        raise fail("give either 'expected' (exact) or 'expected_count' (+ includes/excludes), not both")
    if not has_expected and not has_count:
        raise fail("missing 'expected' (exact result) or 'expected_count'")
    if has_expected and ("includes" in raw or "excludes" in raw):
        raise fail("'includes'/'excludes' go with 'expected_count', not with an exact 'expected'")

    if has_expected:
        expected = _parse_matches(expected, "expected", event_ids, fail)
        expected_count = None
        includes: list[dict] = []
        excludes: list[dict] = []
    else:
        expected = None
        expected_count = raw["expected_count"]
        if isinstance(expected_count, bool) or not isinstance(expected_count, int) or expected_count < 0:
            raise fail(f"'expected_count' must be a non-negative integer (got {expected_count!r})")
        includes = _parse_matches(raw.get("includes", []), "includes", event_ids, fail)
        excludes = _parse_matches(raw.get("excludes", []), "excludes", event_ids, fail)
        inc_keys = [match_key(m) for m in includes]
        exc_keys = {match_key(m) for m in excludes}
        if len(set(inc_keys)) != len(inc_keys):
            raise fail("'includes' lists a match twice")
        if len(exc_keys) != len(excludes):
            raise fail("'excludes' lists a match twice")
        both = set(inc_keys) & exc_keys
        if both:
            raise fail(f"a match is both included and excluded: {format_match(sorted(both)[0])}")
        if len(inc_keys) > expected_count:
            raise fail(f"'includes' lists {len(inc_keys)} matches but expected_count is {expected_count}")

    return Case(id=case_id, title=raw["title"].strip(), source=raw["source"].strip(), language=language,
                query=raw["query"], options=dict(options), ts_unit=ts_unit, type_col=type_col,
                events=events, expected=expected, expected_count=expected_count, includes=includes,
                excludes=excludes, path=str(path), origin=origins.read(raw, fail))


def _parse_events(events: Any, type_col: str, fail) -> list[dict]:
    if not isinstance(events, list):
        raise fail("'events' must be a list of rows")
    out: list[dict] = []
    ids: set[str] = set()
    prev_ts = None
    for n, row in enumerate(events, 1):
        if not isinstance(row, dict):
            raise fail(f"event row {n} must be a mapping of column -> value")
        for col in ("id", "ts", type_col):
            if col not in row or row[col] is None:
                raise fail(f"event row {n} lacks the required column '{col}'")
        for col in row:
            if not isinstance(col, str) or not _NAME_RE.match(col):
                raise fail(f"event row {n}: column name {col!r} is not an identifier")
        eid = row["id"]
        if isinstance(eid, bool) or not isinstance(eid, (str, int)):
            raise fail(f"event row {n}: id must be a string or an integer (got {eid!r})")
        if str(eid) in ids:
            raise fail(f"event row {n}: duplicate event id {eid!r}")
        ids.add(str(eid))
        ts = row["ts"]
        if isinstance(ts, bool) or not isinstance(ts, int):
            raise fail(f"event row {n}: ts must be an integer (got {ts!r}); use ts_unit or scaled ticks")
        if prev_ts is not None and ts < prev_ts:
            raise fail(f"event row {n}: ts {ts} goes back in time (previous row has {prev_ts})")
        prev_ts = ts
        etype = row[type_col]
        if not isinstance(etype, str) or not etype:
            raise fail(f"event row {n}: event type ('{type_col}') must be a non-empty string")
        out.append(dict(row))
    if not out:
        raise fail("'events' must not be empty")
    return out


def _parse_matches(matches: Any, what: str, event_ids: dict[str, int], fail) -> list[dict]:
    if not isinstance(matches, list):
        raise fail(f"'{what}' must be a list of matches")
    out: list[dict] = []
    for n, m in enumerate(matches, 1):
        if not isinstance(m, dict) or not m:
            raise fail(f"{what} #{n} must be a non-empty mapping variable -> [event ids]")
        clean: dict[str, list] = {}
        for var, ids in m.items():
            if not isinstance(var, str) or not _NAME_RE.match(var):
                raise fail(f"{what} #{n}: variable {var!r} is not an identifier")
            if not isinstance(ids, list) or not ids:
                raise fail(f"{what} #{n}: variable '{var}' must map to a non-empty list of event ids "
                           f"(write singleton variables as [id])")
            for i in ids:
                if isinstance(i, bool) or not isinstance(i, (str, int)):
                    raise fail(f"{what} #{n}: event id {i!r} of '{var}' is not a string or an integer")
                if str(i) not in event_ids:
                    raise fail(f"{what} #{n}: variable '{var}' names event {i!r}, which is not in 'events'")
            positions = [event_ids[str(i)] for i in ids]
            if positions != sorted(set(positions)):
                raise fail(f"{what} #{n}: the events of variable '{var}' must be distinct and in stream order")
            clean[var] = list(ids)
        out.append(clean)
    return out


# ---------------------------------------------------------------------------------------- events


def case_batch(case: Case):
    """The case's events as a `cepkit.core.events.EventBatch` (rows missing a column get null there)."""
    import pandas as pd

    return from_pandas(pd.DataFrame(case.events), type_col=case.type_col, ts_unit=case.ts_unit)


# ---------------------------------------------------------------------------------------- checking
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


def check_table(case: Case, table) -> None:
    """AssertionError listing the missing and unexpected matches when the table does not conform."""
    got = Counter(m.key() for m in table)
    problems = check_result(case, got)
    if problems:
        query = textwrap.indent(case.query.rstrip(), "    ")
        raise AssertionError(f"not conforming on {_describe(case)}\n  query:\n{query}\n" + "\n".join(problems)
                             + f"\n  got:\n{_lines(got)}")


def cases() -> list:
    """Every SASE+ vector as a harness case (conformance/harness.py), run on every SASE+ engine."""
    from functools import partial

    return [HarnessCase(id=c.id, language=c.language, query=c.query, events=case_batch(c),
                        check=partial(check_table, c), options=dict(c.options), records=c.events,
                        record_options={"type_col": c.type_col, "ts_unit": c.ts_unit}, source=c.source, origin=c.origin,
                        title=c.title, path=c.path) for c in load_cases()]
