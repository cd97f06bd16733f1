"""Helpers of the kit's tests: run `cepkit conformance` in this process, and check a JUnit file's structure."""
from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter

from cepkit.cli import main

OUTCOMES = ("failure", "error", "skipped")


def kit(capsys, *argv: str) -> tuple[int, str]:
    """(exit code, stdout) of `cepkit conformance ARGV`."""
    code = main(["conformance", *argv])
    return code, capsys.readouterr().out


def junit_counts(path) -> Counter:
    """The outcome counts of a JUnit report (pytest's, written by `--junitxml`), after checking its structure
    (no schema needed): <testsuites> of one <testsuite> whose tests / failures / errors / skipped attributes
    agree with its <testcase>s, each with a name, a classname (`conformance.cases.<language>`), a time, the
    vector's language and constructs as properties, and at most one of failure, error, skipped."""
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    total: Counter = Counter()
    for suite in root:
        assert suite.tag == "testsuite" and suite.get("name") == "cepkit-conformance", suite
        assert float(suite.get("time")) >= 0 and suite.get("timestamp")
        counts: Counter = Counter()
        for child in suite:
            assert child.tag == "testcase", child.tag
            assert child.get("name") and float(child.get("time")) >= 0
            language = child.get("classname").removeprefix("conformance.cases.")
            props = {p.get("name"): p.get("value") for p in child.iter("property")}
            assert props["language"] == language and "constructs" in props, props
            kinds = [c.tag for c in child if c.tag != "properties"]
            assert set(kinds) <= set(OUTCOMES) and len(kinds) <= 1, kinds
            for c in child:
                assert c.tag == "properties" or c.get("message") is not None
            counts["tests"] += 1
            counts.update(kinds)
        for attr, key in (("tests", "tests"), ("failures", "failure"), ("errors", "error"), ("skipped", "skipped")):
            assert int(suite.get(attr)) == counts[key], (suite.get("name"), attr)
        total += counts
    return total
