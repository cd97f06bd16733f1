"""Conformance vectors for MATCH_RECOGNIZE, windowed operators and replay: `conformance/cases/<area>/*.yaml`.

A file holds `cases:`, a list of cases. Every case has id, title, source (where its expected result
comes from) and exactly one expectation. The loader is strict: unknown keys, missing keys, duplicate
ids (across all files of the area) and bindings naming events the case does not contain are errors.

sql cases: query, events (mappings with `ts` and `id`; left out for a query that carries its rows in VALUES,
  which then has no expected_matches), optional ts_unit, and
  expected_rows (output rows as mappings, compared as a multiset; a decimal such as 90.5 is its exact value) and/or expected_matches
  ({bindings: {VAR: [ids]}, ts}), or error ({line, column, contains}) for a query that must be refused;
  optional expected_columns (the output column names, in order) with expected_rows.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


import math
import re

from cepkit.conformance import origin as origins
from cepkit.conformance.loader import check_keys, read_cases, where
from cepkit.conformance.harness import Case
from cepkit.conformance.kit.rows import row_difference, value_key
from cepkit.core import registry
from cepkit.core.errors import QueryError
from cepkit.core.match import plain
from cepkit.reference.sql.engine import to_table
from cepkit.front.sql.parse import parse
from cepkit.front.sql.source import base

AREA_DIR = Path(__file__).resolve().parent / "cases"
TS_UNITS = ("ns", "us", "ms", "s", "min", "h", "d")

_SQL_KEYS = {"id", "title", "source", "query", "events", "ts_unit", "expected_rows", "expected_matches",
             "error", "expected_columns"}


@dataclass(frozen=True)
class SqlCase:
    id: str
    title: str
    source: str
    query: str
    events: list | None = field(hash=False)   # None: the query carries its rows (VALUES)
    ts_unit: str | None
    expected_rows: list | None = field(hash=False)
    expected_matches: list | None = field(hash=False)
    error: dict | None = field(hash=False)
    path: str
    expected_columns: tuple[str, ...] | None = None
    origin: origins.Origin | None = None

    def __str__(self) -> str:
        return self.id


def load_area(area: str, parse_case, directory: Path | None = None) -> list:
    root = directory or AREA_DIR / area
    if not root.is_dir():
        raise ValueError(f"{root}: not a directory of conformance cases")
    seen: dict[str, str] = {}
    out = []
    for path in sorted(root.glob("*.yaml")):
        for n, raw in enumerate(read_cases(path), 1):
            label = f"case {raw.get('id')!r}" if isinstance(raw, dict) else f"case #{n}"

            def fail(msg: str, label=label, path=path, raw=raw) -> ValueError:
                return ValueError(f"{where(path, raw)}: {label}: {msg}")

            case = parse_case(raw, path, fail)
            if case.id in seen:
                raise fail(f"duplicate id (also in {seen[case.id]})")
            seen[case.id] = str(path)
            out.append(case)
    return out


def _common(raw: Any, allowed: set[str], required: tuple[str, ...], fail) -> origins.Origin:
    """Check the keys and the common fields of a case; its origin."""
    check_keys(raw, set(allowed) | set(origins.KEYS), tuple(required) + ("origin",), fail)
    for key in ("id", "title", "source"):
        if not isinstance(raw[key], str) or not raw[key].strip():
            raise fail(f"'{key}' must be a non-empty string")
    return origins.read(raw, fail)


def _check_value(v: Any, fail, where: str) -> None:
    """A value of an event or an expected row: an integer, a decimal (YAML `90.5`: its exact decimal value,
    as the readers read a float, cepkit.core.events.exact; compared by its shortest repr), text, a boolean
    or null."""
    if isinstance(v, float) and not math.isfinite(v):
        raise fail(f"{where}: a decimal must be finite (got {v!r})")
    if v is not None and not isinstance(v, (int, float, str, bool)):
        raise fail(f"{where}: values must be integers, decimals, strings, booleans or null (got {v!r})")


def parse_sql_case(raw: Any, path: Path, fail) -> SqlCase:
    origin = _common(raw, _SQL_KEYS, ("id", "title", "source", "query"), fail)
    if "events" not in raw:   # the query carries its rows (VALUES): rows and errors are its expectations
        if not re.search(r"\bVALUES\b", str(raw["query"]), re.I):
            raise fail("missing key 'events' (only a query with VALUES rows goes without)")
        if raw.get("expected_matches") is not None:
            raise fail("a case without events expects rows (expected_rows), not bindings")
    events = raw.get("events", [])
    if not isinstance(events, list):
        raise fail("'events' must be a list of mappings")
    ids = set()
    for n, e in enumerate(events, 1):
        if not isinstance(e, dict) or "ts" not in e or "id" not in e:
            raise fail(f"event #{n} must be a mapping with 'ts' and 'id'")
        if not isinstance(e["ts"], int):
            raise fail(f"event #{n}: 'ts' must be an integer")
        if str(e["id"]) in ids:
            raise fail(f"event #{n}: duplicate id {e['id']!r}")
        ids.add(str(e["id"]))
        for k, v in e.items():
            _check_value(v, fail, f"event #{n} '{k}'")
    ts_unit = raw.get("ts_unit")
    if ts_unit is not None and ts_unit not in TS_UNITS:
        raise fail(f"'ts_unit' must be one of {', '.join(TS_UNITS)}")
    rows = raw.get("expected_rows")
    matches = raw.get("expected_matches")
    error = raw.get("error")
    if error is not None:
        if rows is not None or matches is not None:
            raise fail("'error' excludes expected_rows and expected_matches")
        if not isinstance(error, dict) or set(error) - {"line", "column", "contains"} or "contains" not in error:
            raise fail("'error' must be a mapping with 'contains' and optionally 'line', 'column'")
    elif rows is None and matches is None:
        raise fail("a case needs expected_rows, expected_matches or error")
    if rows is not None:
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise fail("'expected_rows' must be a list of mappings")
        for r in rows:
            for k, v in r.items():
                _check_value(v, fail, f"expected row '{k}'")
    if matches is not None:
        if not isinstance(matches, list):
            raise fail("'expected_matches' must be a list")
        for m in matches:
            if not isinstance(m, dict) or set(m) != {"bindings", "ts"} or not isinstance(m["bindings"], dict):
                raise fail("each expected match is a mapping with exactly 'bindings' and 'ts'")
            for var, evs in m["bindings"].items():
                if not isinstance(evs, list) or not evs:
                    raise fail(f"binding {var}: a non-empty list of event ids")
                for i in evs:
                    if str(i) not in ids:
                        raise fail(f"binding {var} names event {i!r}, which the case does not contain")
    columns = raw.get("expected_columns")
    if columns is not None:
        if rows is None or not isinstance(columns, list) or not all(isinstance(c, str) for c in columns):
            raise fail("'expected_columns' is a list of column names, given with expected_rows")
        if any(set(r) != set(columns) for r in rows):
            raise fail("every expected row names exactly the expected_columns")
    return SqlCase(raw["id"], raw["title"], raw["source"], raw["query"], events if "events" in raw else None,
                   ts_unit, rows, matches, error, str(path), None if columns is None else tuple(columns), origin)


def load_sql_cases(directory: Path | None = None) -> list[SqlCase]:
    return load_area("sql", parse_sql_case, directory)


# ---------------------------------------------------------------------------------------- windows

_WIN_KEYS = {"id", "title", "source", "operator", "events", "right_events", "window", "right_window", "attr",
             "funcs", "where", "condition", "active", "skip_empty", "expected"}
_WIN_REQUIRED = {"filter": ("where",), "aggregate": ("window", "attr", "funcs"),
                 "join": ("right_events", "window", "condition")}


@dataclass(frozen=True)
class WindowCase:
    id: str
    title: str
    source: str
    operator: str
    events: list = field(hash=False)
    right_events: list | None = field(hash=False)
    window: dict | None = field(hash=False)
    right_window: dict | None = field(hash=False)
    attr: str | None
    funcs: tuple[str, ...]
    where: str | None
    condition: str | None
    active: str
    skip_empty: bool
    expected: list = field(hash=False)
    path: str
    origin: origins.Origin | None = None

    def __str__(self) -> str:
        return self.id


def _events(raw, key: str, fail) -> list:
    events = raw[key]
    if not isinstance(events, list):
        raise fail(f"'{key}' must be a list of mappings")
    ids = set()
    for n, e in enumerate(events, 1):
        if not isinstance(e, dict) or not isinstance(e.get("ts"), int) or "id" not in e:
            raise fail(f"{key} #{n} must be a mapping with an integer 'ts' and an 'id'")
        if e["id"] in ids:
            raise fail(f"{key} #{n}: duplicate id {e['id']!r}")
        ids.add(e["id"])
        for k, v in e.items():
            _check_value(v, fail, f"{key} #{n} '{k}'")
    return events


def _window(w, fail, key: str) -> dict:
    if not isinstance(w, dict) or set(w) - {"kind", "size", "slide", "align"} or not {"kind", "size", "slide"} <= set(w):
        raise fail(f"'{key}' must be a mapping with kind, size, slide and optionally align")
    return w


def parse_window_case(raw: Any, path: Path, fail) -> WindowCase:
    origin = _common(raw, _WIN_KEYS, ("id", "title", "source", "operator", "events", "expected"), fail)
    op = raw["operator"]
    if op not in _WIN_REQUIRED:
        raise fail(f"'operator' must be one of {', '.join(_WIN_REQUIRED)}")
    missing = [k for k in _WIN_REQUIRED[op] if k not in raw]
    if missing:
        raise fail(f"operator {op} needs {', '.join(missing)}")
    events = _events(raw, "events", fail)
    right = _events(raw, "right_events", fail) if "right_events" in raw else None
    window = _window(raw["window"], fail, "window") if "window" in raw else None
    right_window = _window(raw["right_window"], fail, "right_window") if "right_window" in raw else None
    expected = raw["expected"]
    if not isinstance(expected, list) or not all(isinstance(r, dict) for r in expected):
        raise fail("'expected' must be a list of mappings")
    for r in expected:
        for k, v in r.items():
            if not isinstance(v, list):
                _check_value(v, fail, f"expected '{k}'")
    funcs = raw.get("funcs", [])
    if not isinstance(funcs, list):
        raise fail("'funcs' must be a list")
    return WindowCase(raw["id"], raw["title"], raw["source"], op, events, right, window, right_window,
                      raw.get("attr"), tuple(funcs), raw.get("where"), raw.get("condition"), raw.get("active", "strict"),
                      bool(raw.get("skip_empty", False)), expected, str(path), origin)


def load_window_cases(directory: Path | None = None) -> list[WindowCase]:
    return load_area("windows", parse_window_case, directory)


# ---------------------------------------------------------------------------------------- replay

_REPLAY_KEYS = {"id", "title", "source", "kind", "query", "events", "block_size", "indexes", "configs",
                "expected_matches", "params", "rows"}


@dataclass(frozen=True)
class ReplayCase:
    id: str
    title: str
    source: str
    kind: str                  # 'intervals' | 'agg_cost'
    query: str | None
    events: list | None = field(hash=False)
    block_size: int | None
    indexes: tuple[str, ...]
    configs: list | None = field(hash=False)        # [{use: [VARS], intervals: [[a, b], ...]}]
    expected_matches: list | None = field(hash=False)
    params: dict | None = field(hash=False)          # agg_cost: r, B, D, h
    rows: list | None = field(hash=False)            # agg_cost: [{slide, c_index, c_replay, choice}]
    path: str
    origin: origins.Origin | None = None

    def __str__(self) -> str:
        return self.id


def parse_replay_case(raw: Any, path: Path, fail) -> ReplayCase:
    origin = _common(raw, _REPLAY_KEYS, ("id", "title", "source", "kind"), fail)
    kind = raw["kind"]
    if kind == "intervals":
        for k in ("query", "events", "block_size", "indexes", "configs", "expected_matches"):
            if k not in raw:
                raise fail(f"an intervals case needs '{k}'")
        events = _events(raw, "events", fail)
        ids = {str(e["id"]) for e in events}
        for c in raw["configs"]:
            if not isinstance(c, dict) or set(c) != {"use", "intervals"}:
                raise fail("each config is a mapping with exactly 'use' and 'intervals'")
            if not all(isinstance(iv, list) and len(iv) == 2 and all(isinstance(x, int) for x in iv)
                       for iv in c["intervals"]):
                raise fail("intervals are [a, b] pairs of integers")
        for m in raw["expected_matches"]:
            if not isinstance(m, dict) or set(m) != {"bindings", "ts"}:
                raise fail("each expected match is a mapping with exactly 'bindings' and 'ts'")
            for var, evs in m["bindings"].items():
                for i in evs:
                    if str(i) not in ids:
                        raise fail(f"binding {var} names event {i!r}, which the case does not contain")
        return ReplayCase(raw["id"], raw["title"], raw["source"], kind, raw["query"], events, raw["block_size"],
                          tuple(raw["indexes"]), raw["configs"], raw["expected_matches"], None, None, str(path), origin)
    if kind == "agg_cost":
        params, rows = raw.get("params"), raw.get("rows")
        if not isinstance(params, dict) or set(params) != {"r", "B", "D", "h"}:
            raise fail("an agg_cost case needs params r, B, D, h")
        if not isinstance(rows, list) or not all(isinstance(r, dict) and set(r) == {"slide", "c_index", "c_replay",
                                                                                   "choice"} for r in rows):
            raise fail("agg_cost rows are mappings with slide, c_index, c_replay, choice")
        return ReplayCase(raw["id"], raw["title"], raw["source"], kind, None, None, None, (), None, None, params,
                          rows, str(path), origin)
    raise fail("'kind' must be 'intervals' or 'agg_cost'")


def load_replay_cases(directory: Path | None = None) -> list[ReplayCase]:
    return load_area("replay", parse_replay_case, directory)


# ---------------------------------------------------------------------------------------- harness cases
# Every sql and replay vector as cepkit.conformance.harness.Case, run by tests/conformance/test_all_engines.py on every
# engine registered for "sql" (reference, gpu, replay). The checks are those of the per-language tests:
# rows as SQL outputs them (a multiset of {column: value}, values compared as repr(plain(v))) and matches
# (bindings as strings, ts).

def norm_row(row: dict, by_value: bool = False) -> tuple:
    """A row as the check compares it: each value as repr(plain(v)) (its type counts: 70 is not 70.0), or with
    `by_value` as its exact value (cepkit.conformance.kit.rows.value_key: 70 is 70.0)."""
    if by_value:
        return tuple(sorted((k, value_key(v)) for k, v in row.items()))
    return tuple(sorted((k, repr(plain(v))) for k, v in row.items()))


def norm_match(bindings: dict, ts) -> tuple:
    return (tuple(sorted((k, tuple(str(i) for i in v)) for k, v in bindings.items())), ts)


def _rows_mode(query: str) -> str | None:

    try:
        return parse(query).rows
    except Exception:  # an expected-error vector the parser refuses
        return None


def _sql_check(case: SqlCase, by_value: bool = False):
    mode = _rows_mode(case.query)

    def check(table) -> None:
        if case.expected_columns is not None:
            got_cols = tuple(table.layout.payload)
            assert got_cols == case.expected_columns, f"{case.id}: columns {got_cols}, want {case.expected_columns}"
        if case.expected_rows is not None:
            got = sorted(norm_row(dict(m.payload), by_value) for m in table)
            want = sorted(norm_row(r, by_value) for r in case.expected_rows)
            assert got == want, f"{case.id}: rows differ: {row_difference(got, want)}"
        if case.expected_matches is not None:
            assert mode != "all", "expected_matches needs ONE ROW PER MATCH or ALL MATCHES"
            got = sorted(norm_match(m.binding_dict, m.ts) for m in table)
            want = sorted(norm_match(m["bindings"], m["ts"]) for m in case.expected_matches)
            assert got == want, f"{case.id}: matches differ: {row_difference(got, want, _shown_match)}"
    return check


def _shown_match(match: tuple) -> str:
    bindings, ts = match
    return "{" + ", ".join(f"{v}: [{', '.join(ids)}]" for v, ids in bindings) + f"}} ts {ts}"


def _sql_error(case: SqlCase):
    def check(exc: Exception) -> None:

        assert isinstance(exc, QueryError), f"{case.id}: expected a QueryError, got {type(exc).__name__}: {exc}"
        assert case.error["contains"] in exc.message, str(exc)
        if "line" in case.error:
            assert (exc.line, exc.column) == (case.error["line"], case.error.get("column")), str(exc)
    return check


def _frame(events: list):
    import pandas as pd

    return pd.DataFrame(events)


def _own_rows(query: str, read: dict):
    """(the table a query carries in VALUES as an EventBatch, its rows as records); (None, []) for a query
    the parser refuses (an expected-error vector: compiling it fails first)."""

    try:
        q = parse(query)
    except QueryError:
        return None, _refused_query_rows(query)
    values = base(q)
    return to_table(None, q, **read), [dict(zip(values.columns, row)) for row in values.rows]


_VALUES_AT = re.compile(r"\(\s*VALUES\b", re.I)
_VALUES_NAME = re.compile(r"\s*(?:AS\s+)?(?!MATCH_RECOGNIZE\b)([A-Za-z_]\w*)\s*(\([^()]*\))?", re.I)


def _refused_query_rows(query: str) -> list:
    """The VALUES rows of a query the parser refuses (an expected-error vector), so that an engine reading its
    rows from `events` gets them: the `(VALUES ...) t(cols)` relation read through a stand-in query. [] when
    there is none or the table itself is in error (a row of another arity)."""
    start = _VALUES_AT.search(query)
    if start is None:
        return []
    depth, end = 0, None
    for i in range(start.start(), len(query)):
        depth += {"(": 1, ")": -1}.get(query[i], 0)
        if depth == 0:
            end = i + 1
            break
    if end is None:
        return []
    named = _VALUES_NAME.match(query, end)
    alias = f" {named.group(1)}{named.group(2) or ''}" if named else ""
    try:
        values = base(parse(f"SELECT * FROM {query[start.start():end]}{alias} "
                            "MATCH_RECOGNIZE (PATTERN (A) DEFINE A AS true)"))
    except QueryError:
        return []
    return [dict(zip(values.columns, row)) for row in values.rows]


def _replay_check(case: ReplayCase):
    want = sorted(norm_match(m["bindings"], m["ts"]) for m in case.expected_matches)

    def check(table) -> None:
        got = sorted(norm_match(m.binding_dict, m.ts) for m in table)
        assert got == want, f"{case.id}: matches\n got  {got}\n want {want}"
    return check


def _about(c) -> dict:
    """The harness Case fields that say where a vector comes from."""
    return {"source": c.source.strip(), "title": c.title.strip(), "path": c.path, "origin": c.origin}


def cases() -> list:
    """The sql vectors on every sql engine. The replay `intervals` vectors: their match set on every sql
    engine but replay (events as a DataFrame), and on the replay engine over a store with the vector's
    block size and indexes, planned by the cost model (pareto), by full replay (none), and once per index
    configuration (method = the configuration's variables). The replay intervals themselves and the
    aggregation cost model (not properties of a match table) stay in tests/conformance/test_replay_conformance.py."""
    out = []
    for c in load_sql_cases():
        read = {"type_col": None, "default_type": "row", "ts_unit": c.ts_unit}
        events, records = (_frame(c.events), c.events) if c.events is not None else _own_rows(c.query, read)
        out.append(Case(c.id, "sql", c.query, events, _sql_check(c), values_check=_sql_check(c, by_value=True),
                        read_options=read,
                        error=_sql_error(c) if c.error is not None else None, records=records,
                        record_options=read, error_kind="query" if c.error is not None else None,
                        compares_bindings=c.expected_matches is not None, **_about(c)))
    for c in load_replay_cases():
        if c.kind != "intervals":
            continue
        read = {"type_col": None, "default_type": "e"}
        out.append(Case(c.id, "sql", c.query, _frame(c.events), _replay_check(c), read_options=read,
                        engines=tuple(e for e in registry.engines_for("sql") if e != "replay"),
                        records=c.events, record_options=read, compares_bindings=True, **_about(c)))
        base, read = read, {**read, "block_size": c.block_size, "indexes": c.indexes}   # the store open_store writes
        for method in ("pareto", "none"):
            out.append(Case(f"{c.id}-{method}", "sql", c.query, _frame(c.events), _replay_check(c),
                            options={"method": method}, read_options=read, engines=("replay",), variant_of=c.id,
                            records=c.events, record_options=base, **_about(c)))
        for config in c.configs:
            out.append(Case(f"{c.id}-use-{'-'.join(config['use'])}", "sql", c.query, _frame(c.events),
                            _replay_check(c), options={"method": tuple(config["use"])}, read_options=read,
                            engines=("replay",), variant_of=c.id, records=c.events,
                            record_options=base, **_about(c)))
    return out
