"""Make every picture of the docs from the examples and the committed benchmark results (`make docs` runs it).

    python scripts/make_doc_pictures.py            # tutorial plots (cepkit plot) + the performance plot
    python scripts/make_doc_pictures.py --bench    # first rerun the quick benchmarks into docs/data/bench/

The tutorial pictures are `cepkit plot` over examples/ (PNG, and the HTML page next to it); the performance
plot (docs/img/performance_quick.png) is benchmarks/plot_optimized.py over docs/data/bench/*.json, the JSON the benchmark scripts write;
the asv history (docs/img/asv_history.png) is benchmarks/plot_asv_history.py over the committed benchmarks/results/.
Nothing here is drawn by hand: change an example or a result and rerun.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IMG = ROOT / "docs" / "img" / "tutorial"
BENCH = ROOT / "docs" / "data" / "bench"

# picture name: cepkit plot arguments (query, events, options); each gives NAME.png and NAME.html
PLOTS = {
    "sase_query3": ["examples/query3.sase", "examples/fig3_stream.csv", "--value", "price"],
    "sase_shoplifting": ["examples/shoplifting.sase", "examples/rfid.jsonl", "--ts-unit", "h"],
    "sql_v_shape": ["examples/sql/v_shape.sql", "examples/sql/ticker.csv", "--value", "price"],
    "tpstream_aggressive_drivers": ["examples/tpstream/aggressive_drivers.tps", "examples/tpstream/car_sensors.csv",
                                    "--ts-unit", "s", "--value", "speed"],
    "afa_q1": ["examples/afa/q1.afa.yaml", "examples/afa/q1.shuffled.csv", "--value", "price"],
}

# the quick benchmark runs behind docs/performance.md's generated plot (--bench); sizes kept small so that
# a laptop reruns them in a few minutes
BENCH_RUNS = {
    "sql.json": ["benchmarks.sql_optimized", "--rows", "20000", "100000", "--reference-rows", "5000", "--repeat", "1"],
    "tpstream.json": ["benchmarks.tpstream_optimized", "--events", "20000", "100000", "--reference-events", "5000",
                      "--repeat", "1"],
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", action="store_true", help="rerun the quick benchmarks into docs/data/bench first")
    args = ap.parse_args(argv)
    from cepkit.cli import main as cepkit

    IMG.mkdir(parents=True, exist_ok=True)
    for name, plot_args in PLOTS.items():
        for suffix in (".png", ".html"):
            code = cepkit(["plot", *plot_args, "--out", str(IMG / f"{name}{suffix}")])
            if code != 0:
                return code
    if args.bench:
        BENCH.mkdir(parents=True, exist_ok=True)
        for out, cmd in BENCH_RUNS.items():
            subprocess.run([sys.executable, "-m", *cmd, "--json", str(BENCH / out)], check=True, cwd=ROOT)
    results = [BENCH / name for name in BENCH_RUNS if (BENCH / name).exists()]
    if results:
        from benchmarks.plot_optimized import main as plot_optimized

        plot_optimized([str(p) for p in results] + ["--out", str(ROOT / "docs" / "img" / "performance_quick.png")])
        print(f"docs/img/performance_quick.png from {', '.join(p.name for p in results)}", file=sys.stderr)
    else:
        print("no benchmark results in docs/data/bench (run with --bench): docs/img/performance_quick.png left as it is",
              file=sys.stderr)
    afa, lazy = BENCH / "afa.json", BENCH / "lazy.jsonl"   # benchmarks/plot_afa_lazy.py says how they are made
    if afa.exists() or lazy.exists():
        from benchmarks.plot_afa_lazy import main as plot_afa_lazy

        plot_afa_lazy([*(["--afa", str(afa)] if afa.exists() else []), *(["--lazy", str(lazy)] if lazy.exists() else []),
                       "--afa-out", str(IMG.parent / "afa.png"), "--lazy-out", str(IMG.parent / "lazy.png")])
    if any((ROOT / "benchmarks" / "results").glob("*/*-env-*.json")):   # the committed asv history (issue 32)
        from benchmarks.plot_asv_history import main as plot_asv_history

        plot_asv_history(["--out", str(IMG.parent / "asv_history.png")])
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
