"""The example AFAs load, and run from files."""
from __future__ import annotations

from pathlib import Path

from cepkit.front.afa.afafile import load_afa

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "afa"


def load_example(name: str):
    return load_afa(EXAMPLES / f"{name}.afa.yaml")


def test_every_example_loads():
    names = sorted(p.name for p in EXAMPLES.glob("*.afa.yaml"))
    assert names == ["ab.afa.yaml", "head_shoulders.afa.yaml", "negative.afa.yaml", "q1.afa.yaml",
                     "q2.afa.yaml", "q3.afa.yaml"]
    for p in EXAMPLES.glob("*.afa.yaml"):
        load_afa(p)


def test_the_documented_example_loads():
    from cepkit.front.afa.afafile import loads_afa

    doc = (EXAMPLES.parents[1] / "docs" / "language.md").read_text(encoding="utf-8")
    section = doc[doc.index("# AFA file format"):]
    block = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    afa = loads_afa(block)
    assert [a.name for a in afa.arcs] == ["a0", "a1", "e1"] and afa.standby[0].is_final


def test_q3_dynamic_flip_of_the_last_tick():
    """Q3 with the standby arc: deleting t8 and inserting t8up in default mode (spec/003 §6)."""
    from cepkit.reference.afa.operator import AfaOperator
    from cepkit.front.afa.stream import ArcDelete, ArcInsert, Event, Insert

    afa = load_example("q3")
    op = AfaOperator(afa)
    ups = [10, 10, -10, 10, -10, -10, 10]
    op.feed_all(Insert(Event.make(le, le + 10, {"change": c})) for le, c in enumerate(ups + [-10], start=1))
    assert list(op.net_output()) == [((8,), 8, 11)]
    op.feed_all([ArcDelete("t8"), ArcInsert(afa.arc("t8up"))])
    op.feed_all(Insert(Event.make(le, le + 10, {"change": c})) for le, c in enumerate(ups + [10], start=11))
    assert sorted(op.net_output()) == [((8,), 8, 11), ((8,), 18, 21)]
