"""The optimized AFA engine per flavour (basic, ignorable, cleanse), engine only, on the paper's examples
q1-q3 at 0 and 10 % disorder (benchmarks/afa_disorder.py streams): the best of --repeat runs, fed in chunks
of 100,000 rows after a warm-up. Run it on two trees to compare them (PYTHONPATH=TREE).

    python -m benchmarks.afa_flavors --ticks 300000 --repeat 5
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from benchmarks.afa_disorder import stream

ROOT = Path(__file__).resolve().parent.parent
FLAVORS = ("basic", "ignorable", "cleanse")


def seconds(text: str, frame, flavor: str, repeat: int) -> tuple[float, int]:
    """(best seconds, output rows) of feeding the frame in chunks and closing."""
    import cepkit

    best, rows = None, 0
    for _ in range(repeat):
        program = cepkit.compile(text, language="afa", engine="optimized", flavor=flavor)
        program.run(frame.iloc[:2000])   # warm: loads (or compiles) the kernel
        program = cepkit.compile(text, language="afa", engine="optimized", flavor=flavor)
        t0 = time.perf_counter()
        rows = sum(len(program.feed(frame.iloc[i:i + 100_000])) for i in range(0, len(frame), 100_000))
        rows += len(program.close())
        took = time.perf_counter() - t0
        best = took if best is None else min(best, took)
    return best, rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ticks", type=int, default=300_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    for query in ("q1", "q2", "q3"):
        text = (ROOT / "examples" / "afa" / f"{query}.afa.yaml").read_text(encoding="utf-8")
        for late in (0.0, 0.1):
            frame = stream(query, args.ticks, late=late, retract=0.01 if late else 0.0)
            for flavor in FLAVORS:
                took, rows = seconds(text, frame, flavor, args.repeat)
                print(f"{query} {late:>4.0%} {flavor:9s} {took:8.3f} s  {rows} output rows", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
