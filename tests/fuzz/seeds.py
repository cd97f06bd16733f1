"""The seed corpus: valid (query, events, options) triples of every language, from examples/ and the
conformance cases, each checked once through the CLI (kept only if it runs with exit 0)."""
from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
LANGS = ("sase", "sase1", "sql", "tpstream", "afa", "window")   # sase1: SASE 1.0 `.query` files
SUFFIX = {"sase": ".sase", "sase1": ".query", "sql": ".sql", "tpstream": ".tps", "afa": ".afa.yaml",
          "window": ".win"}
MAX_ROWS = 400   # events per seed: keeps a mutated query's run short


@dataclass(frozen=True)
class Table:
    """Events as a header and rows of cells; a cell is an int, a float, a str or None."""

    header: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]


@dataclass(frozen=True)
class Seed:
    name: str
    lang: str                       # one of LANGS
    query: str
    events: Table
    args: tuple[str, ...] = ()      # extra `cepkit run` options (--ts-unit, --id-col ...)
    matches: int = field(default=0, compare=False)     # output lines of the valid run
    output: str = field(default="", compare=False)     # its standard output

    def __repr__(self) -> str:
        return f"Seed({self.lang} {self.name})"


def cell(text: str) -> Any:
    """A CSV cell as the seed's typed value: int or float when it is one, else the text (None if empty)."""
    if text == "":
        return None
    for kind in (int, float):
        try:
            return kind(text) if text.isascii() and "_" not in text else text
        except ValueError:
            continue
    return text


def table_from_csv(text: str, limit: int = MAX_ROWS) -> Table:
    rows = list(csv.reader(io.StringIO(text)))
    return Table(tuple(rows[0]), tuple(tuple(cell(c) for c in r) for r in rows[1:limit + 1]))


def table_from_records(records: list[dict[str, Any]]) -> Table:
    header: list[str] = []
    for r in records:
        header += [k for k in r if k not in header]
    return Table(tuple(header), tuple(tuple(r.get(k) for k in header) for r in records[:MAX_ROWS]))


def _example_seeds() -> list[tuple[str, str, str, Table, tuple[str, ...]]]:
    ex = ROOT / "examples"

    def csv_file(name: str) -> Table:
        return table_from_csv((ex / name).read_text())

    jsonl = [json.loads(line) for line in (ex / "rfid.jsonl").read_text().splitlines() if line.strip()]
    out = [
        ("query3", "sase", (ex / "query3.sase").read_text(), csv_file("fig3_stream.csv"), ()),
        ("shoplifting", "sase", (ex / "shoplifting.sase").read_text(), table_from_records(jsonl), ("--ts-unit", "h")),
        ("rfid", "sase", (ex / "rfid/shoplifting.sase").read_text(),
         csv_file("rfid/readings.csv"), ("--id-col", "none")),
        ("stock1", "sase1", (ex / "sase1_stock.query").read_text(), csv_file("stocks.csv"), ()),
        ("v_shape", "sql", (ex / "sql/v_shape.sql").read_text(), csv_file("sql/ticker.csv"), ()),
        ("v_shape_rows", "sql", (ex / "sql/v_shape_all_rows.sql").read_text(),
         csv_file("sql/ticker.csv"), ()),
        ("insider", "sql", (ex / "sql/insider.sql").read_text(), csv_file("sql/trades.csv"), ()),
        ("crimes", "sql", (ex / "sql/crimes_listing31.sql").read_text(),
         csv_file("sql/crimes.csv"), ("--ts-unit", "min")),
        ("big_trades", "window", (ex / "sql/big_trades.win").read_text(),
         csv_file("sql/trades.csv"), ()),
        ("volume", "window", (ex / "sql/volume.win").read_text(), csv_file("sql/trades.csv"), ()),
        ("drivers", "tpstream", (ex / "tpstream/aggressive_drivers.tps").read_text(),
         csv_file("tpstream/car_sensors.csv"), ("--ts-unit", "s")),
    ]
    for q in ("q1", "q2", "q3", "negative", "head_shoulders"):
        out.append((q, "afa", (ex / f"afa/{q}.afa.yaml").read_text(),
                    csv_file(f"afa/{q}.events.csv"), ()))
    stocks = table_from_csv((ex / "stocks.csv").read_text(), 120)
    for i, q in enumerate(("PATTERN SEQ(stock a, stock b) WHERE [symbol] AND b.price > a.price + 1 WITHIN 3",
                           "PATTERN SEQ(stock a, !(stock c), stock b) WHERE strict-contiguity AND a.volume > 900 "
                           "AND b.volume < 200 AND c.price < 0 WITHIN 10",
                           "PATTERN SEQ(stock+ a[], stock b) WHERE skip-till-next-match AND [symbol] AND "
                           "a[i].volume > a[i-1].volume AND b.volume < a[a.LEN].volume / 2 WITHIN 20")):
        out.append((f"stock1_{i}", "sase1", q + "\n", stocks, ()))
    trades = csv_file("sql/trades.csv")
    for i, q in enumerate(("AGGREGATE min(v), max(v), count(v) OVER TIME 5 SLIDE 2",
                           "AGGREGATE sum(p), avg(p) OVER COUNT 4 SLIDE 1 SKIP EMPTY",
                           "FILTER WHERE p * 2 >= v / 10 AND NOT p = 30")):
        out.append((f"win{i}", "window", q + "\n", trades, ()))
    return out


def _conformance_seeds() -> list[tuple[str, str, str, Table, tuple[str, ...]]]:
    out = []
    cases_dir = ROOT / "conformance" / "cases"
    for path in sorted(cases_dir.glob("**/*.yaml")):
        sub = path.parent.name
        lang = {"cases": "sase", "sql": "sql", "tpstream": "tpstream"}.get(sub)
        if lang is None:
            continue
        for case in yaml.safe_load(path.read_text()).get("cases", []):
            if not isinstance(case.get("query"), str) or not isinstance(case.get("events"), list):
                continue
            if {"options", "type_col", "error", "definitions"} & set(case) or case.get("kind", "match") != "match":
                continue
            args = ("--ts-unit", str(case["ts_unit"])) if case.get("ts_unit") else ()
            out.append((str(case["id"]), case.get("language", lang), case["query"],
                        table_from_records(case["events"]), args))
    return out


@lru_cache(maxsize=None)
def seeds() -> tuple[Seed, ...]:
    """Every seed that runs with exit 0, with its output (seeds with no match are kept for query fuzzing)."""
    from tests.fuzz.driver import run_case
    from tests.fuzz.formats import serialize

    kept = []
    for name, lang, query, table, args in _example_seeds() + _conformance_seeds():
        seed = Seed(name, lang, query, table, args)
        out = run_case(seed.lang, query.encode(), "events.csv", serialize(table, "csv"), args)
        if out.code == 0:
            kept.append(Seed(name, lang, query, table, args, len(out.stdout.splitlines()), out.stdout))
    return tuple(kept)


def seeds_for(lang: str, matching: bool = False) -> list[Seed]:
    found = [s for s in seeds() if s.lang == lang and (s.matches > 0 or not matching)]
    if not found:
        raise LookupError(f"no valid {'matching ' if matching else ''}seed for {lang}")
    return found
