"""`cepkit run QUERY.tps EVENTS [--early]`: a TPStream query over an event file, through the one runner
(cepkit/runner.py); one row per match with its detection time `ts`, its situations' intervals and the
RETURN values."""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, Iterator

if TYPE_CHECKING:
    import pandas as pd
    from cepkit.core.match_table import MatchTable


def add_options(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--early", action="store_true",
                       help="low-latency output: report each match as soon as it is certain (spec/004 §5.8)")

def compile_options(args: argparse.Namespace, engine) -> dict:
    """--early as the `mode` compile option: "early", else "exact" (an engine without early output refuses
    it at compile time, by the constructs core/registry.py declares for it)."""
    return {"mode": "early" if args.early else "exact"}


def summary(args: argparse.Namespace, program, stats) -> str:
    return (f"{stats.count} matches from {stats.events} events in {stats.elapsed:.2f} s "
            f"(tpstream, {program.mode} mode, engine {stats.engine}{stats.notes})")

def write(table: MatchTable, program: Any, args: argparse.Namespace) -> int:
    """The program's whole match table in --format: per match the partition attributes, each situation's
    start and end, the detection time `ts` and the RETURN values, every time in the run's form (--ts-format).
    JSON lines: {"partition": {...} (with PARTITION BY), "situations": {NAME: [start, end]}, "ts", RETURN
    values}; csv, table, parquet: the columns of `frame`."""
    # lazy: start-up (the parser imports this module for --early; numpy, pandas load when it writes)
    from cepkit.core.match import json_safe
    from cepkit.forms import time_form
    from cepkit.output import write_output

    query = program.query
    rows = list(situation_rows(table, query))

    def records() -> list[dict]:
        texts = iter(time_form().texts([t for _p, sits, _ts, _v in rows for _n, s, e in sits for t in (s, e)]))
        out = []
        for partition, sits, ts, values in rows:
            record: dict[str, Any] = {}
            if query.partition_by:
                record["partition"] = {a: json_safe(v) for a, v in zip(query.partition_by, partition)}
            record["situations"] = {n: [next(texts), next(texts)] for n, _s, _e in sits}
            record["ts"] = ts
            record.update({name: json_safe(v) for name, v in values})
            out.append(record)
        return out

    write_output(args.format, args.output, records, lambda _fmt: frame(rows, query), "(no matches)",
                 _times(query))
    return len(rows)


def situation_rows(table: MatchTable, query) -> Iterator[tuple[tuple, list[tuple[str, Any, Any]], Any, list]]:
    """Per row of the match table (reference/tpstream/engine.py's layout: the payload is the partition
    attributes, each situation's NAME.start and NAME.end, then the RETURN values): (partition values,
    [(situation, start, end)], detection time, [(RETURN name, value)])."""
    k, names = len(query.partition_by), list(query.streams)
    returns = [r.name for r in query.returns]
    for m in table.rows():
        values = [v for _name, v in m.payload]
        sits = [(n, values[k + 2 * i], values[k + 2 * i + 1]) for i, n in enumerate(names)]
        yield tuple(values[:k]), sits, m.ts, list(zip(returns, values[k + 2 * len(names):]))

def frame(rows: list, query) -> pd.DataFrame:
    """One row per match: partition attributes, each situation's NAME_ts and NAME_te, ts (detection),
    RETURN values."""
    from cepkit.core.match import plain  # lazy: start-up (as in write)
    from cepkit.forms import exact_frame

    names = list(query.streams)
    cols = list(query.partition_by) + [f"{n}_{e}" for n in names for e in ("ts", "te")] + ["ts"] + \
        [r.name for r in query.returns]
    records = []
    for partition, sits, ts, values in rows:
        row: dict[str, Any] = {a: plain(v) for a, v in zip(query.partition_by, partition)}
        for n, s, e in sits:
            row[f"{n}_ts"], row[f"{n}_te"] = s, e
        row["ts"] = ts
        row.update({name: plain(v) for name, v in values})
        records.append(row)
    return exact_frame(records, cols, _times(query))


def _times(query) -> list[str]:
    """The columns that hold times: each situation's start and end, and the detection time."""
    return [f"{n}_{e}" for n in query.streams for e in ("ts", "te")] + ["ts"]
