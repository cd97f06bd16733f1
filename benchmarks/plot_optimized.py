"""The rates of the optimized MATCH_RECOGNIZE and TPStream engines against the reference (and the pandas
peer), as one log-scale plot for docs/performance.md, from the JSON the benchmark scripts write:

    python -m benchmarks.sql_optimized ... --json out/bench/sql.json
    python -m benchmarks.tpstream_optimized ... --json out/bench/tpstream.json
    python -m benchmarks.plot_optimized out/bench/sql.json out/bench/tpstream.json --out docs/img/optimized.png
"""
from __future__ import annotations

import argparse
import json


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--out", default="docs/img/optimized.png")
    args = ap.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for path in args.inputs for r in json.load(open(path))]
    panels = sorted({(r["language"], r["query"]) for r in rows})
    cols = 3
    nrows = -(-len(panels) // cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(4.2 * cols, 3.4 * nrows), squeeze=False)
    colors = {"reference": "tab:blue", "optimized": "tab:green", "pandas-match-recognize": "tab:orange"}
    for ax in axes.flat[len(panels):]:
        ax.axis("off")
    for ax, (language, query) in zip(axes.flat, panels):
        mine = [r for r in rows if (r["language"], r["query"]) == (language, query)]
        for engine in dict.fromkeys(r["engine"] for r in mine):
            pts = sorted((r["rows"], r["rate"]) for r in mine if r["engine"] == engine)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=engine, color=colors.get(engine))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"{'MATCH_RECOGNIZE' if language == 'sql' else 'TPStream'}: {query}", fontsize=9)
        ax.set_xlabel("input rows / events")
        ax.set_ylabel("rows / events per second")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    import os

    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
