"""The main job (`make demo`): generate a stock stream, run Query 3 through the Spark job, check a sample
of the output against the reference engine, print a short summary and where the time went (start-up,
read, compile, match, commit; cepkit.spark_jobs.summary.Summary.phases).

The sample is the stream's first `--sample` events: Query 3 has no negation, so the matches whose last
event lies in that prefix are exactly the reference's matches over the prefix alone.
Run: python -m benchmarks.spark_demo [--events N] [--out DIR] [--engine NAME] [--master URL] [--sample N]
                                    [--cluster N] [--again N]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from cepkit.spark_jobs.session import DEFAULT_MASTER

QUERY3 = Path(__file__).resolve().parent.parent / "examples" / "query3.sase"


def _cell(value):
    """A Parquet cell as pandas reads it, as its exact value: null (None, or NaN where a double column holds
    one), an exact rational struct as a Fraction, a decimal(38, 0) as an int, a list of ids as a tuple."""
    from decimal import Decimal
    from fractions import Fraction

    if value is None or (isinstance(value, float) and value != value):
        return None
    if isinstance(value, dict) and set(value) == {"numerator", "denominator"}:
        return Fraction(int(value["numerator"]), int(value["denominator"]))
    if isinstance(value, Decimal):
        return int(value)
    if hasattr(value, "tolist"):
        value = value.tolist()
    return tuple(value) if isinstance(value, list) else value


def _rows(frame, variables, returns) -> set:
    from cepkit.core.match import canonical_key

    return {(canonical_key({v: list(rec[v]) for v in variables}), int(rec["ts"]),
             tuple(_cell(rec[r]) for r in returns)) for rec in frame.to_dict("records")}


def sample_check(text: str, events, output, cutoff: int) -> tuple[int, bool]:
    """(number of sample matches, whether the Spark output's matches ending before `cutoff` equal the
    reference's matches over the events before it, as `cepkit run --format parquet` writes them). The values
    are compared, not the column types: a column's type is its whole answer's (docs/spark.md "Output"), so
    the prefix alone may type it otherwise (an average whole on the prefix: int64 there, double in the job's
    output); 500 and 500.0, 1/2 and 0.5 are equal values."""
    import cepkit
    from cepkit.core.readers import from_pandas
    from cepkit.front.language import parse
    from cepkit.match_output import match_cells, parquet_table

    q = parse(text)
    assert not any(c.negated for c in q.pattern.components), "the prefix check needs a query without negation"
    variables = [c.var for c in q.pattern.components]
    returns = [r.name for r in q.returns]
    prefix = events[events["ts"] < cutoff]
    expected = cepkit.compile(text, engine="reference").run(from_pandas(prefix, ts_unit="min"))
    want = _rows(parquet_table(*match_cells(expected, "parquet")).to_pandas(), variables, returns)
    got = _rows(output[output["ts"] < cutoff], variables, returns)
    return len(want), got == want


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=200_000)
    ap.add_argument("--symbols", type=int, default=8)
    ap.add_argument("--out", default="out/demo")
    ap.add_argument("--engine", help="engine in the executors (default: the Spark job's default)")
    ap.add_argument("--master", default=DEFAULT_MASTER)
    ap.add_argument("--sample", type=int, default=20_000, help="events in the prefix checked against the reference")
    ap.add_argument("--cluster", type=int, default=0, metavar="N",
                    help="run on a local standalone cluster of N workers (separate JVMs, own caches) started here")
    ap.add_argument("--again", type=int, default=0, metavar="N",
                    help="then run the same job N more times in the same session, printing each matching stage "
                         "(the first run against warm ones: what the JVM's warm-up costs)")
    args = ap.parse_args(argv)
    if args.cluster:
        from cepkit.spark_jobs.local_cluster import LocalCluster

        with LocalCluster(workers=args.cluster) as cluster:
            print(f"local Spark cluster: master {cluster.url}, master UI {cluster.ui}, application UI "
                  f"http://127.0.0.1:4040 while the job runs (logs: {cluster.root})", flush=True)
            args.master = cluster.url
            return _demo(args)
    return _demo(args)


def _demo(args) -> int:

    import pandas as pd

    from benchmarks.workloads.stock import generate
    from cepkit.core.errors import CepkitError
    from cepkit.spark_jobs.job import run_job

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    events_path = out / "stock.parquet"
    # One event per minute (WITHIN 1 hour = 60 events); volumes up to 1010 so that a[1].volume > 1000
    # starts a run on about 1% of the events.
    events = generate(args.events, symbols=args.symbols, seed=7, volume_max=1010)
    events.to_parquet(events_path, index=False)
    text = QUERY3.read_text(encoding="utf-8")
    try:
        summary = run_job(text, str(events_path), str(out / "matches"), engine=args.engine, master=args.master,
                          ts_unit="min")
    except CepkitError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    output = pd.read_parquet(out / "matches")
    t0 = time.perf_counter()
    sampled, same = sample_check(text, events, output, cutoff=min(args.sample, args.events))
    check_s = time.perf_counter() - t0
    print(f"Query 3 on Spark ({args.master}, engine {summary.engine}, split {summary.plan})")
    print(f"  events:   {summary.events:,} ({args.symbols} symbols) in {os.fspath(events_path)}")
    print(f"  matches:  {summary.matches:,} in {os.fspath(out / 'matches')}")
    print(f"  speed:    {summary.events_per_second:,.0f} events/s in the matching stage "
          f"({summary.match_seconds:.1f} s)")
    print("  time:     " + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in summary.phases)
          + f" (total {summary.total_seconds:.1f} s)")
    if summary.task_compiles is not None:
        print(f"  compiled: {summary.task_compiles} Numba compilation(s) in the tasks "
              f"({'no task compiled' if summary.task_compiles == 0 else 'tasks compiled engine code'})")
    print(f"  sample:   the {sampled:,} matches ending in the first {min(args.sample, args.events):,} events "
          f"{'equal' if same else 'DIFFER FROM'} the reference engine's ({check_s:.1f} s)")
    for k in range(args.again):   # the session run_job started is active: the same JVM and Python workers
        again = run_job(text, str(events_path), str(out / "matches"), engine=args.engine, master=args.master,
                        ts_unit="min")
        print(f"  again {k + 1}:  {again.events_per_second:,.0f} events/s in the matching stage "
              f"({again.match_seconds:.2f} s)")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
