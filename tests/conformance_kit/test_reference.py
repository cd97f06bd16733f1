"""The kit against cepkit's reference engines: every vector passes, directly and through the adapter
protocol's JSON rows."""
from __future__ import annotations

from cepkit.conformance.kit import vectors
from cepkit.core import registry
from tests.conformance_kit.kit_run import junit_counts, kit


def test_every_vector_passes_on_the_reference(capsys, tmp_path):
    out = tmp_path / "reference.xml"
    code, text = kit(capsys, "--junit", str(out))
    expected = [c for c in vectors.all_cases() if "reference" in (c.engines or registry.engines_for(c.language))]
    assert code == 0, text
    assert f"{len(expected)} passed, 0 failed, 0 refused" in text
    for language in registry.LANGUAGES:
        assert f"\n{language} " in text          # a row per language
    assert "sase: Kleene closure" in text and "sql: PARTITION BY" in text and "afa: flavor:cleanse" in text
    counts = junit_counts(out)
    assert counts == {"tests": len(expected)}


def test_every_vector_passes_through_the_adapter_rows(capsys):
    """The reference behind the Python adapter protocol: its matches go through Match.to_json rows (exact
    values as floats, infinities as text, SELECT * columns) and still pass every vector once (no variants),
    expected errors included (reported by the exception's phase and class)."""
    code, text = kit(capsys, "--adapter", "tests.conformance_kit.adapters:ReferenceAdapter", "-q")
    once = [c for c in vectors.all_cases() if c.variant_of is None]
    assert code == 0, text
    assert f"{len(once)} passed, 0 failed, 0 refused" in text
    assert any(c.error is not None for c in once)
