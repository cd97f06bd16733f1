"""TPStream conformance: every vector in conformance/cases/tpstream/ against the deriver, the Allen
relations, both matchers and the brute-force definition."""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest

from cepkit.conformance.tpstream_loader import TPCase, load_cases, load_file
from cepkit.core.errors import Unsupported
from cepkit.core.readers import from_pandas
from cepkit.core.match import plain
from cepkit.front.tpstream import allen
from cepkit.reference.tpstream import brute
from cepkit.reference.tpstream.bind import compile_stream, partitions
from cepkit.front.tpstream.reads import aggregate, value_reader
from cepkit.front.tpstream.parser import parse_definitions, parse_tpstream
from cepkit.reference.tpstream.run import derive, run_query

CASES = load_cases()


def _batch(case: TPCase):
    return from_pandas(pd.DataFrame(case.data["events"]), default_type="E", ts_unit=case.data.get("ts_unit"))


def _same(want, got) -> bool:
    if isinstance(want, (int, float)) and not isinstance(want, bool) and isinstance(got, (int, Fraction)) \
            and not isinstance(got, bool):
        return Fraction(str(want)) == Fraction(got)
    return want == got


def _describe(case: TPCase) -> str:
    return f"{case.id}: {case.title}\n  file: {case.path}\n  source: {case.source}"


def _check_derive(case: TPCase, derive=derive) -> None:
    batch = _batch(case)
    defs = parse_definitions(case.data["definitions"])
    pb = tuple(case.data.get("partition_by", ()))
    finished, still_open = derive(defs, batch, pb)
    value = value_reader(batch)
    got = [{"situation": n, "ts": ts, "te": te, "partition": list(k), "events": ev} for k, n, ts, te, ev in finished]
    # the definition (Def 5.2) gives the same situations
    want_def = []
    for key, positions in partitions(batch, pb):
        pos = [int(p) for p in positions]
        ts = [int(batch.ts[p]) for p in pos]
        for d in defs:
            want_def += [(key, d.name, a, e) for a, e, _ev in brute.situations(compile_stream(d, batch, value), pos, ts)]
    assert sorted(want_def, key=repr) == sorted(((tuple(g["partition"]), g["situation"], g["ts"], g["te"])
                                                 for g in got), key=repr), _describe(case)
    expected = case.data["expected"]
    assert len(got) == len(expected), f"{_describe(case)}\n  got {[(g['situation'], g['ts'], g['te']) for g in got]}"
    for g, e in zip(sorted(got, key=lambda g: (g["situation"], repr(g["partition"]), g["ts"])),
                    sorted(expected, key=lambda e: (e["situation"], repr(e.get("partition", [])), e["ts"]))):
        assert (g["situation"], g["ts"], g["te"]) == (e["situation"], e["ts"], e["te"]), _describe(case)
        if "partition" in e:
            assert g["partition"] == e["partition"], _describe(case)
        aggs = dict(e.get("aggregates") or {})
        attr = aggs.pop("attr", None)
        for func, want in aggs.items():
            value_got = aggregate(func, [value(p, attr) for p in g["events"]])
            assert _same(want, value_got), f"{_describe(case)}\n  {func}({attr}) = {plain(value_got)}, want {want}"
    opened = sorted((n, ts) for _k, n, ts, _ev in still_open)
    assert opened == sorted((o["situation"], o["ts"]) for o in case.data.get("expected_open", [])), _describe(case)


def _check_classify(case: TPCase) -> None:
    for p in case.data["pairs"]:
        a, b = tuple(p["a"]), tuple(p["b"])
        assert allen.classify(a, b) == p["relation"], f"{_describe(case)}\n  {a} ? {b}"
        assert allen.THESIS_NAME.get(p["relation"], p["relation"].replace("_", " ")) == p["thesis"]
        assert sum(allen.holds(r, a, b) for r in allen.RELATIONS) == 1


def _rendered(m, early: bool) -> dict:
    out = {"situations": {n: (s if early else [s, e]) for n, s, e in m.situations}, "ts": m.ts}
    if m.partition:
        out["partition"] = [plain(v) for v in m.partition]
    out["values"] = dict(m.values)
    return out


def _check_match(case: TPCase, engine: str) -> None:
    q = parse_tpstream(case.data["query"])
    batch = _batch(case)
    for key, mode in (("expected", "exact"), ("expected_early", "early")):
        if key not in case.data:
            continue
        if engine == "gpu":
            if mode == "early":  # the gpu engine derives for the exact mode only
                continue
            from cepkit.gpu.situations import run_query as gpu_run_query
            matches = gpu_run_query(q, batch, chunk=3)   # small chunks: runs carried across chunks
        else:
            matches = run_query(q, batch, mode, engine)
        got = [_rendered(m, mode == "early") for m in matches]
        want = case.data[key]
        shown = f"{_describe(case)}\n  mode {mode}, engine {engine}\n  got: {got}\n  want: {want}"
        assert len(got) == len(want), shown
        for g, w in zip(got, want):
            assert g["situations"] == w["situations"] and g["ts"] == w["ts"], shown
            if "partition" in w:
                assert g.get("partition") == w["partition"], shown
            for name, value in (w.get("values") or {}).items():
                assert name in g["values"] and _same(value, g["values"][name]), shown


def _params():
    out = []
    for c in CASES:
        engines = ("matcher", "brute", "gpu") if c.kind == "match" else ("-", "gpu") if c.kind == "derive" else ("-",)
        out += [pytest.param(c, e, id=f"{c.id}::{e}" if e != "-" else c.id) for e in engines]
    return out


@pytest.mark.parametrize("case, engine", _params())
def test_case(case: TPCase, engine: str):
    if case.kind == "derive":
        if engine == "gpu":
            from cepkit.gpu.situations import derive as gpu_derive
            _check_derive(case, lambda defs, batch, pb: gpu_derive(defs, batch, pb, chunk=3))
        else:
            _check_derive(case)
    elif case.kind == "classify":
        _check_classify(case)
    elif engine == "gpu":
        if "expected" not in case.data:
            pytest.skip("early mode only; the gpu engine derives for the exact mode")
        try:
            _check_match(case, engine)
        except Unsupported as exc:
            pytest.skip(str(exc))
    else:
        _check_match(case, engine)


def test_every_thesis_case_is_covered():
    ids = {c.id.split("-")[0] + "-" + c.id.split("-")[1] for c in CASES if c.id.startswith("TP-")}
    assert {f"TP-{i}" for i in range(1, 11)} <= ids


@pytest.mark.parametrize("text, message", [
    ("cases: []", "non-empty list"),
    ("cases:\n  - {id: x, title: t, source: s, origin: sql2016, kind: nope}", "'kind' must be one of"),
    ("cases:\n  - {id: x, title: t, source: s, origin: sql2016, kind: classify, pairs: [{a: [1, 2], b: [2, 3], relation: meets, "
     "thesis: meets}], extra: 1}", "unknown key(s) extra"),
    ("cases:\n  - {id: x, title: t, source: s, origin: sql2016, kind: classify, pairs: [{a: [3, 2], b: [2, 3], relation: meets, "
     "thesis: meets}]}", "ts < te"),
    ("cases:\n  - {id: x, title: t, source: s, origin: sql2016, kind: match, query: q, events: [{ts: 1}]}", "needs 'expected'"),
    ("cases:\n  - {id: x, title: t, source: s, origin: sql2016, kind: match, query: q, events: [{ts: 1}], expected_early: "
     "[{situations: {A: [1, 2]}, ts: 1}]}", "its start ts"),
    ("cases:\n  - {id: x, title: t, source: s, origin: sql2016, kind: match, query: q, events: [{ts: 2}, {ts: 1}], expected: []}",
     "back in time"),
    ("cases:\n  - {id: x, title: t, source: s, origin: sql2016, kind: classify, kind: match}", "duplicate key"),
])
def test_loader_is_strict(tmp_path: Path, text: str, message: str):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ValueError, match=None) as info:
        load_file(path)
    assert message in str(info.value)


def test_duplicate_ids_across_files(tmp_path: Path):
    case = ("cases:\n  - {id: same, title: t, source: s, origin: sql2016, kind: classify, pairs: [{a: [1, 2], b: [2, 3], "
            "relation: meets, thesis: meets}]}")
    (tmp_path / "a.yaml").write_text(case)
    (tmp_path / "b.yaml").write_text(case)
    with pytest.raises(ValueError, match="duplicate id"):
        load_cases(tmp_path)
