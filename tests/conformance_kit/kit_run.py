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
    """The outcome counts of a JUnit report, after checking its structure (no schema needed): <testsuites>
    of <testsuite>s whose tests / failures / errors / skipped / time attributes agree with their <testcase>s,
    each testcase with a name, a classname, a time and at most one of failure, error, skipped."""
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    total: Counter = Counter()
    for suite in root:
        assert suite.tag == "testsuite" and suite.get("name"), suite
        assert float(suite.get("time")) >= 0 and suite.get("timestamp")
        counts: Counter = Counter()
        for child in suite:
            if child.tag == "properties":
                assert all(p.tag == "property" and p.get("name") for p in child)
                continue
            assert child.tag == "testcase", child.tag
            assert child.get("name") and child.get("classname") and float(child.get("time")) >= 0
            kinds = [c.tag for c in child]
            assert set(kinds) <= set(OUTCOMES) and len(kinds) <= 1, kinds
            for c in child:
                assert c.get("message") is not None
            counts["tests"] += 1
            counts.update(kinds)
        for attr, key in (("tests", "tests"), ("failures", "failure"), ("errors", "error"), ("skipped", "skipped")):
            assert int(suite.get(attr)) == counts[key], (suite.get("name"), attr)
        total += counts
    for attr, key in (("tests", "tests"), ("failures", "failure"), ("errors", "error"), ("skipped", "skipped")):
        assert int(root.get(attr)) == total[key], attr
    return total
