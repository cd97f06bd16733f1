"""The outcomes as a JUnit XML report: one <testsuite> per language, one <testcase> per vector, <failure>
for a wrong answer, <error> for a broken protocol, <skipped> for a refusal."""
from __future__ import annotations

import re
import socket
import time
import xml.etree.ElementTree as ET

from cepkit.conformance.kit.outcome import FAILED, REFUSED, Outcome, describe

_BAD_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _text(s: str) -> str:
    return _BAD_XML.sub("?", s)


def report(outcomes: list[Outcome], engine_label: str) -> ET.ElementTree:
    """The XML tree of a run, in the elements and attributes of the common (Ant / xunit2) JUnit schema; a
    failure's text is the whole report of it (vector, source, file, expected and actual)."""
    suites = ET.Element("testsuites", name=f"cepkit conformance ({engine_label})")
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
    by_language: dict[str, list[Outcome]] = {}
    for o in outcomes:
        by_language.setdefault(o.case.language, []).append(o)
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
    for language, items in by_language.items():
        counts = {"tests": len(items),
                  "failures": sum(o.status == FAILED and not o.crashed for o in items),
                  "errors": sum(o.status == FAILED and o.crashed for o in items),
                  "skipped": sum(o.status == REFUSED for o in items),
                  "time": sum(o.seconds for o in items)}
        for k, v in counts.items():
            totals[k] += v
        suite = ET.SubElement(suites, "testsuite", name=f"conformance.{language}", timestamp=stamp,
                              hostname=socket.gethostname(), **_attrs(counts))
        props = ET.SubElement(suite, "properties")
        ET.SubElement(props, "property", name="engine", value=_text(engine_label))
        for o in items:
            tc = ET.SubElement(suite, "testcase", classname=f"conformance.{language}", name=o.case.id,
                               time=f"{o.seconds:.6f}")
            if o.status == FAILED:
                first = (o.detail.strip().splitlines() or ["failed"])[0]
                el = ET.SubElement(tc, "error" if o.crashed else "failure", message=_text(first[:500]),
                                   type="protocol" if o.crashed else "mismatch")
                el.text = _text(describe(o))
            elif o.status == REFUSED:
                ET.SubElement(tc, "skipped", message=_text(f"refused: {o.refused}"))
    for k, v in _attrs(totals).items():
        suites.set(k, v)
    ET.indent(suites)
    return ET.ElementTree(suites)


def _attrs(counts: dict) -> dict[str, str]:
    return {k: (f"{v:.3f}" if k == "time" else str(v)) for k, v in counts.items()}


def write(outcomes: list[Outcome], engine_label: str, path: str) -> None:
    report(outcomes, engine_label).write(path, encoding="utf-8", xml_declaration=True)
