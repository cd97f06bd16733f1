"""Conformance vectors of the SASE 1.0 dialect: `conformance/cases/sase1/*.yaml`.

A case is a SASE+ vector (conformance/loader.py) with a `dialect` ("sase1" or "sase+": the query is read
in it, whatever its text) and, instead of `events`, optionally `stream`: the parameters of SASE 1.0's stock
stream generator (reference/sase1/stock_stream.py, named as in its `.stream` files), so that a vector over
SASE 1.0's 100,000-event streams names the stream instead of listing it. Event ids of a generated stream
are its positions 0, 1, ... The expectation is `expected` (the exact multiset) or `expected_count` with
`includes` / `excludes`. The loader is strict, like the others.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from cepkit.conformance.loader import CASES_DIR, check_keys, collect, format_match, match_key, read_cases, where
from cepkit.conformance import origin as origins
from cepkit.conformance.harness import Case as HarnessCase
from cepkit.core.readers import from_pandas
from cepkit.reference.sase1.stock_stream import StockStreamConfig, to_frame

ROOT = CASES_DIR / "sase1"
_REQUIRED = ("id", "title", "source", "origin", "dialect", "query")
_ALLOWED = frozenset(_REQUIRED + ("differs_from", "events", "stream", "ts_unit", "expected", "expected_count", "includes",
                                  "excludes"))


@dataclass(frozen=True)
class Sase1Case:
    id: str
    title: str
    source: str
    dialect: str
    query: str
    events: list | None = field(hash=False)
    stream: dict | None = field(hash=False)
    ts_unit: str | None
    expected: list | None = field(hash=False)
    expected_count: int | None
    includes: list = field(hash=False)
    excludes: list = field(hash=False)
    path: str
    origin: origins.Origin | None = None

    def __str__(self) -> str:
        return self.id

    def frame(self):
        """The case's events as a pandas DataFrame (generated for a `stream` case)."""
        import pandas as pd

        if self.stream is not None:
            return to_frame(StockStreamConfig.from_mapping(self.stream))
        return pd.DataFrame(self.events)


def load_cases(directory: str | Path | None = None) -> list[Sase1Case]:
    return collect(Path(directory) if directory is not None else ROOT, load_file)


def load_file(path: str | Path) -> list[Sase1Case]:
    path = Path(path)
    out, ids = [], set()
    for n, raw in enumerate(read_cases(path), 1):
        case = _parse(raw, path, n)
        if case.id in ids:
            raise ValueError(f"{path}: case {case.id!r}: duplicate id")
        ids.add(case.id)
        out.append(case)
    return out


def _parse(raw: Any, path: Path, n: int) -> Sase1Case:
    label = f"case {raw.get('id')!r}" if isinstance(raw, dict) and "id" in raw else f"case #{n}"

    def fail(msg: str) -> ValueError:
        return ValueError(f"{where(path, raw)}: {label}: {msg}")

    check_keys(raw, _ALLOWED, _REQUIRED, fail)
    for key in ("id", "title", "source", "query"):
        if not isinstance(raw[key], str) or not raw[key].strip():
            raise fail(f"'{key}' must be a non-empty string")
    if raw["dialect"] not in ("sase1", "sase+"):
        raise fail(f"'dialect' must be sase1 or sase+ (got {raw['dialect']!r})")
    if ("events" in raw) == ("stream" in raw):
        raise fail("give exactly one of 'events' (rows) and 'stream' (SASE 1.0 generator parameters)")
    if "stream" in raw:
        if not isinstance(raw["stream"], dict):
            raise fail("'stream' must be a mapping of generator parameters")
        try:
            config = StockStreamConfig.from_mapping(raw["stream"])
        except Exception as exc:
            raise fail(str(exc)) from None
        ids = {str(i) for i in range(config.streamSize)}
    else:
        events = raw["events"]
        if not isinstance(events, list) or not events or not all(isinstance(e, dict) for e in events):
            raise fail("'events' must be a non-empty list of rows")
        for k, row in enumerate(events, 1):
            missing = [c for c in ("id", "ts", "type") if row.get(c) is None]
            if missing:
                raise fail(f"event row {k} lacks {', '.join(missing)}")
        ids = [str(e["id"]) for e in events]
        if len(set(ids)) != len(ids):
            raise fail("an event id is used twice")
        ids = set(ids)
    if ("expected" in raw) == ("expected_count" in raw):
        raise fail("give either 'expected' (exact) or 'expected_count' (+ includes/excludes)")
    if "expected" in raw and ("includes" in raw or "excludes" in raw):
        raise fail("'includes'/'excludes' go with 'expected_count'")
    count = raw.get("expected_count")
    if count is not None and (isinstance(count, bool) or not isinstance(count, int) or count < 0):
        raise fail(f"'expected_count' must be a non-negative integer (got {count!r})")

    def matches(key: str) -> list | None:
        value = raw.get(key)
        if value is None:
            return None if key == "expected" else []
        if not isinstance(value, list) or not all(isinstance(m, dict) for m in value):
            raise fail(f"'{key}' must be a list of matches (variable -> list of event ids)")
        for m in value:
            for var, evs in m.items():
                if not isinstance(evs, list) or not evs or any(str(e) not in ids for e in evs):
                    raise fail(f"'{key}': {var}: {evs!r} is not a list of the case's event ids")
        return value

    return Sase1Case(raw["id"], raw["title"].strip(), raw["source"].strip(), raw["dialect"], raw["query"],
                     raw.get("events"), raw.get("stream"), raw.get("ts_unit"), matches("expected"), count,
                     matches("includes"), matches("excludes"), str(path),
                     origins.read(raw, fail))


def problems(case: Sase1Case, got: Counter) -> list[str]:
    """What is wrong with a result multiset (match keys) against the case; [] when it conforms."""
    out = []
    if case.expected is not None:
        want = Counter(match_key(m) for m in case.expected)
        out += [f"  missing: {format_match(k)}" for k in sorted(want - got)]
        out += [f"  unexpected: {format_match(k)}" for k in sorted(got - want)]
    else:
        if sum(got.values()) != case.expected_count:
            out.append(f"  expected {case.expected_count} matches, got {sum(got.values())}")
        out += [f"  missing: {format_match(match_key(m))}" for m in case.includes if match_key(m) not in got]
        out += [f"  forbidden: {format_match(match_key(m))}" for m in case.excludes if match_key(m) in got]
    return out


def check_table(case: Sase1Case, table) -> None:
    found = problems(case, Counter(m.key() for m in table))
    if found:
        raise AssertionError(f"not conforming on {case.id}: {case.title}\n  file: {case.path}\n"
                             f"  dialect: {case.dialect}\n" + "\n".join(found))


def cases() -> list:
    """Every SASE 1.0 dialect vector as a harness case (conformance/harness.py): a `sase` query with its
    `dialect` option, so that every SASE engine runs it or refuses the dialect by name; the kit offers it as
    the language `sase1`, with its generator configuration (`stream`) and its events as rows."""
    out = []
    for c in load_cases():
        frame = c.frame()
        out.append(HarnessCase(id=c.id, language="sase", query=c.query, events=from_pandas(frame, ts_unit=c.ts_unit),
                               check=partial(check_table, c), options={"dialect": c.dialect},
                               records=frame.to_dict("records"), record_options={"type_col": "type", "ts_unit": c.ts_unit},
                               source=c.source, title=c.title, path=c.path, origin=c.origin, offered_as="sase1",
                               stream=c.stream))
    return out
