"""`cepkit run PATTERN.afa.yaml EVENTS`: run an AFA over a (disordered) stream.

Prints the output change stream (insertions, retractions, punctuations) in arrival order, or with
`--net` the net result (output insertions minus retractions) sorted by lifetime.
"""
from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from typing import Any

from cepkit import options

FLAVOR_HELP = ("basic (the speculative AFA), ignorable (AFA+ignore), seq (AFA+O: needs a seq column), "
               "cleanse (Cleanse(σ) in front of the AFA)")


# docs/semantics.md SD1: why this language reads its events whole
WHOLE = "whole input read: the change stream is printed at the end"


def add_options(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--net", action="store_true", help="print the net result instead of the change stream")
    group.add_argument("--flavor", default="basic", choices=("basic", "ignorable", "seq", "cleanse"),
                       help=FLAVOR_HELP)
    group.add_argument("--sigma", default=math.inf, type=options.sigma,
                       help="Cleanse's speculation bound σ (a number or inf)")


def _value(v: Any) -> Any:
    from cepkit.core.match import plain

    if isinstance(v, float) and math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return plain(v)


def _payload(afa, register: Any) -> Any:
    from cepkit.reference.afa.afafile import payload_dict

    p = payload_dict(afa, register)
    return {k: _value(x) for k, x in p.items()} if isinstance(p, dict) else _value(p)


def run_stream(afa, elements, flavor: str = "basic", sigma: Any = math.inf, engine: str = "reference"):
    """Feed (row, element) pairs (or, for the optimized engine, the events file itself) through the AFA
    engine's program and close it; errors name the input row. Returns the program (its `outputs`,
    `punctuations`, `net_output()`)."""
    from cepkit.core import registry
    program = registry.get_engine("afa", engine).compile(afa, flavor=flavor, sigma=sigma)
    if engine != "reference":
        program.record = True   # keep the change stream for printing
    program.feed(elements)
    program.close()  # end of input: Cleanse releases what it still holds
    return program


def _rows(afa, op, net: bool) -> list[dict]:
    from cepkit.reference.afa.stream import Output

    if net:
        counts: Counter = op.net_output()
        keys = sorted(counts, key=lambda k: (k[1], k[2], repr(k[0])))
        return [{"le": _value(le), "re": _value(re_), "payload": _payload(afa, r), "count": counts[(r, le, re_)]}
                for (r, le, re_) in keys]
    out = []
    for o in op.outputs:
        if isinstance(o, Output):
            out.append({"op": "insert" if o.sign > 0 else "retract", "le": _value(o.le), "re": _value(o.re),
                        "payload": _payload(afa, o.payload)})
        else:
            out.append({"op": "punctuate", "t": _value(o.t)})
    return out


def _write(rows: list[dict], fmt: str, output: str | None) -> None:
    from cepkit.output import OutputError, write_output

    if fmt == "parquet":
        raise OutputError("AFA output is written as jsonl, csv or table, not parquet")
    write_output(fmt, output, lambda: rows, lambda _fmt: _flat_frame(rows), "(no output)", ("le", "re", "t"))


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


def run(args: argparse.Namespace) -> int:
    from cepkit.reference.afa.afafile import load_afa
    from cepkit.reference.afa.eventfile import read_stream

    from cepkit.cli import limit_options, limited
    from cepkit.reference.afa.engine import AfaEngine

    from cepkit.core import registry
    engine = getattr(args, "engine", None) or "reference"
    (AfaEngine if engine == "reference" else type(registry.get_engine("afa", engine))).check_budget(
        **limit_options(args))
    afa = load_afa(args.query)
    if engine == "reference":
        elements = read_stream(args.events, afa)
        op = run_stream(afa, elements, args.flavor, args.sigma)
        count = len(elements)
    else:   # the optimized engine reads the file column-wise itself
        op = run_stream(afa, args.events, args.flavor, args.sigma, engine)
        count = op.elements
    rows = _rows(afa, op, args.net)[: args.limit]  # --limit: the first N elements of the change stream
    _write(rows, args.format, args.output)
    limited(args, len(rows))
    outs = [o for o in op.outputs if hasattr(o, "sign")]
    print(f"{count} input elements -> {sum(o.sign > 0 for o in outs)} insertions, "
          f"{sum(o.sign < 0 for o in outs)} retractions, {len(op.outputs) - len(outs)} punctuations; "
          f"net {sum(op.net_output().values())} events (AFA {afa.name}, {args.flavor}; {WHOLE})", file=sys.stderr)
    return 0
