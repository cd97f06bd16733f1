"""A peer's per-vector results: read from a kit run's JUnit report (pytest's `--junitxml`), kept as JSON
(docs/data/peers/<peer>.json, written by scripts/peer_report.py) and counted per origin and construct."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path



def from_junit(path: str | Path) -> dict[str, dict]:
    """{vector id: {outcome, origin, constructs, refused}} of a kit run's JUnit report."""
    out = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        kinds = {c.tag: c for c in case if c.tag != "properties"}
        refused = None
        if "failure" in kinds:
            outcome = "failed"
        elif "error" in kinds:
            outcome = "error"
        elif "skipped" in kinds:
            refused = props.get("refused")   # the plugin's property of a refusal (plugin.KitCase)
            outcome = "refused" if refused is not None else "skipped"
        else:
            outcome = "passed"
        constructs = [c for c in (props.get("constructs") or "").split("; ") if c]
        out[case.get("name")] = {"outcome": outcome, "origin": props.get("origin", "?"), "constructs": constructs,
                                 "refused": refused}
    return dict(sorted(out.items()))


def save(path: Path, about: dict, vectors: dict[str, dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({**about, "vectors": vectors}, indent=1, sort_keys=False) + "\n")


def load(path: Path) -> dict:
    return json.loads(path.read_text())


def counts(vectors: dict[str, dict], key: str) -> dict[str, Counter]:
    """Outcome counts per value of `key` ("origin", or "constructs": a vector counts under each of its own)."""
    table: dict[str, Counter] = {}
    for v in vectors.values():
        for name in (v[key] if isinstance(v[key], list) else [v[key]]):
            table.setdefault(name, Counter())[v["outcome"]] += 1
    return dict(sorted(table.items()))


def differences(expected: dict[str, dict], actual: dict[str, dict]) -> list[str]:
    """'id: expected -> actual' for each vector whose outcome (or refused construct) differs, or is in one only."""
    out = []
    for vid in sorted(set(expected) | set(actual)):
        e, a = expected.get(vid), actual.get(vid)
        if e is None or a is None or (e["outcome"], e["refused"]) != (a["outcome"], a["refused"]):
            out.append(f"{vid}: {_shown(e)} -> {_shown(a)}")
    return out


def _shown(result: dict | None) -> str:
    if result is None:
        return "absent"
    return result["outcome"] + (f" ({result['refused']})" if result["refused"] else "")
