"""TPStream conformance vectors: loading and validating `conformance/cases/tpstream/*.yaml`.

A file is a mapping with one key, `cases`. Each case has `id`, `title`, `source` (where its expected
result comes from) and a `kind`:

- `derive`: `definitions` (`S AS cond [duration], ...`), `events`, optional `partition_by`, `ts_unit`;
  `expected` lists every situation `{situation, ts, te}` (optionally `partition: [...]` and `aggregates:
  {attr: x, count: .., sum: .., avg: .., first: .., last: .., min: .., max: ..}`); optional
  `expected_open` lists the runs still open at the end of the stream `{situation, ts}`.
- `classify`: `pairs`, each `{a: [ts, te], b: [ts, te], relation: <Allen name>, thesis: <thesis name>}`.
- `match`: `query`, `events`, optional `ts_unit`; `expected` (exact mode) and/or `expected_early`
  (low-latency mode), each a list of matches `{situations: {A: [ts, te], ...}, ts, values?, partition?}`;
  in `expected_early` a situation is written by its start alone (`A: 2`), since it may still be ongoing.

The loader is strict: an unknown or missing key, a duplicate id or a malformed value is a ValueError
naming the file and the case.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


from cepkit.conformance import origin as origins
from cepkit.conformance.loader import collect, read_cases, where
from cepkit.front.tpstream import allen
from cepkit.conformance.harness import Case
from cepkit.core.match import comparable
from cepkit.front.tpstream.parser import parse_tpstream

CASES_DIR = Path(__file__).resolve().parent / "cases" / "tpstream"
TS_UNITS = ("ns", "us", "ms", "s", "min", "h", "d")
_COMMON = ("id", "title", "source", "kind", "origin")
_KEYS = {
    "derive": (("definitions", "events", "expected"), ("partition_by", "ts_unit", "expected_open")),
    "classify": (("pairs",), ()),
    "match": (("query", "events"), ("ts_unit", "expected", "expected_early")),
}
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z_0-9]*$")
_AGGS = ("count", "sum", "avg", "first", "last", "min", "max")


@dataclass(frozen=True)
class TPCase:
    id: str
    title: str
    source: str
    kind: str
    data: dict = field(hash=False)
    path: str
    origin: origins.Origin | None = None

    def __str__(self) -> str:
        return self.id


def load_cases(directory: str | Path | None = None) -> list[TPCase]:
    return collect(Path(directory) if directory is not None else CASES_DIR, load_file)


def load_file(path: str | Path) -> list[TPCase]:
    path = Path(path)
    return [_case(raw, path, n) for n, raw in enumerate(read_cases(path), 1)]


def _case(raw: Any, path: Path, n: int) -> TPCase:
    label = f"case {raw.get('id')!r}" if isinstance(raw, dict) and "id" in raw else f"case #{n}"

    def fail(msg: str) -> ValueError:
        return ValueError(f"{where(path, raw)}: {label}: {msg}")

    if not isinstance(raw, dict):
        raise fail("a case must be a mapping")
    kind = raw.get("kind")
    if kind not in _KEYS:
        raise fail(f"'kind' must be one of {', '.join(_KEYS)} (got {kind!r})")
    required, optional = _KEYS[kind]
    allowed = set(_COMMON) | set(required) | set(optional) | set(origins.KEYS)
    unknown = sorted(str(k) for k in raw if k not in allowed)
    if unknown:
        raise fail(f"unknown key(s) {', '.join(unknown)} (allowed: {', '.join(sorted(allowed))})")
    missing = [k for k in _COMMON + required if k not in raw]
    if missing:
        raise fail(f"missing key(s) {', '.join(missing)}")
    if not isinstance(raw["id"], str) or not _ID_RE.match(raw["id"]):
        raise fail(f"bad id {raw['id']!r}")
    for key in ("title", "source") + tuple(k for k in ("query", "definitions") if k in raw):
        if not isinstance(raw[key], str) or not raw[key].strip():
            raise fail(f"'{key}' must be a non-empty string")
    if raw.get("ts_unit") is not None and raw["ts_unit"] not in TS_UNITS:
        raise fail(f"'ts_unit' must be one of {', '.join(TS_UNITS)}")
    if "events" in raw:
        _events(raw["events"], fail)
    if kind == "derive":
        _derive(raw, fail)
    elif kind == "classify":
        _pairs(raw["pairs"], fail)
    else:
        if "expected" not in raw and "expected_early" not in raw:
            raise fail("a match case needs 'expected' and/or 'expected_early'")
        for key in ("expected", "expected_early"):
            if key in raw:
                _matches(raw[key], key, fail)
    origin = origins.read(raw, fail)
    return TPCase(raw["id"], raw["title"].strip(), raw["source"].strip(), kind, dict(raw), str(path), origin)


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _events(events: Any, fail) -> None:
    if not isinstance(events, list) or not events:
        raise fail("'events' must be a non-empty list of rows")
    prev = None
    for n, row in enumerate(events, 1):
        if not isinstance(row, dict) or "ts" not in row or not _int(row["ts"]):
            raise fail(f"event row {n} must be a mapping with an integer 'ts'")
        if not all(isinstance(k, str) and _NAME_RE.match(k) for k in row):
            raise fail(f"event row {n}: column names must be identifiers")
        if prev is not None and row["ts"] < prev:
            raise fail(f"event row {n}: ts goes back in time")
        prev = row["ts"]


def _interval(v: Any) -> bool:
    return isinstance(v, list) and len(v) == 2 and all(_int(x) for x in v) and v[0] < v[1]


def _derive(raw: dict, fail) -> None:
    pb = raw.get("partition_by", [])
    if not isinstance(pb, list) or not all(isinstance(a, str) and _NAME_RE.match(a) for a in pb):
        raise fail("'partition_by' must be a list of attribute names")
    for key, fields in (("expected", {"situation", "ts", "te"}), ("expected_open", {"situation", "ts"})):
        items = raw.get(key, [])
        if not isinstance(items, list):
            raise fail(f"'{key}' must be a list")
        for n, s in enumerate(items, 1):
            if not isinstance(s, dict) or not fields <= set(s) or not set(s) <= fields | {"partition", "aggregates"}:
                raise fail(f"{key} #{n} must have exactly {sorted(fields)} (+ partition, aggregates)")
            if not _int(s["ts"]) or ("te" in s and (not _int(s["te"]) or s["te"] <= s["ts"])):
                raise fail(f"{key} #{n}: ts/te must be integers with ts < te")
            if "partition" in s and not isinstance(s["partition"], list):
                raise fail(f"{key} #{n}: partition must be a list of values")
            aggs = s.get("aggregates")
            if aggs is not None:
                if not isinstance(aggs, dict) or "attr" not in aggs or not set(aggs) - {"attr"} <= set(_AGGS):
                    raise fail(f"{key} #{n}: aggregates must name 'attr' and some of {', '.join(_AGGS)}")


def _pairs(pairs: Any, fail) -> None:
    if not isinstance(pairs, list) or not pairs:
        raise fail("'pairs' must be a non-empty list")
    for n, p in enumerate(pairs, 1):
        if not isinstance(p, dict) or set(p) != {"a", "b", "relation", "thesis"}:
            raise fail(f"pair #{n} must have exactly a, b, relation, thesis")
        if not _interval(p["a"]) or not _interval(p["b"]):
            raise fail(f"pair #{n}: a and b must be [ts, te] with ts < te")
        if p["relation"] not in allen.RELATIONS:
            raise fail(f"pair #{n}: unknown relation {p['relation']!r}")


def _matches(items: Any, key: str, fail) -> None:
    if not isinstance(items, list):
        raise fail(f"'{key}' must be a list of matches")
    seen = set()
    for n, m in enumerate(items, 1):
        if not isinstance(m, dict) or not {"situations", "ts"} <= set(m) or \
                not set(m) <= {"situations", "ts", "values", "partition"}:
            raise fail(f"{key} #{n} must have situations and ts (+ values, partition)")
        sits = m["situations"]
        if not isinstance(sits, dict) or not sits:
            raise fail(f"{key} #{n}: situations must map names to intervals")
        for name, v in sits.items():
            ok = _int(v) if key == "expected_early" else _interval(v)
            if not isinstance(name, str) or not ok:
                raise fail(f"{key} #{n}: situation {name!r} must be " +
                           ("its start ts" if key == "expected_early" else "[ts, te] with ts < te"))
        if not _int(m["ts"]):
            raise fail(f"{key} #{n}: ts must be an integer")
        if "values" in m and not isinstance(m["values"], dict):
            raise fail(f"{key} #{n}: values must be a mapping")
        ident = (repr(m.get("partition")), tuple(sorted((k, str(v)) for k, v in sits.items())))
        if ident in seen:
            raise fail(f"{key} #{n}: the same configuration twice")
        seen.add(ident)



# ---------------------------------------------------------------------- the engine harness
def _exact(v: Any) -> Any:
    """A value in comparable exact form (a YAML float is read as its decimal text)."""
    from fractions import Fraction

    return comparable(Fraction(str(v)) if isinstance(v, float) else v)


def _check(case: TPCase, key: str):
    """The table's rows, projected on what the vector pins, must be the vector's matches (a multiset):
    ts and detected (both the detection time), each situation's [start, end] (its start alone in early
    mode), the PARTITION BY values where the vector gives them, the RETURN values it names."""

    early = key == "expected_early"
    partition_by = parse_tpstream(case.data["query"]).partition_by
    items = case.data[key]
    names = sorted({n for w in items for n in (w.get("values") or {})})
    with_partition = any("partition" in w for w in items)

    def got_row(m) -> tuple:
        p = dict(m.payload)
        sits = tuple(sorted((v, _exact(p[f"{v}.start"]) if early else (_exact(p[f"{v}.start"]), _exact(p[f"{v}.end"])))
                            for v in dict(m.bindings)))
        part = tuple(_exact(p[a]) for a in partition_by) if with_partition else None
        return (_exact(m.ts), _exact(m.detected), sits, tuple((n, _exact(p.get(n))) for n in names), part)

    def want_row(w: dict) -> tuple:
        sits = tuple(sorted((n, _exact(v) if early else (_exact(v[0]), _exact(v[1])))
                            for n, v in w["situations"].items()))
        part = tuple(_exact(x) for x in w.get("partition", ())) if with_partition else None
        values = w.get("values") or {}
        return (_exact(w["ts"]), _exact(w["ts"]), sits,
                tuple((n, _exact(values[n]) if n in values else None) for n in names), part)

    def check(table) -> None:
        from collections import Counter

        got = Counter(got_row(m) for m in table)
        want = Counter(want_row(w) for w in items)
        assert got == want, (f"{case.id} ({case.source}), {key}:\n  got:  {sorted(got.items(), key=repr)}"
                             f"\n  want: {sorted(want.items(), key=repr)}")
    return check


def cases() -> list:
    """Every `match` vector as harness Cases, one per mode it gives (`expected`: mode exact, `expected_early`:
    mode early), on every tpstream engine (reference, brute, gpu, optimized); the reference and optimized
    engines also run each fed three events at a time. The `derive` and `classify` vectors
    test parts below the engine contract: tests/conformance/test_tpstream_conformance.py runs them."""
    import pandas as pd

    out = []
    for c in load_cases():
        if c.kind != "match":
            continue
        events = pd.DataFrame(c.data["events"])
        read = {"default_type": "E", "ts_unit": c.data.get("ts_unit")}
        for key, mode in (("expected", "exact"), ("expected_early", "early")):
            if key not in c.data:
                continue
            check = _check(c, key)
            about = {"records": c.data["events"], "record_options": read, "source": c.source, "title": c.title,
                     "path": c.path, "origin": c.origin}
            out.append(Case(f"{c.id}:{mode}", "tpstream", c.data["query"], events, check, {"mode": mode}, read,
                            **about))
            out.append(Case(f"{c.id}:{mode}:chunk3", "tpstream", c.data["query"], events, check, {"mode": mode},
                            read, engines=("reference", "optimized"), chunk=3, variant_of=f"{c.id}:{mode}", **about))
    return out
