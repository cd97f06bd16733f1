"""`cepkit run PATTERN.afa.yaml EVENTS`: run an AFA over a (disordered) stream, through the one runner
(cepkit/runner.py).

Prints the output change stream (insertions, retractions, punctuations) in arrival order, or with
`--net` the net result (output insertions minus retractions) sorted by lifetime: the program's
`changes()` / `net()` (cepkit.core.contract.ChangeStream). `--limit N` keeps the first N records of what is
printed (punctuations included), not the first N output rows of the program.
"""
from __future__ import annotations

import argparse
import math
from typing import Any

from cepkit import options
from cepkit.run_steps import limit_options
from cepkit.core.errors import QueryError

FLAVOR_HELP = ("basic (the speculative AFA), ignorable (AFA+ignore), seq (AFA+O: needs a seq column), "
               "cleanse (Cleanse(σ) in front of the AFA)")

def add_options(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--net", action="store_true", help="print the net result instead of the change stream")
    group.add_argument("--flavor", default="basic", choices=("basic", "ignorable", "seq", "cleanse"),
                       help=FLAVOR_HELP)
    group.add_argument("--sigma", default=math.inf, type=options.sigma,
                       help="Cleanse's speculation bound σ (a number or inf)")

def compile_options(args: argparse.Namespace, engine) -> dict:
    """--flavor and --sigma; no limit: --limit cuts the printed change stream (`write`). --max-state is
    refused here, before the AFA file is read (neither AFA engine counts its live state)."""

    type(engine).check_budget(**limit_options(args))
    return {"flavor": args.flavor, "sigma": args.sigma, "limit": None}


def query(args: argparse.Namespace):
    """The AFA of the pattern file (errors name the file)."""
    # lazy: start-up: the parser imports this module for its flags; the run's machinery loads when it runs
    from cepkit.front.afa.afafile import load_afa

    return load_afa(args.query)


def summary(args: argparse.Namespace, program, stats) -> str:
    ops = [c["op"] for c in changes(program)]
    net = sum(r["count"] for r in program.net())
    return (f"{stats.events} input elements -> {ops.count('insert')} insertions, {ops.count('retract')} "
            f"retractions, {ops.count('punctuate')} punctuations; net {net} events (AFA {program.afa.name}, "
            f"{args.flavor}, engine {stats.engine}{stats.notes})")

def changes(program: Any):
    """The program's change stream (QueryError for a program that has none)."""
    # lazy: start-up: the parser imports this module for its flags; the run's machinery loads when it runs
    from cepkit.core.contract import ChangeStream

    if not isinstance(program, ChangeStream):
        raise QueryError(f"engine '{program.engine_name}' gives no change stream (changes(), net())")
    return program.changes()


def write(table, program: Any, args: argparse.Namespace) -> int:
    """The change stream, or with --net the net result, cut to --limit; the records written."""
    # lazy: start-up: the parser imports this module for its flags; the run's machinery loads when it runs
    from cepkit.output import OutputError, write_output

    rows = (program.net() if args.net else changes(program))[: args.limit]
    if args.format == "parquet":
        raise OutputError("AFA output is written as jsonl, csv or table, not parquet")
    write_output(args.format, args.output, lambda: rows, lambda _fmt: _flat_frame(rows), "(no output)",
                 ("le", "re", "t"))
    return len(rows)


def _flat_frame(rows: list[dict]):
    """One column per field, the register's fields as r.<name>."""
    import pandas as pd

    flat = []
    for r in rows:
        f = {k: v for k, v in r.items() if k != "payload"}
        p = r.get("payload")
        if isinstance(p, dict):
            f.update({f"r.{k}": v for k, v in p.items()})
        elif "payload" in r:
            f["payload"] = p
        flat.append(f)
    columns: list[str] = []
    for f in flat:
        columns += [k for k in f if k not in columns]
    return pd.DataFrame([[f.get(c, "") for c in columns] for f in flat], columns=columns, dtype=object)
