"""Shared by the Spark tests: the single-process answer, and a Spark job's output as comparable rows."""
from __future__ import annotations

import json

import pandas as pd

import cepkit
from cepkit.core.readers import from_pandas
from cepkit.core.match import canonical_key, json_safe


def ordered(frame: pd.DataFrame) -> pd.DataFrame:
    """The events in the job's order: timestamp, then id."""
    return frame.sort_values(["ts", "id"], kind="stable").reset_index(drop=True)


def expected_rows(text: str, frame: pd.DataFrame, engine: str = "reference", selection: str = "all") -> list:
    """The single-process matches over the events in (ts, id) order, as sorted comparable rows."""
    program = cepkit.compile(text, engine=engine, selection=selection)
    matches = program.run(from_pandas(ordered(frame)))
    return sorted((m.key(), int(m.ts), tuple((k, json.dumps(json_safe(v), default=str, allow_nan=False)) for k, v in m.payload))
                  for m in matches)


def output_rows(frame: pd.DataFrame, variables: list[str], returns: list[str]) -> list:
    """A job's output rows (one per match) in the same comparable form."""
    rows = []
    for rec in frame.to_dict("records"):
        key = canonical_key({v: list(rec[v]) for v in variables})
        rows.append((key, int(rec["ts"]), tuple((r, rec[r]) for r in returns)))
    return sorted(rows)


def stock_parquet(tmp_path_factory, n: int, symbols: int, seed: int) -> tuple[pd.DataFrame, object]:
    """A generated stock stream (benchmarks.workloads.stock) and its Parquet file."""
    from benchmarks.workloads.stock import generate

    frame = generate(n, symbols=symbols, seed=seed)
    path = tmp_path_factory.mktemp("stock") / "stock.parquet"
    frame.to_parquet(path, index=False)
    return frame, path
