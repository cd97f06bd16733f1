"""The plots of the optimized AFA and lazy engines for docs/performance.md, from the results the benchmark
scripts write (one run each; the ratios within a run are what the plots show):

    python -m benchmarks.afa_optimized --events 1000000 --reference-events 20000 --json docs/data/bench/afa.json
    python -m benchmarks.lazy_optimized --events 1000000 --json > docs/data/bench/lazy.jsonl
    python -m benchmarks.plot_afa_lazy --afa docs/data/bench/afa.json --lazy docs/data/bench/lazy.jsonl

AFA (docs/img/afa.png): input elements/s of the optimized engine and the reference per query against the
fraction of late events, and output retractions/s. Lazy (docs/img/lazy.png): events/s of the optimized eager,
lazy-chain and tree engines, and the partial matches each creates, against the type frequency ratio.
"""
from __future__ import annotations

import argparse
import json
import os


def afa_rows(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def lazy_rows(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def plot_afa(rows: list[dict], out: str, plt) -> None:
    fig, (rate, retr) = plt.subplots(1, 2, figsize=(10, 3.8))
    for i, query in enumerate(dict.fromkeys(r["query"] for r in rows)):
        mine = sorted((r for r in rows if r["query"] == query), key=lambda r: r["disorder"])
        late = [100 * r["disorder"] for r in mine]
        color = f"C{i}"
        rate.plot(late, [r["optimized"]["elements_per_s"] for r in mine], marker="o", color=color,
                  label=f"{query} optimized")
        rate.plot(late, [r["reference"]["elements_per_s"] for r in mine], marker="s", ls="--", color=color,
                  label=f"{query} reference")
        retr.plot(late, [r["optimized"]["retractions_per_s"] for r in mine], marker="o", color=color,
                  label=f"{query} optimized")
    rate.set_yscale("log")
    rate.set_title("AFA: input elements per second", fontsize=10)
    retr.set_title("AFA optimized: output retractions per second", fontsize=10)
    for ax in (rate, retr):
        ax.set_xlabel("late events (%)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    size = rows[0]["optimized"]["elements"]
    ref = rows[0]["reference"]["elements"]
    fig.suptitle(f"optimized: {size:,} elements; reference: {ref:,} elements (one run)", fontsize=9)
    save(fig, out)


def plot_lazy(rows: list[dict], out: str, plt) -> None:
    rows = sorted(rows, key=lambda r: r["ratio"])
    ratios = [r["ratio"] for r in rows]
    fig, (rate, pms) = plt.subplots(1, 2, figsize=(10, 3.8))
    for engine, style in (("optimized-eager", "s--"), ("optimized-lazy", "o-"), ("optimized-tree", "^-")):
        rate.plot(ratios, [r[f"{engine}_events_per_second"] for r in rows], style, label=engine)
        pms.plot(ratios, [r[f"{engine}_partial_matches"] for r in rows], style, label=engine)
    rate.plot(ratios, [r["reference-lazy_events_per_second"] for r in rows], "o:", color="grey",
              label=f"reference-lazy ({rows[0]['reference_events']:,} events)")
    rate.set_title("events per second", fontsize=10)
    pms.set_title("partial matches created", fontsize=10)
    for ax in (rate, pms):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("type frequency ratio r (A : B : C = r : r : 1)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(f"SEQ(A a, B b, C c) WHERE a.x < b.x WITHIN {rows[0]['window']}; {rows[0]['events']:,} events "
                 f"(one run)", fontsize=9)
    save(fig, out)


def save(fig, out: str) -> None:
    fig.tight_layout()
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--afa", help="benchmarks.afa_optimized --json output")
    ap.add_argument("--lazy", help="benchmarks.lazy_optimized --json output (JSON lines)")
    ap.add_argument("--afa-out", default="docs/img/afa.png")
    ap.add_argument("--lazy-out", default="docs/img/lazy.png")
    args = ap.parse_args(argv)
    if not (args.afa or args.lazy):
        ap.error("give --afa, --lazy or both")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if args.afa:
        plot_afa(afa_rows(args.afa), args.afa_out, plt)
    if args.lazy:
        plot_lazy(lazy_rows(args.lazy), args.lazy_out, plt)


if __name__ == "__main__":
    main()
