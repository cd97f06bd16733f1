"""AFA conformance vectors: loading and validating `conformance/cases/afa/*.yaml`.

A file is a mapping with `afas` (optional: name -> an AFA in the AFA file format) and `cases`. A case:

    - id: afa-CC2                    # unique across all AFA files
      title: a late event kills a speculative match
      source: spec/003 §9 CC2        # where the expected result comes from
      afa: AB                        # a name from `afas`, or `afa_file: afas/q1.afa.yaml` (beside the file)
      flavor: basic                  # basic | ignorable | seq | cleanse (default basic)
      sigma: 0                       # Cleanse's σ (cleanse only; a number or .inf)
      input:                         # rows as in an event file: kind, le, re, seq, arc, payload fields
        - {kind: insert, type: A, le: 1, v: 1}
      stream:                        # optional: the exact output stream
        - {op: insert, payload: {n: 3}, le: 3, re: 11}
        - {op: punctuate, t: 5}
      net:                           # the final net output multiset (count defaults to 1)
        - {payload: {n: 3}, le: 3, re: 11, count: 1}
      error: {at: 5, message: "below the current punctuation"}   # optional: input row `at` is refused

The loader is strict: unknown or missing keys, duplicate keys or ids, floats (inexact) in events or
outputs, and rows that are not valid stream elements are ValueErrors naming the file and the case.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from cepkit.conformance.loader import read_yaml
from cepkit.conformance.loader import where as line_of

from cepkit.front.afa.afafile import load_afa, loads_afa
from cepkit.reference.afa.driver import FLAVORS
from cepkit.front.afa.eventfile import element_of
from cepkit.front.afa.model import INF, Afa
from cepkit.core.errors import CepkitError
from cepkit.core.match import Match
from cepkit.conformance import origin as origins
from cepkit.conformance.harness import Case

CASES_DIR = Path(__file__).resolve().parent / "cases" / "afa"
ROOT = Path(__file__).resolve().parent.parent

_REQUIRED = ("id", "title", "source", "origin", "input", "net")
_OPTIONAL = ("afa", "afa_file", "flavor", "sigma", "stream", "error", "differs_from")
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")


@dataclass(frozen=True)
class AfaCase:
    id: str
    title: str
    source: str
    afa: Afa = field(hash=False)
    flavor: str
    sigma: Any
    rows: list = field(hash=False)       # the raw input rows
    elements: list = field(hash=False)   # the parsed stream elements
    stream: list | None = field(hash=False)
    net: dict = field(hash=False)        # (payload key, le, re) -> count
    error: dict | None = field(hash=False)
    path: str
    text: str = field(default="", hash=False, repr=False)   # the AFA file text (for the engine harness)
    origin: origins.Origin | None = None

    def __str__(self) -> str:
        return self.id




def freeze(v: Any) -> Any:
    """A hashable form of a payload (mappings become sorted item tuples)."""
    if isinstance(v, dict):
        return tuple(sorted((k, freeze(x)) for k, x in v.items()))
    if isinstance(v, (list, tuple)):
        return tuple(freeze(x) for x in v)
    return v


def _no_floats(v: Any, where: str) -> None:
    if isinstance(v, float) and v != INF:
        raise ValueError(f"{where}: {v!r} is a float; use integers (exact values, spec/003 A16)")
    if isinstance(v, dict):
        for x in v.values():
            _no_floats(x, where)
    if isinstance(v, list):
        for x in v:
            _no_floats(x, where)


def _keys(d: Any, required: tuple, optional: tuple, where: str) -> None:
    if not isinstance(d, dict):
        raise ValueError(f"{where}: must be a mapping")
    missing = [k for k in required if k not in d]
    unknown = sorted(set(map(str, d)) - set(required) - set(optional))
    if missing:
        raise ValueError(f"{where}: missing key(s) {missing}")
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {unknown}")


def _afa_path(vectors: Path, name: str) -> Path:
    """An `afa_file`: beside the vector file (the shipped vectors keep theirs in cases/afa/afas/), else from
    the source tree's root (examples/afa/...)."""
    beside = vectors.parent / name
    return beside if beside.exists() or not (ROOT / name).exists() else ROOT / name


def load_file(path: str | Path, seen: dict | None = None) -> list[AfaCase]:
    path = Path(path)
    seen = {} if seen is None else seen
    doc = read_yaml(path)
    _keys(doc, ("cases",), ("afas",), str(path))
    afas: dict[str, Afa] = {}
    texts: dict[str, str] = {}
    for name, spec in (doc.get("afas") or {}).items():
        try:
            texts[name] = yaml.safe_dump(spec, sort_keys=False)
            afas[name] = loads_afa(texts[name], f"{path}: afa {name}")
        except CepkitError as exc:
            raise ValueError(f"{path}: afa {name!r}: {exc}") from None
    if not isinstance(doc["cases"], list) or not doc["cases"]:
        raise ValueError(f"{path}: 'cases' must be a non-empty list")
    out = []
    for i, raw in enumerate(doc["cases"]):
        where = f"{line_of(path, raw)}: case {raw.get('id', i + 1) if isinstance(raw, dict) else i + 1!r}"
        _keys(raw, _REQUIRED, _OPTIONAL, where)
        cid = raw["id"]
        if not isinstance(cid, str) or not _ID_RE.match(cid):
            raise ValueError(f"{where}: bad id {cid!r}")
        if cid in seen:
            raise ValueError(f"{where}: duplicate id (also in {seen[cid]})")
        seen[cid] = str(path)
        if ("afa" in raw) == ("afa_file" in raw):
            raise ValueError(f"{where}: give exactly one of 'afa' and 'afa_file'")
        if "afa" in raw:
            if raw["afa"] not in afas:
                raise ValueError(f"{where}: unknown afa {raw['afa']!r} (defined: {sorted(afas)})")
            afa, text = afas[raw["afa"]], texts[raw["afa"]]
        else:
            try:
                afa_path = _afa_path(path, raw["afa_file"])
                afa = load_afa(afa_path)
                text = afa_path.read_text(encoding="utf-8")
            except CepkitError as exc:
                raise ValueError(f"{where}: {exc}") from None
        flavor = raw.get("flavor", "basic")
        if flavor not in FLAVORS:
            raise ValueError(f"{where}: unknown flavor {flavor!r} (expected one of {FLAVORS})")
        if ("sigma" in raw) != (flavor == "cleanse"):
            raise ValueError(f"{where}: 'sigma' is required for, and only for, the cleanse flavor")
        _no_floats(raw["input"], f"{where}: input")
        if not isinstance(raw["input"], list) or not raw["input"]:
            raise ValueError(f"{where}: 'input' must be a non-empty list")
        elements = []
        for r, row in enumerate(raw["input"], start=1):
            if not isinstance(row, dict):
                raise ValueError(f"{where}: input row {r} must be a mapping")
            try:
                elements.append(element_of(dict(row), r, afa))
            except CepkitError as exc:
                raise ValueError(f"{where}: input row {r}: {exc}") from None
        stream = None
        if "stream" in raw:
            stream = []
            _no_floats(raw["stream"], f"{where}: stream")
            for o in raw["stream"]:
                if isinstance(o, dict) and o.get("op") == "punctuate":
                    _keys(o, ("op", "t"), (), f"{where}: stream item {o}")
                    stream.append(("punctuate", o["t"]))
                else:
                    _keys(o, ("op", "payload", "le", "re"), (), f"{where}: stream item {o}")
                    if o["op"] not in ("insert", "retract"):
                        raise ValueError(f"{where}: stream op must be insert, retract or punctuate, not {o['op']!r}")
                    stream.append((o["op"], freeze(o["payload"]), o["le"], o["re"]))
        net: dict = {}
        _no_floats(raw["net"], f"{where}: net")
        for o in raw["net"] or []:
            _keys(o, ("payload", "le", "re"), ("count",), f"{where}: net item {o}")
            key = (freeze(o["payload"]), o["le"], o["re"])
            if key in net:
                raise ValueError(f"{where}: net item {o} listed twice (use count)")
            count = o.get("count", 1)
            if not isinstance(count, int) or isinstance(count, bool) or count < 1:
                raise ValueError(f"{where}: net item {o}: count must be a positive integer")
            net[key] = count
        error = raw.get("error")
        if error is not None:
            _keys(error, ("at", "message"), (), f"{where}: error")
            if not isinstance(error["at"], int) or not 1 <= error["at"] <= len(elements):
                raise ValueError(f"{where}: error.at must be an input row number")
        sigma = raw.get("sigma")
        if sigma is not None and (isinstance(sigma, bool) or not isinstance(sigma, (int, float)) or sigma < 0
                                  or (isinstance(sigma, float) and sigma != INF)):
            raise ValueError(f"{where}: sigma must be a non-negative integer or .inf")
        out.append(AfaCase(cid, raw["title"], raw["source"], afa, flavor, sigma, raw["input"], elements,
                           stream, net, error, str(path), text,
                           origins.read(raw, lambda msg, where=where: ValueError(f"{where}: {msg}"))))
    return out


def load_cases(directory: str | Path | None = None) -> list[AfaCase]:
    root = Path(directory) if directory is not None else CASES_DIR
    if not root.is_dir():
        raise ValueError(f"{root}: not a directory of AFA conformance cases")
    seen: dict = {}
    cases = []
    for path in sorted(root.glob("*.yaml")):
        cases += load_file(path, seen)
    return cases


# ---------------------------------------------------------------------- the engine harness
def _payload_items(afa: Afa, payload: Any) -> tuple:
    """A vector's payload as the table's payload items: one per register field, in schema order."""
    if isinstance(payload, dict) and afa.schema and set(payload) == set(afa.schema):
        return tuple((f, payload[f]) for f in afa.schema)
    return (("register", payload),)


def _rows_of(afa: Afa, items) -> Counter:
    """Canonical table rows (sign, lifetime, payload) of (op, payload, le, re) items."""
    return Counter(Match((), le, _payload_items(afa, dict(p) if isinstance(p, tuple) else p),
                         sign=1 if op == "insert" else -1, lifetime=(le, re)).canonical()
                   for op, p, le, re in items)


def _net_of(rows: Counter) -> Counter:
    """The net output of canonical rows: (lifetime, payload) -> insertions minus retractions."""
    net: Counter = Counter()
    for (_key, _ts, sign, lifetime, _det, payload), n in rows.items():
        net[(lifetime, payload)] += sign * n
    return +net


def _check(case: AfaCase):
    def check(table) -> None:
        got = table.canonical()
        if case.stream is not None:
            want = _rows_of(case.afa, [o for o in case.stream if o[0] != "punctuate"])
            assert got == want, (f"{case.id} ({case.source}): output rows (the change stream less punctuations)"
                                 f"\n  got:  {sorted(got.items(), key=repr)}\n  want: {sorted(want.items(), key=repr)}")
        want_net = _net_of(_rows_of(case.afa, [("insert", p, le, re) for (p, le, re), n in case.net.items()
                                               for _ in range(n)]))
        assert _net_of(got) == want_net, (f"{case.id} ({case.source}): net output\n  got:  {_net_of(got)}"
                                          f"\n  want: {want_net}")
    return check


def _expect_error(case: AfaCase):
    at, message = case.error["at"], case.error["message"]

    def error(exc: Exception) -> None:
        assert re.search(message, str(exc)), f"{case.id}: error {exc!r} does not say {message!r}"
        row = getattr(exc, "row", None)
        assert row == at or f"input row {at}:" in str(exc), f"{case.id}: error {exc!r} does not name input row {at}"
    return error


def cases() -> list:
    """Every AFA vector as a harness Case: the vector's input rows fed to the engine with its flavour; the
    table's rows must be the vector's change stream less its punctuations (as a multiset) and their net
    the vector's net output. A vector with an error expects the engine to refuse input row `at` with the
    message (tests/conformance/test_afa_conformance.py also checks the refusal leaves the operator unchanged,
    the punctuations and the order of the stream, and Definition 2 after every row)."""

    out = []
    for c in load_cases():
        options = {"flavor": c.flavor} | ({"sigma": c.sigma} if c.sigma is not None else {})
        out.append(Case(c.id, "afa", c.text, [dict(r) for r in c.rows], _check(c), options,
                        error=_expect_error(c) if c.error is not None else None, records=[dict(r) for r in c.rows],
                        error_kind="event" if c.error is not None else None, source=c.source, title=c.title,
                        path=c.path, origin=c.origin))
    return out
