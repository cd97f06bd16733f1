"""The worked examples of docs/conformance.md: the tiny SASE+ engine as a Python adapter and as an external
command passes what it runs and refuses the rest by name; cepkit's reference behind the command protocol
passes vectors of every language."""
from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.conformance_kit.kit_run import junit_counts, kit

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "conformance"
REFUSED = ("Kleene closure", "negation", "RFID dialect", "AND(...)", "partition", "WHERE predicate",
           "non-overlap output", "count window")


def test_the_example_adapter(capsys, tmp_path):
    out = tmp_path / "tiny.xml"
    code, text = kit(capsys, "--adapter", f"{EXAMPLES / 'tiny_sase.py'}:TinySase", "--junit", str(out))
    assert code == 0, text
    counts = junit_counts(out)
    assert counts["tests"] == counts["skipped"] + 8 and "failure" not in counts and "error" not in counts
    assert "8 passed, 0 failed" in text
    for construct in REFUSED:
        assert f"sase: {construct}: " in text
    assert "language sql: " in text                   # the other languages' vectors: refused by language
    skipped = [el.get("message") for el in ET.parse(out).getroot().iter("skipped")]   # a refusal is a skip
    assert "refused: Kleene closure" in skipped and all(m.startswith("refused: ") for m in skipped)


def test_the_example_command(capsys, tmp_path):
    out = tmp_path / "tiny-command.xml"
    code, text = kit(capsys, "--command", f"{sys.executable} {EXAMPLES / 'tiny_sase_command.py'}", "--language",
                     "sase", "--case", "LAZY-*", "--case", "CHOICE-*", "--case", "CC5-*", "--junit", str(out))
    assert code == 0, text
    assert "0 failed" in text and "sase: negation: " in text and "sase: partition: " in text
    counts = junit_counts(out)
    assert counts["skipped"] > 0 and counts["tests"] - counts["skipped"] >= 7


def test_cepkit_behind_the_command_protocol(capsys):
    """A vector of each kind the files and rows must carry: a window average (a fraction), AFA retractions and
    sigma = infinity, TPStream detection times, SQL MEASURES, an expected query error (exit 65) and an
    expected event error (exit 66)."""
    code, text = kit(capsys, "--command", f"{sys.executable} {EXAMPLES / 'cepkit_command.py'}",
                     "--case", "AGG-1", "--case", "afa-CC2", "--case", "afa-CC16-sigma-inf", "--case", "afa-CC11",
                     "--case", "TP-6-meets:early", "--case", "MR-pattern-too-large", "--case", "MR-one-row-past-last")
    assert code == 0, text
    assert "7 passed, 0 failed, 0 refused" in text
