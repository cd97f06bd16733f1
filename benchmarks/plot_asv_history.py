"""A static picture of the asv history (docs/img/asv_history.png): the history subset's `time_` benchmarks,
one panel per class, one line per parameter, over the commits recorded in benchmarks/results/MACHINE/ in commit
date order (asv's own pages, `make docs` -> site/asv/, draw the same series interactively, but load jQuery and
flot from CDNs, so they need a browser with internet access; this picture does not).

    python -m benchmarks.plot_asv_history [--results benchmarks/results] [--machine bench-2core] [--out PNG]
"""
from __future__ import annotations

import argparse
import itertools
import json
import math
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PANELS = ["bench_sase.SasePlusEngines.time_run", "bench_sase1.Sase1Engines.time_run", "bench_lazy.LazyEngines.time_run",
          "bench_afa.AfaEngines.time_run", "bench_tpstream.TPStreamEngines.time_run",
          "bench_sql.MatchRecognizeEngines.time_run", "bench_windows.WindowEngines.time_run",
          "bench_output.Writers.time_write", "bench_startup.StartUp.time_command"]


def series(results_dir: Path) -> tuple[list[tuple[int, str]], dict[str, dict[str, list[float]]]]:
    """(commits as (date ms, short hash), in date order; {benchmark: {parameter label: seconds per commit}})."""
    runs = []
    for path in results_dir.glob("*-env-*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        runs.append((data["date"], data["commit_hash"][:8], data["results"]))
    runs.sort()
    out: dict[str, dict[str, list[float]]] = {}
    for i, (_date, _commit, results) in enumerate(runs):
        for name in PANELS:
            if name not in results:
                continue
            values, params = results[name][0], results[name][1]
            labels = [", ".join(p.strip("'") for p in combo) for combo in itertools.product(*params)] or [""]
            for label, value in zip(labels, values if isinstance(values, list) else [values]):
                line = out.setdefault(name, {}).setdefault(label, [math.nan] * len(runs))
                line[i] = math.nan if value is None else value
    return [(d, c) for d, c, _ in runs], out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default=str(ROOT / "benchmarks" / "results"))
    ap.add_argument("--machine", default="bench-2core")
    ap.add_argument("--out", default=str(ROOT / "docs" / "img" / "asv_history.png"))
    args = ap.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    commits, data = series(Path(args.results) / args.machine)
    if not commits:
        print(f"no asv results in {Path(args.results) / args.machine}")
        return 1
    fig, axes = plt.subplots(3, 3, figsize=(15, 10), sharex=True)
    x = list(range(len(commits)))
    for ax, name in zip(axes.flat, PANELS):
        for label, values in sorted(data.get(name, {}).items()):
            ax.plot(x, [v * 1000 for v in values], marker="o", markersize=3, label=label or "all")
        ax.set_title(name.removeprefix("bench_"), fontsize=9)
        ax.set_ylabel("ms")
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=7)
        ax.grid(alpha=0.3)
    ticks = x[:: max(1, len(x) // 8)]
    for ax in axes[-1]:
        ax.set_xticks(ticks)
        ax.set_xticklabels([datetime.fromtimestamp(commits[i][0] / 1000, timezone.utc).strftime("%d %H:%M") + "\n"
                            + commits[i][1] for i in ticks], fontsize=7)
    fig.suptitle(f"asv history, machine {args.machine}: {len(commits)} commits of main (wall time of the warm run; "
                 "missing point: the commit lacks the subject)", fontsize=10)
    fig.tight_layout()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=90)
    print(f"{args.out}: {len(commits)} commits")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
