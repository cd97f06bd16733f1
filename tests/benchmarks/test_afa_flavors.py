"""benchmarks/afa_flavors.py measures the flavours on the same work: each gives the same output rows on a
disordered stream (the kernel's one loop over both node layouts), which its timings rely on."""
from benchmarks.afa_disorder import stream
from benchmarks.afa_flavors import FLAVORS, ROOT, seconds


def test_every_flavour_gives_the_same_output_rows():
    text = (ROOT / "examples" / "afa" / "q1.afa.yaml").read_text(encoding="utf-8")
    frame = stream("q1", 3000, late=0.1, retract=0.01)
    rows = {flavor: seconds(text, frame, flavor, 1)[1] for flavor in FLAVORS}
    assert len(set(rows.values())) == 1 and rows["basic"] > 0, rows
