"""The Spark job over a wide file whose extra columns the query never reads (issue 31, item 2: they are dropped
before the matching stage, spark_jobs/source.py stage_columns): Query 3 over a keyed stock stream with
`--extra` unread double columns and one text column, `run_job` on a local session, the matching stage's
seconds of each of `--repeat` runs (the first pays for the first run of each plan).

    python -m benchmarks.spark_unread_columns N [--extra 10] [--repeat 4] [--master local[2]]
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

QUERY3 = Path(__file__).resolve().parent.parent / "examples" / "query3.sase"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int)
    ap.add_argument("--extra", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=4)
    ap.add_argument("--master", default="local[2]")
    args = ap.parse_args(argv)

    import numpy as np

    from benchmarks.workloads.stock import generate
    from cepkit.spark_jobs.job import run_job
    from cepkit.spark_jobs.session import get_session, job_settings
    from cepkit.spark_jobs.warmup import cache_env

    frame = generate(args.n, symbols=8, seed=7, volume_max=1010)
    rng = np.random.default_rng(1)
    for i in range(args.extra):
        frame[f"extra{i}"] = rng.random(args.n)
    frame["comment"] = "an unread text column"
    tmp = Path(tempfile.mkdtemp(prefix="cepkit-wide-"))
    path = tmp / "wide.parquet"
    frame.to_parquet(path, index=False)
    spark = get_session(args.master, **job_settings(args.master, cache_env()))
    text = QUERY3.read_text()
    seconds = [run_job(text, str(path), str(tmp / f"out{i}"), spark=spark, ts_unit="min").match_seconds
               for i in range(args.repeat)]
    best = min(seconds[1:] or seconds)
    print(f"{args.n:,} events, {len(frame.columns)} columns ({args.extra + 1} unread): matching stage "
          f"{', '.join(f'{s:.2f}' for s in seconds)} s; best after the first: {best:.2f} s = "
          f"{args.n / best:,.0f} events/s")
    spark.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
